import { deflateRawSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { rowForPath } from '#core/effects/classify';
import { READ_CLASSES } from '#core/effects/effect';
import { findHoneytokens } from '#core/behaviour/honeytoken-search';
import { plantHoneytokens } from '#core/behaviour/honeytokens';

/** A fixed source of "random" text (mulberry32), so the test's tokens are the same every run. */
function seeded(seed = 7) {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  return (length: number, alphabet: string) => Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
}

const bait = plantHoneytokens(seeded());
const aws = bait.tokens.find((t) => t.name === 'aws-secret-access-key')!;
const awsFile = bait.files.find((f) => f.path === '~/.aws/credentials')!.content;

describe('the bait', () => {
  it('plants a secret store of every read class the table knows, each where the table classifies it', () => {
    const classes = new Set(bait.tokens.map((t) => t.class));
    expect(READ_CLASSES.filter((c) => !classes.has(c))).toEqual([]);
    for (const file of bait.files) expect(rowForPath('reads', file.path)).toBeDefined();
  });

  it('plants every secret variable of the table, with a random part of at least 20 characters each', () => {
    expect(bait.env.AWS_SECRET_ACCESS_KEY).toBeDefined();
    expect(bait.env.GITHUB_TOKEN).toMatch(/^ghp_/);
    expect(bait.tokens.every((t) => t.value.length >= 20)).toBe(true);
    expect(plantHoneytokens(seeded(8)).tokens[0]!.value).not.toBe(bait.tokens[0]!.value);
  });
});

describe('finding honeytokens in what was sent', () => {
  const found = (data: Uint8Array | string) => findHoneytokens(data, bait.tokens).find((h) => h.token === aws.name)?.encoding;
  const b64 = (s: string | Uint8Array) => Buffer.from(s).toString('base64');

  it('finds a secret as it is, reversed, in hex, URL-encoded and in base64 at any offset', () => {
    expect(found(`POST /u HTTP/1.1\r\n\r\n${awsFile}`)).toEqual([]);
    expect(found([...awsFile].reverse().join(''))).toEqual(['reversed']);
    expect(found(Buffer.from(awsFile).toString('hex'))).toEqual(['hex']);
    expect(found(`d=${encodeURIComponent(awsFile).replace(/[A-Za-z0-9]/g, (c) => `%${c.charCodeAt(0).toString(16)}`)}`)).toEqual(['url']);
    for (const pad of ['', 'x', 'xy']) expect(found(`{"d":"${b64(pad + awsFile)}"}`)).toEqual(['base64']);
    expect(found(b64(awsFile).replace(/\+/g, '-').replace(/\//g, '_'))?.[0]).toMatch(/^base64/);
  });

  it('finds a secret compressed, and under layers: base64 of gzip, reversed base64, raw deflate after HTTP headers', () => {
    expect(found(gzipSync(awsFile))).toEqual(['gzip']);
    expect(found(b64(gzipSync(awsFile)))).toEqual(['base64', 'gzip']);
    expect(found([...b64(awsFile)].reverse().join(''))).toEqual(['reversed', 'base64']);
    expect(found(Buffer.concat([Buffer.from('POST / HTTP/1.1\r\nContent-Encoding: deflate\r\n\r\n'), deflateRawSync(awsFile)]))).toEqual(['deflate']);
  });

  it('finds a secret spelt into DNS labels in base32', () => {
    const base32 = (bytes: Buffer) => {
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
      let bits = '';
      for (const b of bytes) bits += b.toString(2).padStart(8, '0');
      return (bits.match(/.{1,5}/g) ?? []).map((c) => alphabet[Number.parseInt(c.padEnd(5, '0'), 2)]).join('');
    };
    const labels = (base32(Buffer.from(aws.value)).match(/.{1,30}/g) ?? []).join('.');
    expect(found(`${labels.replace(/\./g, '')}`)).toEqual(['base32']);
  });

  it('finds nothing in bytes that hold none of this run’s secrets', () => {
    const other = plantHoneytokens(seeded(99))
      .files.map((f) => f.content)
      .join('');
    expect(findHoneytokens(`${other}${b64(other)}${gzipSync(other).toString('latin1')}`, bait.tokens)).toEqual([]);
  });
});
