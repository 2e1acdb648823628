import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, type ServerProcess, startServer } from '../support/server-process.ts';
import { openDataDir, readObjects, scanItems } from './support/store.ts';
import { skillFile } from '../support/skill-md.ts';

/**
 * Secrets at rest (docs/api.md §4 and §11): API keys, session tokens and download tokens are shown to
 * their owner once and stored only as SHA-256. After a run through every feature — including
 * secrets sent where they do not belong — none of them may appear in DynamoDB, in either bucket
 * (the static tree is the static bucket), in the raw files under DATA_DIR, or in the server's
 * output at the debug log level.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'skillpress-secrets-'));
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.stop('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('secrets at rest', () => {
  it('leaves no API key, session token or download token in the store, the static tree or the logs', async () => {
    server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'debug', SKILLPRESS_PUBLISH_LIMIT: '100', SKILLPRESS_VERSION_LIMIT: '100' });
    const base = server.baseUrl;
    const secrets = new Map<string, string>();
    const signIn = async (login: string) => {
      const res = await call(base, '/api/auth/dev-login', { method: 'POST', body: { login }, headers: { origin: base } });
      const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
      secrets.set(`session of ${login}`, cookie.split('=')[1]!);
      return { cookie, origin: base };
    };
    const alice = await signIn('alice');
    const bob = await signIn('bob');
    const newKey = async (name: string) => {
      const res = await call(base, '/api/api-keys', { method: 'POST', body: { name }, headers: alice });
      expect(res.status).toBe(201);
      secrets.set(`API key ${name}`, res.body.key);
      return res.body as { id: string; key: string };
    };
    const ci = await newKey('ci');
    const spare = await newKey('spare');
    const auth = { authorization: `Bearer ${ci.key}` };

    const free = await call(base, '/api/publish', {
      method: 'POST',
      headers: auth,
      body: { name: 'Secret Free', description: 'd', category: 'testing', files: [skillFile('secret-free', '# free')] },
    });
    const paid = await call(base, '/api/publish', {
      method: 'POST',
      headers: auth,
      body: { name: 'Secret Paid', description: 'd', category: 'testing', paid: true, files: [skillFile('secret-paid', '# paid')] },
    });
    expect([free.status, paid.status]).toEqual([201, 201]);
    expect(
      (
        await call(base, `/api/skills/${paid.body.id}/versions`, {
          method: 'POST',
          headers: alice,
          body: { version: '1.1.0', files: [skillFile('secret-paid', '# paid 1.1')] },
        })
      ).status,
    ).toBe(201);

    const token = async (body: Record<string, unknown>) => {
      const res = await call(base, `/api/skills/${paid.body.id}/download-tokens`, { method: 'POST', headers: auth, body });
      expect(res.status).toBe(201);
      secrets.set(`download token ${secrets.size}`, res.body.token);
      return res.body as { id: string; token: string };
    };
    const once = await token({ maxUses: 1 });
    const revoked = await token({});
    expect((await call(base, `/api/deliver/${paid.body.id}?source=cli&token=${once.token}`)).status).toBe(200);
    expect((await call(base, `/api/deliver/${paid.body.id}?source=cli&token=${once.token}`)).status).toBe(401);
    expect((await call(base, `/api/deliver/${free.body.id}?token=${revoked.token}`)).status).toBe(200);
    expect((await call(base, `/api/skills/${paid.body.id}/download-tokens/${revoked.id}`, { method: 'DELETE', headers: auth })).status).toBe(204);
    expect((await call(base, `/api/deliver/${paid.body.id}?token=${revoked.token}`)).status).toBe(401);
    expect((await call(base, `/api/skills/${paid.body.id}/grants`, { method: 'POST', headers: auth, body: { login: 'bob' } })).status).toBe(201);
    expect((await call(base, `/api/deliver/${paid.body.id}?source=web`, { headers: bob })).status).toBe(200);
    expect((await call(base, `/api/analytics/${paid.body.id}`, { headers: alice })).body.total).toBe(2);

    // Secrets where they do not belong: in a query string, as the wrong kind of credential.
    expect((await call(base, `/api/deliver/${free.body.id}?token=${ci.key}`)).status).toBe(200);
    expect((await call(base, `/api/deliver/${paid.body.id}?token=${ci.key}`)).status).toBe(401);
    expect((await call(base, '/api/api-keys', { headers: { authorization: `Bearer ${ci.key}` } })).status).toBe(401);
    expect(
      (await call(base, '/api/publish', { method: 'POST', headers: { authorization: `Bearer ${secrets.get('session of alice')}` }, body: {} })).status,
    ).toBe(401);
    expect((await call(base, '/api/publish', { method: 'POST', headers: { authorization: `Bearer ${once.token}` }, body: {} })).status).toBe(401);

    // Revocation and sign-out, then the revoked secrets once more.
    expect((await call(base, `/api/api-keys/${spare.id}`, { method: 'DELETE', headers: alice })).status).toBe(204);
    expect((await call(base, '/api/publish', { method: 'POST', headers: { authorization: `Bearer ${spare.key}` }, body: {} })).status).toBe(401);
    expect((await call(base, '/api/auth/logout', { method: 'POST', headers: bob })).status).toBe(204);
    expect((await call(base, '/api/me', { headers: bob })).status).toBe(401);

    expect(await server.stop('SIGINT')).toBe(0);
    const logs = server.output();
    expect(logs).toContain('"level":"debug"');

    const store = await openDataDir(dataDir);
    let items: string;
    let objects: Buffer[];
    try {
      items = JSON.stringify(await scanItems(store.deps.db));
      objects = [
        ...(await readObjects(store.deps.s3, store.deps.config.contentBucket)).values(),
        ...(await readObjects(store.deps.s3, store.deps.config.staticBucket)).values(),
      ];
    } finally {
      await store.stop();
    }
    expect(objects.some((bytes) => bytes.includes('# paid'))).toBe(true); // the scan does see content
    const files = filesUnder(dataDir).map((file) => readFileSync(file));
    expect(files.some((bytes) => bytes.includes('Secret Paid'))).toBe(true); // and the raw files hold the table

    expect(secrets.size).toBe(6);
    for (const [what, secret] of secrets) {
      expect(items.includes(secret), `${what} in DynamoDB`).toBe(false);
      expect(
        objects.some((bytes) => bytes.includes(secret)),
        `${what} in S3`,
      ).toBe(false);
      expect(
        files.some((bytes) => bytes.includes(secret)),
        `${what} in the files under DATA_DIR`,
      ).toBe(false);
      expect(logs.includes(secret), `${what} in the logs`).toBe(false);
    }
  });
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}
