import { randomBytes } from 'node:crypto';
import { configFromEnv } from '#functions/platform/config';
import type { Deps } from '#functions/platform/composition';
import { createLogger } from '#functions/platform/log';
import { serveApp } from '../local/http-server.ts';
import { ensureStorage, startEmbeddedServices } from '../local/stack.ts';
import { createLocalRuntime, type LocalRuntime } from '../local/runtime.ts';

/** The local runtime on an ephemeral loopback port, with fresh storage, for one benchmark run. */
export interface BenchStack {
  baseUrl: string;
  deps: Deps;
  runtime: LocalRuntime;
  stop(): Promise<void>;
}

export async function startBenchStack(env: Record<string, string> = {}, overrides: Pick<Partial<Deps>, 'scanner'> = {}): Promise<BenchStack> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const services = await startEmbeddedServices();
  const suffix = randomBytes(4).toString('hex');
  const config = configFromEnv({
    TABLE_NAME: `bench-${suffix}`,
    CONTENT_BUCKET: `bench-content-${suffix}`,
    STATIC_BUCKET: `bench-static-${suffix}`,
    DYNAMODB_ENDPOINT: services.dynamoEndpoint,
    S3_ENDPOINT: services.s3Endpoint,
    SKILLPRESS_DEV_LOGIN: '1',
    ...env,
  });
  // As `npm start` runs it: rebuilds and count writes in the background thread.
  const runtime = createLocalRuntime(config, { log: createLogger('warn'), ...overrides }, { background: 'thread', logLevel: 'warn' });
  const { deps, app } = runtime;
  await ensureStorage(config, deps.s3);
  const { server, port } = await serveApp(app.fetch, '127.0.0.1', 0, runtime.cdn);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    deps,
    runtime,
    stop: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.idle();
      await runtime.close();
      await services.stop();
    },
  };
}

/** Signs in with the dev sign-in and creates an API key; returns the cookie and the key. */
export async function signInWithKey(baseUrl: string, login: string): Promise<{ cookie: string; key: string }> {
  const res = await fetch(`${baseUrl}/api/auth/dev-login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: baseUrl },
    body: JSON.stringify({ login }),
  });
  const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
  const keyRes = await fetch(`${baseUrl}/api/api-keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie, origin: baseUrl },
    body: JSON.stringify({ name: 'bench' }),
  });
  const { key } = (await keyRes.json()) as { key: string };
  return { cookie, key };
}

/** A POST with an API key that must answer 201: how long it took, and the parsed answer. */
export function timedPost(baseUrl: string, key: string): (path: string, body: unknown) => Promise<{ ms: number; body: { id: string } }> {
  return async (path, body) => {
    const started = performance.now();
    const res = await fetch(baseUrl + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`${path} → ${res.status} ${text.slice(0, 300)}`);
    return { ms: performance.now() - started, body: JSON.parse(text) as { id: string } };
  };
}
