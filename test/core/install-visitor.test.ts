import { describe, expect, it } from 'vitest';
import { networkOf, visitorHashes } from '#core/install-visitor';

const secret = (n: number) => new Uint8Array(32).fill(n);

describe('the network an address counts as', () => {
  it('is an IPv4 address itself, mapped into IPv6 or not', () => {
    expect(networkOf('127.0.0.2')).toBe('127.0.0.2');
    expect(networkOf('::ffff:127.0.0.3')).toBe('127.0.0.3');
  });

  it('is an IPv6 address’s /64, however the address is written', () => {
    expect(networkOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2');
    expect(networkOf('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2');
    expect(networkOf('2001:db8::1')).toBe('2001:db8:0:0');
    expect(networkOf('fe80::1%eth0')).toBe('fe80:0:0:0');
    expect(networkOf('::1')).toBe('0:0:0:0');
  });

  it('is one unknown network without an address or with something that is not one', () => {
    expect(networkOf(undefined)).toBe('unknown');
    expect(networkOf('')).toBe('unknown');
    expect(networkOf('10.0.0.1, 127.0.0.1')).toBe('unknown');
  });
});

describe('a client’s hashes', () => {
  it('are the same for one client on one day, and keep neither the address nor the user agent', () => {
    const a = visitorHashes(secret(1), { address: '203.0.113.9', userAgent: 'node' });
    expect(visitorHashes(secret(1), { address: '203.0.113.9', userAgent: 'node' })).toEqual(a);
    expect(JSON.stringify(a)).not.toContain('203.0.113');
    expect(a.network).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('differ between days (secrets), networks and user agents', () => {
    const a = visitorHashes(secret(1), { address: '203.0.113.9', userAgent: 'node' });
    expect(visitorHashes(secret(2), { address: '203.0.113.9', userAgent: 'node' }).network).not.toBe(a.network);
    expect(visitorHashes(secret(1), { address: '203.0.113.10', userAgent: 'node' }).network).not.toBe(a.network);
    expect(visitorHashes(secret(1), { address: '203.0.113.9', userAgent: 'curl/8' }).agent).not.toBe(a.agent);
  });

  it('put the addresses of one IPv6 /64 in one network', () => {
    const a = visitorHashes(secret(1), { address: '2001:db8:1:2::1', userAgent: 'node' });
    expect(visitorHashes(secret(1), { address: '2001:db8:1:2:dead:beef:0:1', userAgent: 'node' })).toEqual(a);
  });
});
