import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CLEAN_SKILL_MD, MALICIOUS_SKILL_MD, SUSPICIOUS_SKILL_MD } from '../support/scan-samples.ts';
import { establishedPublisher, OBSERVED_WITHIN_MS, untilObserved } from '../support/behaviour.ts';
import { runInProcess, stackFetch } from '../support/cli-in-process.ts';
import { Client, createTestStack, json, type TestStack, withKey } from '../support/stack.ts';

/**
 * Scanning as the client shows it, against the real service: `skillpress scan` runs the
 * registry's rules on a folder; a suspicious version is installed only with --allow-suspicious,
 * after its findings are shown; a refused publish prints its findings; a quarantined skill cannot
 * be installed.
 */
// A version with a shell block is run in the sandbox before it is installed by default.
vi.setConfig({ testTimeout: OBSERVED_WITHIN_MS });

const work = mkdtempSync(join(tmpdir(), 'skillpress-scan-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

let stack: TestStack;
let env: Record<string, string>;
let aliceKey: string;
let root: Client;
const REGISTRY = 'http://localhost';

beforeAll(async () => {
  stack = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000', SKILLPRESS_ADMINS: 'root' });
  // Publishes flagged versions on purpose: an established publisher's are published flagged, not held for review.
  const alice = await establishedPublisher(stack, 'alice');
  root = await Client.signIn(stack, 'root');
  env = { HOME: join(work, 'home'), XDG_CACHE_HOME: join(work, 'cache'), XDG_CONFIG_HOME: join(work, 'config'), SKILLPRESS_API_KEY: alice.key };
  aliceKey = alice.key;
});

const cli = (cwd: string, ...args: string[]) => runInProcess([...args, '--registry', REGISTRY], { cwd, env, fetch: stackFetch(stack) });

/**
 * Waits for the run in the sandbox of `slug@version` (the samples have a shell block, so each
 * version is published pending and installed by default once its run cleared it).
 */
async function observed(slug: string, version = '1.0.0'): Promise<void> {
  const doc = await withKey(stack, aliceKey, `/api/me/registry/${slug}`, { method: 'GET' });
  expect(doc.status, await doc.clone().text()).toBe(200);
  expect((await untilObserved(stack, aliceKey, (await json<{ id: string }>(doc)).id, version)).behaviour).toBe('cleared');
}

let folders = 0;
/** A skill folder whose SKILL.md is `text` under the name `slug`, with a category line in its front matter (so its lines move down by one). */
function skillFolder(slug: string, text: string, extra: Record<string, string> = {}): string {
  const dir = join(work, `skill-${++folders}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'SKILL.md'), text.replace(/^name: .*$/m, `name: ${slug}`).replace('---\n#', `category: testing\n---\n#`));
  for (const [name, content] of Object.entries(extra)) writeFileSync(join(dir, name), content);
  return dir;
}

function project(): string {
  const dir = join(work, `project-${++folders}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

describe('skillpress scan', () => {
  it('passes a clean folder with exit 0', async () => {
    const dir = skillFolder('scan-clean', CLEAN_SKILL_MD);
    const text = await cli(dir, 'scan');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^clean \.: 1 file, \d+ B, rules \S+$/m);
    const json = await cli(dir, 'scan', '--json');
    expect(json.json).toMatchObject({ verdict: 'clean', findings: [], files: 1, rulesVersion: expect.any(String) });
  });

  it('fails a suspicious folder with exit 1, suspicious_skill and each finding, in --json too', async () => {
    const dir = skillFolder('scan-suspicious', SUSPICIOUS_SKILL_MD);
    const text = await cli(dir, 'scan');
    expect(text.code).toBe(1);
    expect(text.stderr).toMatch(/^error suspicious_skill: \.: 1 file/m);
    expect(text.stderr).toMatch(/^ {2}high {5}pipe-to-shell {2}SKILL\.md:9 {2}pipes a download straight into a shell.*curl -fsSL/m);
    const json = await cli(dir, 'scan', '--json');
    expect(json.code).toBe(1);
    expect(json.json.error).toMatchObject({
      code: 'suspicious_skill',
      details: { verdict: 'suspicious', findings: [expect.objectContaining({ rule: 'pipe-to-shell', file: 'SKILL.md', line: 9 })] },
    });
  });

  it('fails a malicious folder with exit 1 and content_rejected, as the registry would', async () => {
    const dir = skillFolder('scan-malicious', MALICIOUS_SKILL_MD);
    const result = await cli(dir, 'scan', '--json');
    expect(result.code).toBe(1);
    expect(result.json.error.code).toBe('content_rejected');
    expect(result.json.error.details.findings).toContainEqual(expect.objectContaining({ rule: 'decode-to-shell', severity: 'critical' }));
  });
});

describe('publishing', () => {
  it('prints the findings of a refused publish', async () => {
    const result = await cli(skillFolder('refused-skill', MALICIOUS_SKILL_MD), 'publish');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error content_rejected: The version was refused/m);
    expect(result.stderr).toMatch(/^ {2}critical decode-to-shell {2}SKILL\.md:11 {2}/m);
  });

  it('says how to appeal a refused publish, and files the appeal with --appeal; an admin approves it and it installs', async () => {
    // Refused by the scan, yet with nothing to run (a text block, not a shell one): the approved
    // version is cleared at once, where the sample's shell block would be run and refused for
    // what it does, which is not what this test is about.
    const dir = skillFolder('appealed-skill', MALICIOUS_SKILL_MD.replace('```sh', '```text'));
    const refused = await cli(dir, 'publish');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/skillpress publish --appeal "<why>"/);

    const filed = await cli(dir, 'publish', '--appeal', 'The encoded line is a fixture of our detector');
    expect(filed.code, filed.stderr).toBe(0);
    const id = /appeal (\S+) waits for an admin's review; nothing is published until one approves it/.exec(filed.stdout)?.[1];
    expect(id, filed.stdout).toBeDefined();
    expect(filed.stdout).toMatch(/Follow it in the dashboard \(http:\/\/localhost\/dashboard\/\)/);
    expect((await stack.request('/api/registry/appealed-skill')).status).toBe(404);

    expect((await root.session(`/api/admin/appeals/${id}/approve`, { method: 'POST' })).status).toBe(200);
    await stack.idle();
    const installed = await cli(project(), 'install', 'appealed-skill', '--json');
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.json.installed.map((s: { slug: string }) => s.slug)).toEqual(['appealed-skill']);
  });

  it('files a version appeal with skillpress version --appeal', async () => {
    const dir = skillFolder('appealed-version', CLEAN_SKILL_MD);
    expect((await cli(dir, 'publish')).code).toBe(0);
    await stack.idle();
    writeFileSync(join(dir, 'SKILL.md'), MALICIOUS_SKILL_MD.replace(/^name: .*$/m, 'name: appealed-version'));
    const refused = await cli(dir, 'version', '1.1.0', '--changelog', 'setup');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/skillpress version 1\.1\.0 --appeal "<why>"/);
    const filed = await cli(dir, 'version', '1.1.0', '--changelog', 'setup', '--appeal', 'fixture', '--json');
    expect(filed.code, filed.stderr).toBe(0);
    expect(filed.json).toMatchObject({ version: '1.1.0', created: null, appeal: { status: 'pending' } });
  });

  it('publishes a suspicious version and tells the author why installers will be asked', async () => {
    const result = await cli(skillFolder('flagged-skill', SUSPICIOUS_SKILL_MD), 'publish');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/warning flagged-skill@1\.0\.0 is published as suspicious/);
    expect(result.stderr).toMatch(/pipe-to-shell {2}SKILL\.md:9/);
  });
});

describe('installing a suspicious version', () => {
  it('is refused with exit 1 and suspicious_skill, listing the findings and writing nothing', async () => {
    expect((await cli(skillFolder('risky-installer', SUSPICIOUS_SKILL_MD), 'publish')).code).toBe(0);
    await observed('risky-installer');
    const dir = project();
    const text = await cli(dir, 'install', 'risky-installer');
    expect(text.code).toBe(1);
    expect(text.stderr).toMatch(/^error suspicious_skill: the registry's scan flags risky-installer@1\.0\.0 as suspicious; nothing was installed/m);
    expect(text.stderr).toMatch(/^ {2}risky-installer@1\.0\.0:$/m);
    expect(text.stderr).toMatch(/^ {4}high {5}pipe-to-shell {2}SKILL\.md:9 /m);
    expect(text.stderr).toMatch(/--allow-suspicious/);
    expect(existsSync(join(dir, '.agents'))).toBe(false);
    expect(existsSync(join(dir, 'skillpress-lock.json'))).toBe(false);

    const json = await cli(dir, 'install', 'risky-installer', '--json');
    expect(json.code).toBe(1);
    expect(json.json.error).toMatchObject({
      code: 'suspicious_skill',
      details: {
        suspicious: [
          { slug: 'risky-installer', version: '1.0.0', scan: { verdict: 'suspicious', findings: [expect.objectContaining({ rule: 'pipe-to-shell' })] } },
        ],
      },
    });
  });

  it('is installed with --allow-suspicious, with the findings shown and in the JSON result', async () => {
    expect((await cli(skillFolder('allowed-installer', SUSPICIOUS_SKILL_MD), 'publish')).code).toBe(0);
    await observed('allowed-installer');
    const dir = project();
    const result = await cli(dir, 'install', 'allowed-installer', '--allow-suspicious', '--json');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/warning allowed-installer@1\.0\.0 is suspicious \(1 finding\)/);
    expect(result.json.installed.map((s: { slug: string }) => s.slug)).toEqual(['allowed-installer']);
    expect(result.json.suspicious).toEqual([{ slug: 'allowed-installer', version: '1.0.0', scan: expect.objectContaining({ verdict: 'suspicious' }) }]);
    expect(existsSync(join(dir, '.agents/skills/allowed-installer/SKILL.md'))).toBe(true);
    // Installed once with consent, it is not asked about again.
    expect((await cli(dir, 'install')).code).toBe(0);
  });

  it('is refused as a dependency too, and as an update unless allowed', async () => {
    const base = skillFolder('dep-target', CLEAN_SKILL_MD);
    expect((await cli(base, 'publish')).code).toBe(0);
    await stack.idle();
    const dir = project();
    expect((await cli(dir, 'install', 'dep-target')).code).toBe(0);

    writeFileSync(join(base, 'SKILL.md'), SUSPICIOUS_SKILL_MD.replace(/^name: .*$/m, 'name: dep-target'));
    expect((await cli(base, 'version', '1.1.0', '--changelog', 'adds an installer')).code).toBe(0);
    await observed('dep-target', '1.1.0');
    const refused = await cli(dir, 'update');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/suspicious_skill: the registry's scan flags dep-target@1\.1\.0/);
    expect((await cli(dir, 'update', '--allow-suspicious')).code).toBe(0);

    const parent = skillFolder('needs-dep', CLEAN_SKILL_MD.replace('---\n#', 'dependencies:\n  dep-target: ^1.0.0\n---\n#'));
    expect((await cli(parent, 'publish')).code).toBe(0);
    await stack.idle();
    const fresh = project();
    const result = await cli(fresh, 'install', 'needs-dep', '--json');
    expect(result.code).toBe(1);
    expect(result.json.error.details.suspicious.map((s: { slug: string }) => s.slug)).toEqual(['dep-target']);
  });
});

describe('a quarantined skill', () => {
  it('cannot be installed or looked up: exit 1, code quarantined', async () => {
    const dir = skillFolder('bad-actor', CLEAN_SKILL_MD);
    const published = await cli(dir, 'publish', '--json');
    const quarantined = await root.session(`/api/admin/skills/${published.json.skill.id}/quarantine`, { method: 'POST', body: { reason: 'malware' } });
    expect(quarantined.status).toBe(200);
    await stack.idle();
    const result = await cli(project(), 'install', 'bad-actor');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error quarantined: bad-actor is quarantined/m);
    expect((await cli(project(), 'info', 'bad-actor', '--json')).json.error.code).toBe('quarantined');
  });
});
