import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, stackFetch } from '../support/cli-in-process.ts';
import { Client, createTestStack, json, ORIGIN, type TestStack } from '../support/stack.ts';

/**
 * A team's private skill from the CLI: a maintainer publishes it into the organisation, a member
 * installs and updates it with a `read` key (the static registry has nothing: the client asks
 * the API), the lockfile reproduces it, and a stranger's key finds nothing.
 */
const work = mkdtempSync(join(tmpdir(), 'skillpress-private-install-'));
const SLUG = 'team-runbook';

let stack: TestStack;
let maintainerKey: string;
let memberKey: string;
let strangerKey: string;

beforeAll(async () => {
  stack = await createTestStack();
  const [olive, mia, mel, eve] = (await Promise.all(['olive', 'mia', 'mel', 'eve'].map((login) => Client.signIn(stack, login)))) as Client[];
  expect((await olive!.session('/api/orgs', { method: 'POST', body: { login: 'team', name: 'Team' } })).status).toBe(201);
  for (const [client, login, role] of [
    [mia!, 'mia', 'maintainer'],
    [mel!, 'mel', 'member'],
  ] as const) {
    expect((await olive!.session('/api/orgs/team/invitations', { method: 'POST', body: { login, role } })).status).toBe(201);
    expect((await client.session(`/api/orgs/team/invitations/${login}/accept`, { method: 'POST' })).status).toBe(200);
  }
  maintainerKey = await mia!.createKey();
  memberKey = (await json(await mel!.session('/api/api-keys', { method: 'POST', body: { name: 'install', scopes: ['read'], org: 'team' } }))).key;
  strangerKey = await eve!.createKey();
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function folder(name: string): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** `skillpress <args>` against the stack, as the user whose API key is `key`. */
const cli = (cwd: string, args: string[], key: string) =>
  runInProcess([...args, '--registry', ORIGIN], {
    cwd,
    env: { HOME: join(work, 'home'), XDG_CACHE_HOME: join(work, 'cache'), XDG_CONFIG_HOME: join(work, 'config'), SKILLPRESS_API_KEY: key },
    fetch: stackFetch(stack),
  });

function writeSkill(dir: string, body: string): void {
  writeFileSync(
    join(dir, 'SKILL.md'),
    `---\nname: ${SLUG}\ndescription: How the team handles incidents.\nmetadata:\n  category: ops\n---\n# Team runbook\n\n${body}\n`,
  );
}

describe("a team's private skill, from the CLI", () => {
  it('is published into the organisation by a maintainer', async () => {
    const source = folder('source');
    writeSkill(source, 'Page the on-call engineer.');
    const published = await cli(source, ['publish', '--org', 'team', '--private'], maintainerKey);
    expect(published.code, published.stderr).toBe(0);
    expect(published.stdout).toContain(`${SLUG}@1.0.0`);
    expect(published.stdout).toContain('private');
    expect(published.stdout).toContain('as team');
    await stack.idle();
    expect((await stack.request(`/api/registry/${SLUG}`)).status).toBe(404);
  });

  it('installs for a member with a read key, and the lockfile says it is private', async () => {
    const project = folder('member-project');
    const installed = await cli(project, ['install', SLUG], memberKey);
    expect(installed.code, installed.stderr).toBe(0);
    expect(readFileSync(join(project, '.agents/skills', SLUG, 'SKILL.md'), 'utf8')).toContain('Page the on-call engineer.');
    const lock = JSON.parse(readFileSync(join(project, 'skillpress-lock.json'), 'utf8'));
    expect(lock.skills[SLUG]).toMatchObject({ version: '1.0.0', private: true });
  });

  it('updates for the member, and the lockfile reproduces it in a fresh folder', async () => {
    const source = join(work, 'source');
    writeSkill(source, 'Page the on-call engineer, then open an incident channel.');
    const released = await cli(source, ['version', '1.1.0', '--changelog', 'Incident channel'], maintainerKey);
    expect(released.code, released.stderr).toBe(0);
    const project = join(work, 'member-project');
    const updated = await cli(project, ['update'], memberKey);
    expect(updated.code, updated.stderr).toBe(0);
    expect(readFileSync(join(project, '.agents/skills', SLUG, 'SKILL.md'), 'utf8')).toContain('incident channel');
    const fresh = folder('fresh-checkout');
    writeFileSync(join(fresh, 'skillpress-lock.json'), readFileSync(join(project, 'skillpress-lock.json')));
    const reproduced = await cli(fresh, ['install'], memberKey);
    expect(reproduced.code, reproduced.stderr).toBe(0);
    expect(readFileSync(join(fresh, '.agents/skills', SLUG, 'SKILL.md'), 'utf8')).toContain('incident channel');
  });

  it('is not there for a stranger: the same answer as a skill nobody published', async () => {
    const project = folder('stranger-project');
    const hidden = await cli(project, ['install', SLUG], strangerKey);
    const missing = await cli(project, ['install', 'nobody-published-this'], strangerKey);
    expect(hidden.code).toBe(missing.code);
    expect(hidden.stderr.replaceAll(SLUG, '<slug>')).toBe(missing.stderr.replaceAll('nobody-published-this', '<slug>'));
    const lock = join(work, 'member-project', 'skillpress-lock.json');
    const stranger = folder('stranger-lock');
    writeFileSync(join(stranger, 'skillpress-lock.json'), readFileSync(lock));
    const reproduced = await cli(stranger, ['install'], strangerKey);
    expect(reproduced.code).not.toBe(0);
    expect(reproduced.stderr).toContain('not_found');
  });
});
