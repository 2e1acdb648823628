export { startServer, type ServerProcess } from '#scripts/local/server-process';

export interface CallResult {
  status: number;
  headers: Headers;
  body: any;
}

/** One JSON request over real HTTP to a running server; the body is parsed when there is one. */
export async function call(base: string, path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<CallResult> {
  const res = await fetch(base + path, {
    method: init.method ?? 'GET',
    headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}
