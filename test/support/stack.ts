import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { slugify } from '#core/slug';
import { type Config, configFromEnv } from '#functions/platform/config';
import type { Deps } from '#functions/platform/composition';
import { ensureStorage } from '#scripts/local/stack';
import { createLocalRuntime, type LocalRuntime, type LocalRuntimeOptions } from '#scripts/local/runtime';
import { renamedSkillMd, skillFile } from './skill-md.ts';

/**
 * A fresh, isolated service for one test file: its own table and buckets on the shared embedded
 * dynalite and s3rver, and the real Hono app driven through `app.request()`.
 */
export interface TestStack {
  deps: Deps;
  config: Config;
  runtime: LocalRuntime;
  /** Resolves once every committed write so far has been rebuilt into static files. */
  idle(): Promise<void>;
  request(path: string, init?: RequestInit): Promise<Response>;
  /** `request` as if over a connection from `address` (the socket's peer, as Node's server gives it). */
  requestFrom(address: string, path: string, init?: RequestInit): Promise<Response>;
  /** Sets the clock every handler reads; undefined gives it back the real time. */
  setNow(date: Date | string | undefined): void;
}

export const ORIGIN = 'http://localhost';

export async function createTestStack(
  overrides: Partial<Omit<Deps, 'config' | 'changed'>> = {},
  env: Record<string, string> = {},
  options: LocalRuntimeOptions = {},
): Promise<TestStack> {
  const { dynamoEndpoint, s3Endpoint } = inject('services');
  const suffix = randomBytes(4).toString('hex');
  const config = configFromEnv({
    TABLE_NAME: `t-${suffix}`,
    CONTENT_BUCKET: `content-${suffix}`,
    STATIC_BUCKET: `static-${suffix}`,
    DYNAMODB_ENDPOINT: dynamoEndpoint,
    S3_ENDPOINT: s3Endpoint,
    SKILLPRESS_DEV_LOGIN: '1',
    ...env,
  });
  let now: Date | undefined;
  const runtime = createLocalRuntime(config, { clock: () => now ?? new Date(), ...overrides }, options);
  const { deps, app } = runtime;
  await ensureStorage(config, deps.s3);
  return {
    deps,
    config,
    runtime,
    idle: () => runtime.idle(),
    request: async (path, init) => app.request(path, init),
    requestFrom: async (address, path, init) => app.request(path, init, { incoming: { socket: { remoteAddress: address } } }),
    setNow: (date) => {
      now = date === undefined ? undefined : new Date(date);
    },
  };
}

/** A small HTTP client over a test stack, for the common steps of a scenario. */
export class Client {
  constructor(
    readonly stack: TestStack,
    readonly cookie?: string,
  ) {}

  static async signIn(stack: TestStack, login: string): Promise<Client> {
    const res = await stack.request('/api/auth/dev-login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: stack.config.siteOrigin ?? ORIGIN },
      body: JSON.stringify({ login }),
    });
    if (res.status !== 200) throw new Error(`dev-login ${res.status}`);
    const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
    return new Client(stack, cookie);
  }

  /**
   * Signs in through GitHub's OAuth flow as a browser does: the app's redirect, then its callback
   * with the code `issueCode` (a fake GitHub's) gives and the state cookie.
   */
  static async signInWithGitHub(stack: TestStack, issueCode: () => string): Promise<Client> {
    const start = await stack.request('/api/auth/github');
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    const stateCookie = start.headers
      .getSetCookie()
      .find((c) => c.startsWith('skillpress_oauth_state='))!
      .split(';')[0]!;
    const res = await stack.request(`/api/auth/github/callback?${new URLSearchParams({ code: issueCode(), state })}`, { headers: { cookie: stateCookie } });
    const session = res.headers.getSetCookie().find((c) => c.startsWith('skillpress_session='));
    if (!session) throw new Error(`GitHub sign-in ${res.status}`);
    return new Client(stack, session.split(';')[0]!);
  }

  /** A request with the session cookie and the site's Origin. */
  session(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
    return this.stack.request(path, {
      method: init.method ?? 'GET',
      headers: { cookie: this.cookie ?? '', origin: ORIGIN, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  }

  async createKey(name = 'ci'): Promise<string> {
    const res = await this.session('/api/api-keys', { method: 'POST', body: { name } });
    if (res.status !== 201) throw new Error(`create key ${res.status} ${await res.text()}`);
    return ((await res.json()) as { key: string }).key;
  }
}

/** A request authenticated by an API key. */
export function withKey(
  stack: TestStack,
  key: string,
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Response> {
  return stack.request(path, {
    method: init.method ?? 'POST',
    headers: { authorization: `Bearer ${key}`, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
  });
}

let counter = 0;
/**
 * A valid publish body; names are unique per call so slugs never collide by accident. Its
 * `SKILL.md` is a valid Agent Skill named by the slug the body makes, unless `files` is given.
 */
export function skillBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  const body: Record<string, unknown> = {
    name: `Test Skill ${counter} ${randomBytes(3).toString('hex')}`,
    description: 'Formats things nicely',
    category: 'Dev Tools',
    ...overrides,
  };
  const slug = (body.slug as string | undefined) ?? slugify(String(body.name));
  return { files: [skillFile(slug, `# Skill ${counter}\n`)], ...body };
}

/**
 * {@link skillBody} whose `SKILL.md` is `text` (a sample with front matter), its name set to the
 * slug the body makes, so the files are a valid Agent Skill whatever the sample was written for.
 */
export function skillBodyWithSkillMd(text: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const body = skillBody(overrides);
  const slug = (body.slug as string | undefined) ?? slugify(String(body.name));
  return { ...body, files: [{ filename: 'SKILL.md', content: renamedSkillMd(text, slug) }] };
}

export { renamedSkillMd, skillFile, skillMd } from './skill-md.ts';

export async function json<T = any>(res: Response): Promise<T> {
  return (await res.json()) as T;
}
