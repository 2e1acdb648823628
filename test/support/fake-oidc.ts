import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

/**
 * A fake OIDC issuer on loopback, shaped like GitHub Actions' (`token.actions.githubusercontent.com`):
 * its discovery document and key set, and the tokens a workflow run would get, signed with its
 * current key (RS256) and carrying the claims GitHub sets. `rotate()` replaces the key, as an
 * issuer does; `mint` takes any claim or header a test wants wrong. Beside it, the runner's token
 * endpoint (`ACTIONS_ID_TOKEN_REQUEST_URL` / `_TOKEN`), which answers `{value}` for an audience.
 */
export interface FakeOidc {
  issuer: string;
  /** The runner's endpoint (with `?api-version=`), and the bearer it wants. */
  requestUrl: string;
  requestToken: string;
  /** What the runner's endpoint was asked for, in order (the `audience` of each request). */
  audiences: string[];
  /** A token for `audience`, with GitHub's claims for `claims.repository` (and any overrides: `undefined` drops one). */
  mint(audience: string, claims?: Record<string, unknown>, options?: { header?: Record<string, unknown>; key?: 'current' | 'foreign' }): Promise<string>;
  /** The claims the runner's endpoint puts in its tokens. */
  runnerClaims: Record<string, unknown>;
  rotate(): Promise<void>;
  close(): Promise<void>;
}

interface Key {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function newKey(): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomUUID();
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

export function githubClaims(repository: string, workflow = 'publish.yml'): Record<string, unknown> {
  const runId = String(1_000_000 + Math.floor(Math.random() * 1_000_000));
  return {
    sub: `repo:${repository}:ref:refs/heads/main`,
    repository,
    repository_owner: repository.split('/')[0],
    ref: 'refs/heads/main',
    ref_type: 'branch',
    sha: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
    workflow: 'Publish',
    workflow_ref: `${repository}/.github/workflows/${workflow}@refs/heads/main`,
    job_workflow_ref: `${repository}/.github/workflows/${workflow}@refs/heads/main`,
    run_id: runId,
    run_number: '7',
    run_attempt: '1',
    actor: 'octocat',
    event_name: 'push',
    runner_environment: 'github-hosted',
  };
}

export async function startFakeOidc(): Promise<FakeOidc> {
  let current = await newKey();
  const foreign = await newKey();
  const requestToken = `runner-${randomUUID()}`;
  let base = '';
  const fake: FakeOidc = {
    issuer: '',
    requestUrl: '',
    requestToken,
    audiences: [],
    runnerClaims: githubClaims('octo/skills'),
    async mint(audience, claims = {}, options = {}) {
      const now = Math.floor(Date.now() / 1000);
      const payload: JWTPayload = {
        jti: randomUUID(),
        iss: base,
        aud: audience,
        iat: now,
        nbf: now - 5,
        exp: now + 300,
        ...githubClaims('octo/skills'),
        ...claims,
      };
      for (const [name, value] of Object.entries(payload)) if (value === undefined) delete payload[name];
      const key = options.key === 'foreign' ? foreign : current;
      return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT', ...options.header }).sign(key.privateKey);
    },
    async rotate() {
      current = await newKey();
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url!, base);
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/.well-known/openid-configuration')
      return json(200, { issuer: base, jwks_uri: `${base}/.well-known/jwks`, id_token_signing_alg_values_supported: ['RS256'] });
    if (url.pathname === '/.well-known/jwks') return json(200, { keys: [current.jwk] });
    if (url.pathname === '/runner/idtoken') {
      if (req.headers.authorization !== `bearer ${requestToken}` && req.headers.authorization !== `Bearer ${requestToken}`)
        return json(401, { message: 'Bad credentials' });
      const audience = url.searchParams.get('audience') ?? '';
      fake.audiences.push(audience);
      void fake.mint(audience, fake.runnerClaims).then((value) => json(200, { value }));
      return;
    }
    json(404, { message: 'Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.issuer = base;
  fake.requestUrl = `${base}/runner/idtoken?api-version=2.0`;
  return fake;
}
