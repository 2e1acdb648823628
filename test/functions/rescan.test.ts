import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ScanResult } from '#core/scan/finding';
import { versionKey } from '#functions/store/keys';
import { getVersion } from '#functions/store/skills';
import { rescanAll } from '#functions/services/rescan';
import { ruleEngine, type Scanner } from '#functions/services/scanning';
import { CLEAN_SKILL_MD, MALICIOUS_SKILL_MD, SUSPICIOUS_SKILL_MD } from '../support/scan-samples.ts';
import { call, startServer } from '../support/server-process.ts';
import { Client, createTestStack, json, skillBodyWithSkillMd, skillMd, type TestStack, withKey } from '../support/stack.ts';

/**
 * `npm run rescan` (docs/scanning.md): every version scanned again with the current rules. Here
 * the versions were published under "older rules" (a scanner that found nothing), so the real
 * engine's verdicts are news: new scans are stored and published, and a skill with a version
 * that is now malicious is quarantined.
 */
const olderRules: Scanner = async () => ({ verdict: 'clean', rulesVersion: '0-older', findings: [] });

let stack: TestStack;
let key: string;

beforeAll(async () => {
  stack = await createTestStack({ scanner: olderRules }, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
  key = await (await Client.signIn(stack, 'alice')).createKey();
});

async function publish(text: string): Promise<{ id: string; slug: string; scan: ScanResult }> {
  const res = await withKey(stack, key, '/api/publish', { body: skillBodyWithSkillMd(text) });
  expect(res.status).toBe(201);
  return json(res);
}

describe('rescanAll', () => {
  it('stores the scans that changed, quarantines a skill that is now malicious, and the static files follow', async () => {
    const malicious = await publish(MALICIOUS_SKILL_MD);
    const suspicious = await publish(SUSPICIOUS_SKILL_MD);
    expect(suspicious.scan.rulesVersion).toBe('0-older');
    // A version from before scanning has no scan at all.
    const unscanned = await publish(skillMd('notes', '# Notes\n'));
    await stack.deps.db.doc.send(
      new UpdateCommand({
        TableName: stack.deps.db.table,
        Key: versionKey(unscanned.id, '1.0.0'),
        UpdateExpression: 'REMOVE #scan',
        ExpressionAttributeNames: { '#scan': 'scan' },
      }),
    );

    const report = await rescanAll({ ...stack.deps, scanner: ruleEngine });
    expect(report).toEqual({ skills: 3, versions: 3, changed: 3, quarantined: [malicious.slug], failed: [] });
    await stack.idle();

    const quarantined = await json(await stack.request(`/api/registry/${malicious.slug}`));
    expect(quarantined).toEqual({ id: malicious.id, slug: malicious.slug, name: expect.any(String), author: 'alice', status: 'quarantined' });
    expect((await json(await stack.request(`/api/deliver/${malicious.id}`))).error.code).toBe('quarantined');
    const catalog = await json(await stack.request('/.well-known/skills.json'));
    expect(catalog.skills.map((s: { slug: string }) => s.slug).sort()).toEqual([suspicious.slug, unscanned.slug].sort());

    const registry = await json(await stack.request(`/api/registry/${suspicious.slug}`));
    expect(registry.scan).toMatchObject({ verdict: 'suspicious', findings: [expect.objectContaining({ rule: 'pipe-to-shell' })] });
    expect(registry.scan.rulesVersion).not.toBe('0-older');
    // It says when the new scan ran: now, not at publish.
    expect(registry.versions[0].scannedAt).not.toBe(registry.versions[0].publishedAt);
    expect(Date.parse(registry.versions[0].scannedAt)).toBeGreaterThan(Date.parse(registry.versions[0].publishedAt));
    expect((await getVersion(stack.deps.db, unscanned.id, '1.0.0'))!.scan).toMatchObject({ verdict: 'clean' });
    // The stored scan of the malicious version is kept too, for its author and the admins.
    expect((await getVersion(stack.deps.db, malicious.id, '1.0.0'))!.scan!.verdict).toBe('malicious');

    // The same rules again find nothing new and quarantine nothing twice.
    expect(await rescanAll({ ...stack.deps, scanner: ruleEngine })).toEqual({ skills: 3, versions: 3, changed: 0, quarantined: [], failed: [] });
  });
});

describe('npm run rescan', () => {
  it('rescans the local store and says what it did', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'skillpress-rescan-'));
    try {
      const server = await startServer({ DATA_DIR: dataDir });
      try {
        const login = await call(server.baseUrl, '/api/auth/dev-login', { method: 'POST', body: { login: 'alice' }, headers: { origin: server.baseUrl } });
        const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
        const created = await call(server.baseUrl, '/api/api-keys', { method: 'POST', body: { name: 'ci' }, headers: { cookie, origin: server.baseUrl } });
        const published = await call(server.baseUrl, '/api/publish', {
          method: 'POST',
          // Clean: a new account's flagged version would be held for review, not published.
          body: skillBodyWithSkillMd(CLEAN_SKILL_MD),
          headers: { authorization: `Bearer ${created.body.key}` },
        });
        expect(published.status).toBe(201);
      } finally {
        await server.stop();
      }
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/rescan.ts'], {
        env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
      });
      expect(stdout).toMatch(/^Rescanned 1 versions of 1 skills in [\d.]+ s: 0 scans changed, 0 skills quarantined$/m);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
