import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { bundleIntegrity, decodeFile, fileEntries, type WireFile } from '#core/bundle';
import { registryPath, SIGNING_KEYS_KEY } from '#core/static-paths';
import {
  endorsementMessage,
  keyIdOf,
  type RegistryKey,
  SIGNATURE_FORMAT,
  type SignedFacts,
  SIGNING_ALG,
  signedMessage,
  spkiPem,
  type VersionSignature,
} from '#core/version-signature';

/**
 * A registry on loopback that says whatever a test wants: the old, foreign or compromised server
 * the client must survive. Documents it builds are internally consistent (digests and integrity
 * match the files), so the client's integrity checks pass and only the lie under test remains.
 */

export interface FakeSkill {
  /** As the registry names it, valid or not. */
  slug: string;
  version?: string;
  files?: WireFile[];
  /** Any JSON value: a test may pass an object parsed from text to get a `__proto__` key. */
  dependencies?: unknown;
  /** Fields to overwrite in the registry document (name, description, versions, …). */
  doc?: Record<string, unknown>;
  /** Fields to overwrite in the delivery. */
  delivery?: Record<string, unknown>;
}

export interface FakeAnswer {
  status?: number;
  headers?: Record<string, string>;
  /** JSON-serialised unless a string or Buffer; `stream` writes the body itself instead. */
  body?: unknown;
  stream?: (res: ServerResponse) => void;
}

/** What to answer for a request; `headers` for routes that check credentials. */
export type Route = (url: URL, headers?: IncomingHttpHeaders) => FakeAnswer | undefined;

export interface FakeRegistry {
  url: string;
  /** Every path asked for, in order (query included). */
  requests: string[];
  close(): Promise<void>;
}

/**
 * What a file of CLI tests against fake registries shares: a throw-away folder holding the CLI's
 * HOME, cache and config (removed after the file's tests), and `start`, whose registry is closed
 * after each test.
 */
export function fakeRegistryWorkspace(name: string): {
  work: string;
  env: Record<string, string>;
  start: (route: Route) => Promise<FakeRegistry>;
} {
  const work = mkdtempSync(join(tmpdir(), `skillpress-${name}-`));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  let running: FakeRegistry | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });
  return {
    work,
    env: { HOME: join(work, 'home'), XDG_CACHE_HOME: join(work, 'cache'), XDG_CONFIG_HOME: join(work, 'config') },
    start: async (route) => {
      running = await startFakeRegistry(route);
      return running;
    },
  };
}

export async function startFakeRegistry(route: Route): Promise<FakeRegistry> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url!);
    const answer = route(new URL(req.url!, 'http://fake.test'), req.headers);
    if (!answer) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found","message":"Not found"}}');
    res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
    if (answer.stream) return answer.stream(res);
    const body = answer.body;
    res.end(typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The path a client asks for `path`, after URL normalisation (`..` segments resolved). */
export const requestedPath = (path: string) => new URL(path, 'http://fake.test').pathname;

const PUBLISHED_AT = '2025-01-01T00:00:00.000Z';

/**
 * Routes serving `skills` as a registry would: the registry document, the versions list and the
 * delivery of each, at the paths the client asks for them (after URL normalisation, so a slug
 * such as `../../x` is served where a client's request for it lands).
 */
export function skillRoutes(skills: FakeSkill[]): Route {
  const answers = new Map<string, unknown>();
  skills.forEach((skill, index) => {
    const id = `fake-${index}`;
    const version = skill.version ?? '1.0.0';
    const wire = skill.files ?? [{ filename: 'SKILL.md', content: `# ${skill.slug}\n` }];
    const bytes = wire.map((file) => decodeFile(file)!);
    const integrity = bundleIntegrity(bytes);
    const summary = { version, changelog: '', publishedAt: PUBLISHED_AT, integrity, signature: fakeSignature({ slug: skill.slug, version, integrity }) };
    const doc = {
      id,
      slug: skill.slug,
      name: skill.slug,
      description: 'A skill served by a fake registry.',
      category: 'testing',
      author: 'mallory',
      paid: false,
      currentVersion: version,
      createdAt: PUBLISHED_AT,
      updatedAt: PUBLISHED_AT,
      files: fileEntries(bytes),
      versions: [summary],
      dependencies: skill.dependencies ?? {},
      formats: ['agent-skills'],
      delivery: { url: `/api/deliver/${id}` },
      ...skill.doc,
    };
    const registry = requestedPath(registryPath(skill.slug));
    if (!answers.has(registry)) answers.set(registry, doc);
    const versions = requestedPath(`${registryPath(skill.slug)}/versions`);
    if (!answers.has(versions)) answers.set(versions, { id, slug: doc.slug, currentVersion: doc.currentVersion, versions: doc.versions });
    answers.set(`/api/deliver/${id}`, { skillId: id, slug: skill.slug, version, files: wire, ...skill.delivery });
  });
  answers.set(`/${SIGNING_KEYS_KEY}`, FAKE_KEYS);
  return (url) => {
    // The batch resolve (docs/api.md §7.17): for each entry asked, whatever the registry document's path holds, lies included.
    if (url.pathname === '/api/resolve') return { body: { skills: (url.searchParams.get('skills') ?? '').split(',').map(resolvedEntry(answers)) } };
    return answers.has(url.pathname) ? { body: answers.get(url.pathname) } : undefined;
  };
}

/** One entry of a batch resolve from the documents a fake registry serves: both of them, or the 404 of a lookup. */
const resolvedEntry = (answers: Map<string, unknown>) => (entry: string) => {
  const slug = entry.split('@')[0]!;
  const registry = answers.get(requestedPath(registryPath(slug)));
  if (registry === undefined) return { slug, error: { code: 'not_found', message: `No skill ${JSON.stringify(slug)}` } };
  return { slug, registry, versions: answers.get(requestedPath(`${registryPath(slug)}/versions`)) };
};

/** A signing key of a fake registry: its private half, and its entry as keys.json lists it. */
export interface FakeSigningKey {
  privateKey: KeyObject;
  entry: RegistryKey;
}

/** A new P-256 signing key, as a registry (or a mirror re-signing everything) would hold. */
export function fakeSigningKey(): FakeSigningKey {
  const pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const spki = pair.publicKey.export({ type: 'spki', format: 'der' });
  return { privateKey: pair.privateKey, entry: { keyid: keyIdOf(spki), alg: SIGNING_ALG, publicKey: spkiPem(spki), created: PUBLISHED_AT } };
}

/**
 * The fake registry's signing key: its documents sign each version as the real registry does
 * (docs/api.md §11.11), so only the lie under test remains. Tests of a lying signature replace
 * `signature` in a version or answer keys.json themselves.
 */
export const FAKE_KEY = fakeSigningKey();
export const FAKE_KEYS = { keys: [FAKE_KEY.entry] };

/** `key`'s signature of a version's facts (in the format the registry signs now), the fake registry's unless another key is given. */
export function fakeSignature(facts: SignedFacts, key: FakeSigningKey = FAKE_KEY): VersionSignature {
  const sig = sign('sha256', Buffer.from(signedMessage(facts)), { key: key.privateKey, dsaEncoding: 'der' });
  return { keyid: key.entry.keyid, sig: sig.toString('base64'), format: SIGNATURE_FORMAT };
}

/** `old`'s endorsement of `next`: the rotation statement keys.json carries on the new key. */
export function fakeEndorsement(old: FakeSigningKey, next: FakeSigningKey): { keyid: string; sig: string } {
  const sig = sign('sha256', Buffer.from(endorsementMessage(next.entry.keyid)), { key: old.privateKey, dsaEncoding: 'der' });
  return { keyid: old.entry.keyid, sig: sig.toString('base64') };
}
