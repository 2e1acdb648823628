import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, startServer } from '../support/server-process.ts';
import { skillMd } from '../support/skill-md.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'skillpress-e2e-deliver-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('npm start, delivering a paid skill', () => {
  it('delivers with a token over real HTTP, counts it, and never logs the token or the content', async () => {
    // Debug level turns on the request log, which is where a token in a URL could leak.
    const server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'debug' });
    try {
      const base = server.baseUrl;
      const login = await call(base, '/api/auth/dev-login', { method: 'POST', body: { login: 'alice' }, headers: { origin: base } });
      const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
      const session = { cookie, origin: base };
      const { key } = (await call(base, '/api/api-keys', { method: 'POST', body: { name: 'ci' }, headers: session })).body;
      const content = skillMd('paid-runtime', 'Paid steps only customers may read');
      const skill = await call(base, '/api/publish', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: { name: 'Paid Runtime', description: 'd', category: 'testing', paid: true, files: [{ filename: 'SKILL.md', content }] },
      });
      expect(skill.status).toBe(201);
      const id = skill.body.id as string;

      expect((await call(base, `/api/deliver/${id}?source=cli`)).status).toBe(402);
      const issued = await call(base, `/api/skills/${id}/download-tokens`, { method: 'POST', body: { maxUses: 1 }, headers: session });
      expect(issued.status).toBe(201);
      const token = issued.body.token as string;
      const delivered = await call(base, `/api/deliver/${id}?source=cli&token=${token}`);
      expect(delivered.status).toBe(200);
      expect(delivered.headers.get('cache-control')).toBe('private, no-store');
      expect(delivered.body.files).toEqual([{ filename: 'SKILL.md', content }]);
      expect((await call(base, `/api/deliver/${id}?source=cli&token=${token}`)).status).toBe(401);

      const stats = await call(base, `/api/analytics/${id}`, { headers: { cookie } });
      expect(stats.body).toMatchObject({ total: 1, last7d: 1, last30d: 1, bySource: { cli: 1, web: 0, api: 0 } });

      expect(server.output()).toContain(`/api/deliver/${id}`);
      expect(server.output()).not.toContain(token);
      expect(server.output()).not.toContain(content);
    } finally {
      await server.stop();
    }
  });
});
