import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake GitHub on loopback, for tests and for `npm run fake-github` (a local author demo): the
 * OAuth web flow (github.com) and the REST calls Skillpress makes (api.github.com), served from
 * one port, so `SKILLPRESS_GITHUB_API` (or GITHUB_OAUTH_BASE_URL and GITHUB_BASE_URL) is
 * `baseUrl`. It behaves like GitHub where it matters: codes are single-use, a bad code is a 200
 * with an `error` body, the token reply carries `scope`, and the API wants the token it issued.
 * For imports it serves repositories from local git folders (`addRepo`): the repository, a ref's
 * commit, a commit's recursive tree and its blobs, read with `git` itself, and accounts by id and
 * organisations' members.
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

/** Who owns a repository the fake serves. */
export interface RepoOwner {
  login: string;
  id: number;
  type: 'User' | 'Organization';
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
  /** Serves `fullName` (`owner/name`) from the git repository at `gitDir`, its default branch `main`. */
  addRepo(fullName: string, gitDir: string, owner: RepoOwner): void;
  /** Makes `login` a member of organisation `org` (and known by id for `GET /user/{id}`). */
  addOrgMember(org: string, user: GitHubUser): void;
  /** Every API request's method and path, in order. */
  requests: string[];
  close(): Promise<void>;
}

export interface FakeGitHubOptions {
  /** The loopback port to listen on; a free one by default. */
  port?: number;
  /** The OAuth app's credentials; random by default. Fixed ones let a demo's commands be written down. */
  clientId?: string;
  clientSecret?: string;
  /**
   * The account signed in to this GitHub in the browser: the authorize page
   * (`/login/oauth/authorize`) approves the app for it at once, as GitHub does for an app the
   * user approved before, and sends the browser back with a code. Without one the page is a 404
   * and a test issues codes itself (`issueCode`).
   */
  signedIn?: GitHubUser;
}

export async function startFakeGitHub(options: FakeGitHubOptions = {}): Promise<FakeGitHub> {
  const clientId = options.clientId ?? `Iv1.${randomBytes(8).toString('hex')}`;
  const clientSecret = options.clientSecret ?? randomBytes(20).toString('hex');
  const dispatchToken = `ghp_${randomBytes(18).toString('hex')}`;
  const codes = new Map<string, GitHubUser>();
  const tokens = new Map<string, GitHubUser>();
  const exchanges: FakeGitHub['exchanges'] = [];
  const dispatches: Dispatch[] = [];
  const failures: { path: string; status: number; count: number }[] = [];
  let userOverride: unknown;
  const repos = new Map<string, { dir: string; owner: RepoOwner; name: string }>();
  const users = new Map<number, GitHubUser>();
  const members = new Map<string, Set<string>>();
  const requests: string[] = [];
  const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { maxBuffer: 64 * 1024 * 1024 });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = await readJson(req);
    requests.push(`${req.method} ${url.pathname}`);
    const failure = failures.find((f) => url.pathname.startsWith(f.path) && f.count > 0);
    if (failure) {
      failure.count -= 1;
      return send(res, failure.status, { message: 'Server Error' });
    }

    if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') return authorize(url, res);

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

    if (req.method === 'GET') {
      const served = serveRepos(url);
      if (served) return send(res, served.status, served.body);
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

  /** The authorize page: the signed-in account approves at once, and the browser goes back to the app with a code and its state. */
  const authorize = (url: URL, res: ServerResponse): void => {
    const redirect = url.searchParams.get('redirect_uri');
    if (!options.signedIn || url.searchParams.get('client_id') !== clientId || !redirect) {
      send(res, 404, { message: 'Not Found' });
      return;
    }
    const back = new URL(redirect);
    back.searchParams.set('code', issueCode(options.signedIn));
    const state = url.searchParams.get('state');
    if (state !== null) back.searchParams.set('state', state);
    res.writeHead(302, { location: back.href }).end();
  };

  const issueCode = (user: GitHubUser): string => {
    users.set(user.id, user);
    const code = randomBytes(10).toString('hex');
    codes.set(code, user);
    return code;
  };

  /** The read-only REST calls an import makes, or undefined for a path that is none of them. */
  const serveRepos = (url: URL): { status: number; body?: unknown } | undefined => {
    const notFound = { status: 404, body: { message: 'Not Found' } };
    const account = /^\/user\/(\d+)$/.exec(url.pathname);
    if (account) {
      const user = users.get(Number(account[1]));
      return user ? { status: 200, body: { ...user, type: 'User' } } : notFound;
    }
    const member = /^\/orgs\/([^/]+)\/members\/([^/]+)$/.exec(url.pathname);
    if (member) return members.get(member[1]!.toLowerCase())?.has(decodeURIComponent(member[2]!).toLowerCase()) ? { status: 204 } : notFound;
    const repoPath = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(url.pathname);
    if (!repoPath) return undefined;
    const repo = repos.get(`${repoPath[1]}/${repoPath[2]}`.toLowerCase());
    if (!repo) return notFound;
    const rest = repoPath[3] ?? '';
    const fullName = `${repo.owner.login}/${repo.name}`;
    if (rest === '') return { status: 200, body: { full_name: fullName, name: repo.name, private: false, owner: repo.owner, default_branch: 'main' } };
    const commit = /^\/commits\/(.+)$/.exec(rest);
    if (commit) {
      try {
        const sha = git(repo.dir, 'rev-parse', '--verify', '--quiet', `${decodeURIComponent(commit[1]!)}^{commit}`)
          .toString()
          .trim();
        return { status: 200, body: { sha, url: `${baseUrl}/repos/${fullName}/commits/${sha}` } };
      } catch {
        return { status: 422, body: { message: `No commit found for SHA: ${commit[1]}` } };
      }
    }
    const tree = /^\/git\/trees\/([0-9a-f]{40})$/.exec(rest);
    if (tree) {
      let listing: string;
      try {
        const args = url.searchParams.get('recursive') ? ['ls-tree', '-r', '-t', '-l', tree[1]!] : ['ls-tree', '-l', tree[1]!];
        listing = git(repo.dir, ...args).toString();
      } catch {
        return notFound;
      }
      const entries = listing
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const [meta, path] = [line.slice(0, line.indexOf('\t')), line.slice(line.indexOf('\t') + 1)];
          const [mode, type, sha, size] = meta.split(/\s+/) as [string, string, string, string];
          return { path, mode, type, sha, ...(size === '-' ? {} : { size: Number(size) }) };
        });
      return { status: 200, body: { sha: tree[1], tree: entries, truncated: false } };
    }
    const blob = /^\/git\/blobs\/([0-9a-f]{40})$/.exec(rest);
    if (blob) {
      try {
        const bytes = git(repo.dir, 'cat-file', 'blob', blob[1]!);
        return { status: 200, body: { sha: blob[1], size: bytes.length, encoding: 'base64', content: bytes.toString('base64') } };
      } catch {
        return notFound;
      }
    }
    return notFound;
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => send(res, 500, { message: 'fake failed' }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;

  return {
    baseUrl,
    clientId,
    clientSecret,
    dispatchToken,
    issueCode,
    exchanges,
    dispatches,
    failNext(path, status, count = 1) {
      failures.push({ path, status, count });
    },
    overrideUser(body) {
      userOverride = body;
    },
    addRepo(fullName, gitDir, owner) {
      repos.set(fullName.toLowerCase(), { dir: gitDir, owner, name: fullName.split('/')[1]! });
    },
    addOrgMember(org, user) {
      users.set(user.id, user);
      const set = members.get(org.toLowerCase()) ?? new Set<string>();
      set.add(user.login.toLowerCase());
      members.set(org.toLowerCase(), set);
    },
    requests,
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

/** What `npm start` needs to sign in with `fake` and import from it (`npm start` makes its own import key). */
export function fakeGitHubStartEnv(fake: Pick<FakeGitHub, 'baseUrl' | 'clientId' | 'clientSecret'>): Record<string, string> {
  return { SKILLPRESS_GITHUB_API: fake.baseUrl, GITHUB_CLIENT_ID: fake.clientId, GITHUB_CLIENT_SECRET: fake.clientSecret };
}

/** The environment that points GitHub sign-in, the site build and imports at `fake` (with the import key imports need). */
export function fakeGitHubEnv(fake: FakeGitHub): Record<string, string> {
  return {
    SKILLPRESS_IMPORT_KEY: randomBytes(32).toString('hex'),
    ...fakeGitHubStartEnv(fake),
    GITHUB_REPO: 'skillpress/site',
    GITHUB_WORKFLOW: 'site.yml',
    GITHUB_TOKEN: fake.dispatchToken,
  };
}
