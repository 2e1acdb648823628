import { createHmac } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';

/**
 * Who installed, as far as distinct installs need to know, and nothing more (docs/api.md §10.2).
 * A client is its network address and its user agent; neither is ever stored. What is kept is
 * a keyed hash of each under a secret of the UTC day (store/install-visitors.ts makes one per
 * day at random and lets it expire), so a day's hashes cannot be linked to an address, to another
 * day, or to anything once the day's secret is gone.
 *
 * The address is the connection's (the socket's peer, or on AWS the edge's record of it), never a
 * header the client sets. An IPv6 address counts by its /64, the block one subscriber is given:
 * its last 64 bits are the client's to choose, so each of them would otherwise be a new client.
 * Behind one address (an office, a household, a carrier's NAT) each user agent is a client, up to
 * {@link AGENTS_PER_NETWORK} a day per skill: beyond that one address adds nothing, whatever
 * user agents it sends.
 */

/** Distinct clients one network may add to a skill in a UTC day (different user agents behind one address). */
export const AGENTS_PER_NETWORK = 4;

/** What a request tells about its client; `address` absent when the transport gives none. */
export interface ClientFacts {
  address?: string;
  userAgent?: string;
}

/** The hashes a day's counter keeps of one client: of its network, and of its user agent. */
export interface VisitorHashes {
  network: string;
  agent: string;
}

/** The network an address counts as: an IPv4 address itself, an IPv6 address's /64; `unknown` without one. */
export function networkOf(address: string | undefined): string {
  if (!address) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped && isIPv4(mapped)) return mapped;
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return 'unknown';
  return expandIPv6(address).slice(0, 4).join(':');
}

/** The day's keyed hashes of a client (base64url, 128 bits each: collisions are out of reach). */
export function visitorHashes(daySecret: Uint8Array, client: ClientFacts): VisitorHashes {
  const hash = (label: string, value: string) => createHmac('sha256', daySecret).update(`${label}\n${value}`).digest('base64url').slice(0, 22);
  return { network: hash('network', networkOf(client.address)), agent: hash('agent', (client.userAgent ?? '').slice(0, 512)) };
}

/** The eight 16-bit groups of an IPv6 address, as lower-case hex without leading zeros. */
function expandIPv6(address: string): string[] {
  const zone = address.indexOf('%');
  const bare = (zone >= 0 ? address.slice(0, zone) : address).toLowerCase();
  const [head, tail] = bare.includes('::') ? bare.split('::') : [bare, undefined];
  const parts = (s: string | undefined) => (s ? s.split(':') : []);
  const groups = (list: string[]) =>
    list.flatMap((g) => {
      if (!g.includes('.')) return [g];
      const [a, b, c, d] = g.split('.').map(Number) as [number, number, number, number];
      return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
    });
  const left = groups(parts(head));
  const right = groups(parts(tail));
  const middle = tail === undefined ? [] : Array.from({ length: 8 - left.length - right.length }, () => '0');
  return [...left, ...middle, ...right].map((g) => Number.parseInt(g, 16).toString(16));
}
