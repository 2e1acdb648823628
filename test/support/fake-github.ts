import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake GitHub on loopback: the OAuth token endpoint (github.com) and the two REST calls
 * Skillpress makes (api.github.com), served from one port so a test sets both
 * GITHUB_OAUTH_BASE_URL and GITHUB_BASE_URL to `baseUrl`. It behaves like GitHub where it
 * matters: codes are single-use, a bad code is a 200 with an `error` body, the token reply
 * carries `scope`, and the API wants the token it issued.
 */
export interface GitHubUser {
  id: number;
  login: string;
  name?: string | null;
  avatar_url?: string | null;
}

export interface Dispatch {
  owner: string;
  repo: string;
  workflow: string;
  ref: string;
  inputs?: Record<string, string>;
  authorization: string;
}

export interface FakeGitHub {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Token accepted by the workflow dispatch endpoint. */
  dispatchToken: string;
  /** What GitHub would hand the browser after the user approves: a fresh code for `user`. */
  issueCode(user: GitHubUser): string;
  /** Every token exchange attempted, by code. */
  exchanges: { code: string; redirectUri?: string }[];
  dispatches: Dispatch[];
  /** Makes the next `count` requests to `path` (a prefix) fail with `status`. */
  failNext(path: string, status: number, count?: number): void;
  /** Replaces the body `GET /user` returns (for a user GitHub sends in an unexpected shape). */
  overrideUser(body: unknown): void;
  close(): Promise<void>;
}

export async function startFakeGitHub(): Promise<FakeGitHub> {
  const clientId = `Iv1.${randomBytes(8).toString('hex')}`;
  const clientSecret = randomBytes(20).toString('hex');
  const dispatchToken = `ghp_${randomBytes(18).toString('hex')}`;
  const codes = new Map<string, GitHubUser>();
  const tokens = new Map<string, GitHubUser>();
  const exchanges: FakeGitHub['exchanges'] = [];
  const dispatches: Dispatch[] = [];
  const failures: { path: string; status: number; count: number }[] = [];
  let userOverride: unknown;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = await readJson(req);
    const failure = failures.find((f) => url.pathname.startsWith(f.path) && f.count > 0);
    if (failure) {
      failure.count -= 1;
      return send(res, failure.status, { message: 'Server Error' });
    }

    if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      const code = String(body.code ?? '');
      exchanges.push({ code, redirectUri: body.redirect_uri as string | undefined });
      const user = codes.get(code);
      codes.delete(code); // single-use, used or not
      if (body.client_id !== clientId || body.client_secret !== clientSecret) {
        return send(res, 200, {
          error: 'incorrect_client_credentials',
          error_description: 'The client_id and/or client_secret passed are incorrect.',
          error_uri: 'https://docs.github.com',
        });
      }
      if (!user) {
        return send(res, 200, {
          error: 'bad_verification_code',
          error_description: 'The code passed is incorrect or expired.',
          error_uri: 'https://docs.github.com',
        });
      }
      const token = `gho_${randomBytes(18).toString('hex')}`;
      tokens.set(token, user);
      return send(res, 200, { access_token: token, token_type: 'bearer', scope: '' });
    }

    const auth = req.headers.authorization ?? '';
    const token = auth.replace(/^(token|bearer)\s+/i, '');

    if (req.method === 'GET' && url.pathname === '/user') {
      const user = tokens.get(token);
      if (!user) return send(res, 401, { message: 'Bad credentials' });
      return send(res, 200, userOverride ?? { ...user, type: 'User', site_admin: false, html_url: `https://github.com/${user.login}` });
    }

    const dispatch = /^\/repos\/([^/]+)\/([^/]+)\/actions\/workflows\/([^/]+)\/dispatches$/.exec(url.pathname);
    if (req.method === 'POST' && dispatch) {
      if (token !== dispatchToken) return send(res, 401, { message: 'Bad credentials' });
      if (typeof body.ref !== 'string') return send(res, 422, { message: 'ref is required' });
      dispatches.push({
        owner: dispatch[1]!,
        repo: dispatch[2]!,
        workflow: decodeURIComponent(dispatch[3]!),
        ref: body.ref,
        ...(body.inputs ? { inputs: body.inputs as Record<string, string> } : {}),
        authorization: auth,
      });
      res.writeHead(204).end();
      return;
    }
    send(res, 404, { message: 'Not Found' });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => send(res, 500, { message: 'fake failed' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    clientId,
    clientSecret,
    dispatchToken,
    issueCode(user) {
      const code = randomBytes(10).toString('hex');
      codes.set(code, user);
      return code;
    },
    exchanges,
    dispatches,
    failNext(path, status, count = 1) {
      failures.push({ path, status, count });
    },
    overrideUser(body) {
      userOverride = body;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return {};
  if ((req.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(text));
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

/** The environment that points GitHub sign-in and the site build at `fake`. */
export function fakeGitHubEnv(fake: FakeGitHub): Record<string, string> {
  return {
    GITHUB_CLIENT_ID: fake.clientId,
    GITHUB_CLIENT_SECRET: fake.clientSecret,
    GITHUB_BASE_URL: fake.baseUrl,
    GITHUB_OAUTH_BASE_URL: fake.baseUrl,
    GITHUB_REPO: 'skillpress/site',
    GITHUB_WORKFLOW: 'site.yml',
    GITHUB_TOKEN: fake.dispatchToken,
  };
}
