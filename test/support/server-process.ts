import { request as httpRequest } from 'node:http';

export { startServer, type ServerProcess } from '#scripts/local/server-process';

export interface CallResult {
  status: number;
  headers: Headers;
  body: any;
}

/**
 * A GET over a connection of its own from the loopback address `from` (127.0.0.2, …): a client
 * of its own, as distinct installs count them (docs/api.md §10.2). Resolves with the status.
 */
export function getFrom(base: string, path: string, from: string): Promise<number> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname + url.search, localAddress: from, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end();
  });
}

/** One JSON request over real HTTP to a running server; the body is parsed when there is one. */
export async function call(base: string, path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<CallResult> {
  const res = await fetch(base + path, {
    method: init.method ?? 'GET',
    // A JSON client says so: Node's fetch with Accept */* is how the skills CLI is told apart (api.md §7.11).
    headers: { accept: 'application/json', ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/**
 * Waits until the run of `skillId@version` in the sandbox ended, asking the running server as the
 * holder of `key` might (`GET /api/skills/{id}/versions/{version}/behaviour`): a version with something to run is published pending,
 * and only once observed is it its skill's default. Gives how it fared.
 */
export async function untilObservedAt(base: string, key: string, skillId: string, version = '1.0.0'): Promise<string> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    const res = await call(base, `/api/skills/${skillId}/versions/${version}/behaviour`, { headers: { authorization: `Bearer ${key}` } });
    if (res.status !== 200) throw new Error(`behaviour ${res.status} ${JSON.stringify(res.body)}`);
    if (res.body.behaviour !== 'pending') return res.body.behaviour as string;
    if (Date.now() > deadline) throw new Error(`${skillId}@${version} is still being observed`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
