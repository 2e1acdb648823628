import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readFrontMatter } from '#core/skill-front-matter';
import { checkSkillConformance } from '#core/skill-conformance';
import { OBSERVED_WITHIN_MS } from '../support/behaviour.ts';
import { eventually } from '../support/eventually.ts';
import { type CliResult, runCli } from '../support/cli-process.ts';
import { call, type ServerProcess, startServer } from '../support/server-process.ts';

/**
 * Authoring without friction, as an author runs the client: `init` writes a skill to fill in,
 * `version … patch|minor|major` counts from the registry's newest version, `publish --all` (and
 * its alias `sync`) publishes a folder of skills, new or changed, and a taken slug says what to
 * run instead. A child process against the local runtime, as `npm start` runs it.
 */

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const work = mkdtempSync(join(tmpdir(), 'skillpress-authoring-'));
let server: ServerProcess;
let base: string;
const keys: Record<'alice' | 'bob', string> = { alice: '', bob: '' };

/** Each author has a home of their own, where login stored their key. */
const envOf = (who: 'alice' | 'bob') => ({
  HOME: join(work, who),
  XDG_CONFIG_HOME: join(work, who, 'config'),
  XDG_CACHE_HOME: join(work, who, 'cache'),
  NO_COLOR: '1',
});

const cli = (cwd: string, ...args: string[]) => runCli([...args, '--registry', base], { cwd, env: envOf('alice') });
const asBob = (cwd: string, ...args: string[]) => runCli([...args, '--registry', base], { cwd, env: envOf('bob') });
const expectExit = (result: CliResult, code: number) => expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(code);

function dir(...parts: string[]): string {
  const path = join(work, 'projects', ...parts);
  mkdirSync(path, { recursive: true });
  return path;
}

/** A skill folder with a conforming SKILL.md and the given other files. */
function skill(root: string, slug: string, extra: Record<string, string> = {}, front = 'metadata:\n  category: testing\n'): string {
  const path = join(root, slug);
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, 'SKILL.md'), `---\nname: ${slug}\ndescription: The ${slug} skill. Use in tests.\n${front}---\n# ${slug}\n`);
  for (const [name, content] of Object.entries(extra)) {
    mkdirSync(join(path, name, '..'), { recursive: true });
    writeFileSync(join(path, name), content);
  }
  return path;
}

/** A skill folder `slug` under `root` whose SKILL.md is `text`, as an author wrote it. */
function skillWritten(root: string, slug: string, text: string): void {
  mkdirSync(join(root, slug), { recursive: true });
  writeFileSync(join(root, slug, 'SKILL.md'), text);
}

/**
 * The registry document of `slug`, once the rebuild after its publish has written it in full: a
 * new skill with something to run holds the short `status: "pending"` shape until its run in the
 * sandbox clears it.
 */
async function registryDoc(slug: string) {
  return (
    await eventually(
      () => call(base, `/api/registry/${slug}`),
      (res) => res.status === 200 && res.body.status === undefined,
      OBSERVED_WITHIN_MS,
    )
  ).body;
}

/**
 * The registry's versions of `slug` once `ready` holds (the static files are rebuilt just after a
 * write; a new skill's first version with something to run is listed once its run cleared it).
 */
async function versionsOf(slug: string, ready: (versions: string[]) => boolean = (v) => v.length > 0): Promise<string[]> {
  const listed = (res: Awaited<ReturnType<typeof call>>): string[] =>
    res.status === 200 && Array.isArray(res.body.versions) ? res.body.versions.map((v: { version: string }) => v.version).sort() : [];
  return listed(
    await eventually(
      () => call(base, `/api/registry/${slug}/versions`),
      (res) => ready(listed(res)),
      OBSERVED_WITHIN_MS,
    ),
  );
}

beforeAll(async () => {
  server = await startServer({ DATA_DIR: join(work, 'data'), SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
  base = server.baseUrl;
  for (const who of ['alice', 'bob'] as const) {
    const login = await call(base, '/api/auth/dev-login', { method: 'POST', body: { login: who }, headers: { origin: base } });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    keys[who] = (await call(base, '/api/api-keys', { method: 'POST', body: { name: 'authoring' }, headers: { cookie, origin: base } })).body.key;
    expectExit(await runCli(['login', '--registry', base], { cwd: work, env: envOf(who), input: `${keys[who]}\n` }), 0);
  }
});

afterAll(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('skillpress init', () => {
  it('writes a valid Agent Skill named after its new folder, which publish refuses until it is described', async () => {
    const cwd = dir('init');
    const created = await cli(cwd, 'init', 'table-tidy', '--category', 'Docs Tools', '--json');
    expectExit(created, 0);
    expect(created.json).toEqual({ slug: 'table-tidy', file: join('table-tidy', 'SKILL.md') });
    const text = readFileSync(join(cwd, 'table-tidy/SKILL.md'), 'utf8');
    const conformance = checkSkillConformance([{ filename: 'SKILL.md', bytes: Buffer.from(text) }], 'table-tidy');
    expect(conformance.issues).toEqual([]);
    expect(readFrontMatter(text).data).toMatchObject({ name: 'table-tidy', metadata: { category: 'docs-tools' } });
    expect(text).toContain('# Table Tidy');

    // The placeholder description is never published, and nothing reaches the registry.
    const refused = await cli(cwd, 'publish', 'table-tidy');
    expectExit(refused, 1);
    expect(refused.stderr).toContain('still has the description skillpress init wrote');
    expect((await call(base, '/api/registry/table-tidy')).status).toBe(404);
  });

  it('never overwrites a SKILL.md, and says how to name a skill that cannot be one', async () => {
    const cwd = dir('init-twice');
    expectExit(await cli(cwd, 'init', 'sql-lint', '--description', 'Lints SQL. Use when SQL files change.'), 0);
    const before = readFileSync(join(cwd, 'sql-lint/SKILL.md'));
    const again = await cli(cwd, 'init', 'sql-lint', '--json');
    expectExit(again, 1);
    expect(again.json.error).toMatchObject({ code: 'folder_exists' });
    expect(readFileSync(join(cwd, 'sql-lint/SKILL.md')).equals(before)).toBe(true);
    // Without a name: the current folder, whose name must be a skill's.
    expectExit(await cli(join(cwd, 'sql-lint'), 'init'), 1);

    const bad = await cli(cwd, 'init', 'My Tool');
    expectExit(bad, 1);
    expect(bad.stderr).toContain('skillpress init my-tool');
    expect(existsSync(join(cwd, 'My Tool'))).toBe(false);
  });
});

describe('skillpress version patch|minor|major', () => {
  it('bumps the highest version the registry has, and refuses to publish the same files again', async () => {
    const cwd = dir('bumps');
    const folder = skill(cwd, 'bump-me');
    expectExit(await cli(cwd, 'publish', 'bump-me'), 0);
    await versionsOf('bump-me');

    const unchanged = await cli(cwd, 'version', 'bump-me', 'patch');
    expectExit(unchanged, 1);
    expect(unchanged.stderr).toContain('bump-me@1.0.0 already has exactly these files');
    expect(unchanged.stderr).toContain('name the version: skillpress version bump-me 1.0.1');

    writeFileSync(join(folder, 'notes.md'), 'one\n');
    const dry = await cli(cwd, 'version', 'bump-me', 'minor', '--dry-run', '--json');
    expectExit(dry, 0);
    expect(dry.json).toMatchObject({ dryRun: true, version: '1.1.0' });
    expect(await versionsOf('bump-me')).toEqual(['1.0.0']);
    expectExit(await cli(cwd, 'version', 'bump-me', 'minor', '--changelog', 'Notes'), 0);
    await versionsOf('bump-me', (v) => v.includes('1.1.0'));

    // An executable bit is a change, as the registry's digests count it.
    chmodSync(join(folder, 'notes.md'), 0o755);
    const patched = await cli(folder, 'version', 'patch', '--changelog', 'Runnable notes', '--json');
    expectExit(patched, 0);
    expect(patched.json).toMatchObject({ slug: 'bump-me', version: '1.1.1' });
    await versionsOf('bump-me', (v) => v.includes('1.1.1'));

    // A prerelease above the release counts: major from 2.0.0-rc.1 is 2.0.0.
    writeFileSync(join(folder, 'notes.md'), 'two\n');
    expectExit(await cli(folder, 'version', '2.0.0-rc.1', '--changelog', 'Candidate'), 0);
    await versionsOf('bump-me', (v) => v.includes('2.0.0-rc.1'));
    writeFileSync(join(folder, 'notes.md'), 'three\n');
    const major = await cli(folder, 'version', 'major', '--changelog', 'Two', '--json');
    expectExit(major, 0);
    expect(major.json.version).toBe('2.0.0');
  });

  it('says a skill that is not published yet needs publish, and a word that is not a version or a bump what to give', async () => {
    const cwd = dir('bump-new');
    skill(cwd, 'never-published');
    const missing = await cli(cwd, 'version', 'never-published', 'patch', '--json');
    expectExit(missing, 1);
    expect(missing.json.error).toMatchObject({ code: 'not_found', hint: 'publish it first: skillpress publish' });
    const typo = await cli(cwd, 'version', 'never-published', 'pacth', '--json');
    expectExit(typo, 1);
    expect(typo.json.error.hint).toContain('patch, minor or major');
  });
});

describe('skillpress publish --all and sync', () => {
  it('publishes every new skill folder under a folder, dependencies first, after a dry run that sends nothing', async () => {
    const repo = dir('repo');
    // A dependency published in the same run must exist first: "aaa-app" needs "zzz-lib".
    skill(join(repo, 'skills'), 'aaa-app', { 'scripts/run.sh': 'echo app\n' }, 'metadata:\n  category: testing\n  dependencies: "zzz-lib@^1.0.0"\n');
    skill(join(repo, 'skills/group'), 'zzz-lib');
    skill(join(repo, 'skills'), 'uncategorised', {}, '');
    // Not skill folders of this repository: installed skills and dependencies.
    skill(join(repo, '.agents/skills'), 'installed-here');
    skill(join(repo, 'node_modules/pkg'), 'vendored');

    const dry = await cli(repo, 'publish', '--all', '--dry-run', '--category', 'misc', '--json');
    expectExit(dry, 0);
    expect(dry.json.skills.map((s: { slug: string; action: string; version: string; dir: string }) => [s.slug, s.action, s.version, s.dir])).toEqual([
      ['zzz-lib', 'publish', '1.0.0', 'skills/group/zzz-lib'],
      ['aaa-app', 'publish', '1.0.0', 'skills/aaa-app'],
      ['uncategorised', 'publish', '1.0.0', 'skills/uncategorised'],
    ]);
    expect((await call(base, '/api/registry/zzz-lib')).status).toBe(404);

    const synced = await cli(repo, 'sync', '--category', 'misc', '--changelog', 'First');
    expectExit(synced, 0);
    expect(synced.stdout).toContain('3 skills published, 0 unchanged.');
    for (const slug of ['zzz-lib', 'aaa-app', 'uncategorised']) expect(await versionsOf(slug)).toEqual(['1.0.0']);
    expect((await call(base, '/api/registry/uncategorised')).body).toMatchObject({ category: 'misc' });
    expect((await call(base, '/api/registry/aaa-app')).body.dependencies).toEqual({ 'zzz-lib': '^1.0.0' });
  });

  it('publishes a version of what changed, bumped, leaves the rest, and sends nothing when nothing changed', async () => {
    const repo = dir('repo');
    writeFileSync(join(repo, 'skills/aaa-app/scripts/run.sh'), 'echo app two\n');
    const synced = await cli(repo, 'publish', '--all', '--bump', 'minor', '--changelog', 'Second', '--json');
    expectExit(synced, 0);
    expect(
      synced.json.skills.map((s: { slug: string; action: string; version: string; published: boolean }) => [s.slug, s.action, s.version, s.published]),
    ).toEqual([
      ['zzz-lib', 'unchanged', '1.0.0', false],
      ['aaa-app', 'version', '1.1.0', true],
      ['uncategorised', 'unchanged', '1.0.0', false],
    ]);
    expect(await versionsOf('aaa-app', (v) => v.includes('1.1.0'))).toEqual(['1.0.0', '1.1.0']);
    // The versions document and the registry document are written one after the other: wait for the second too.
    const doc = await eventually(
      () => call(base, '/api/registry/aaa-app'),
      (res) => res.body?.versions?.[0]?.version === '1.1.0',
    );
    expect(doc.body.versions[0].changelog).toBe('Second');

    const again = await cli(repo, 'sync');
    expectExit(again, 0);
    expect(again.stdout).toContain('Nothing to publish');
    expect(await versionsOf('aaa-app')).toEqual(['1.0.0', '1.1.0']);
  });

  it('checks every folder before sending anything: one invalid skill stops the run', async () => {
    const repo = dir('repo-invalid');
    skill(repo, 'fine-one');
    const broken = join(repo, 'broken');
    mkdirSync(broken);
    writeFileSync(join(broken, 'SKILL.md'), '---\nname: Not A Slug\n---\n# Broken\n');
    skill(join(repo, 'copy'), 'fine-one');
    const result = await cli(repo, 'sync', '--json');
    expectExit(result, 1);
    expect(result.json.error).toMatchObject({ code: 'invalid_skill' });
    expect(result.json.error.message).toContain('2 skill folders of 3 cannot be published');
    expect(Object.keys(result.json.error.details).sort()).toEqual(['broken', 'fine-one']);
    expect(result.json.error.details['fine-one']).toContain('names fine-one, as copy/fine-one does');
    expect((await call(base, '/api/registry/fine-one')).status).toBe(404);
  });
});

describe('real skill folders: what the registry accepts, the client publishes', () => {
  it('publishes a description written as a folded or literal block, listed on one line, the dry run first', async () => {
    const cwd = dir('block-scalars');
    skillWritten(cwd, 'folded-desc', '---\nname: folded-desc\ndescription: >\n  Checks folded text.\n  Use when tests run.\n---\n# Folded\n');
    skillWritten(
      cwd,
      'literal-desc',
      '---\nname: literal-desc\ndescription: |\n  Keeps its lines.\n  Use when tests run.\nmetadata:\n  category: testing\n---\n# Literal\n',
    );

    const dry = await cli(cwd, 'publish', 'folded-desc', '--dry-run');
    expectExit(dry, 0);
    expect(dry.stdout).toContain('Category: general (none given: the default)');
    expectExit(await cli(cwd, 'publish', 'folded-desc'), 0);
    expectExit(await cli(cwd, 'publish', 'literal-desc'), 0);
    expect(await registryDoc('folded-desc')).toMatchObject({
      description: 'Checks folded text. Use when tests run.',
      category: 'general',
    });
    expect(await registryDoc('literal-desc')).toMatchObject({
      description: 'Keeps its lines. Use when tests run.',
      category: 'testing',
    });
  });

  it('follows a linked SKILL.md and links inside the folder, and refuses by name a link that leads outside', async () => {
    const cwd = dir('links');
    const linked = join(cwd, 'linked-skill');
    mkdirSync(join(linked, 'src'), { recursive: true });
    writeFileSync(join(linked, 'src/SKILL.source.md'), '---\nname: linked-skill\ndescription: Linked. Use in tests.\n---\n# Linked\n');
    writeFileSync(join(linked, 'src/run.sh'), 'echo run\n');
    symlinkSync('src/SKILL.source.md', join(linked, 'SKILL.md'));
    symlinkSync('src/run.sh', join(linked, 'run.sh'));
    expectExit(await cli(cwd, 'publish', 'linked-skill'), 0);
    const doc = await registryDoc('linked-skill');
    expect(doc.files.map((f: { filename: string }) => f.filename)).toEqual(['SKILL.md', 'run.sh', 'src/SKILL.source.md', 'src/run.sh']);

    const leaky = skill(cwd, 'leaky-skill');
    writeFileSync(join(cwd, 'private.txt'), 'not for the registry\n');
    symlinkSync('../private.txt', join(leaky, 'notes.txt'));
    const refused = await cli(cwd, 'publish', 'leaky-skill', '--json');
    expectExit(refused, 1);
    expect(refused.json.error).toMatchObject({
      code: 'invalid_skill',
      message: "notes.txt is a link to ../private.txt, outside the skill's folder, so it cannot be published",
    });
    const synced = await cli(cwd, 'sync', '--dry-run', '--json');
    expectExit(synced, 1);
    expect(synced.json.error.details['leaky-skill']).toContain('notes.txt is a link to ../private.txt');
    expect((await call(base, '/api/registry/leaky-skill')).status).toBe(404);
  });

  it("publishes a SKILL.md whose top-level category and dependencies are another tool's, with warnings, in general", async () => {
    const cwd = dir('foreign-keys');
    skillWritten(
      cwd,
      'foreign-keys',
      "---\nname: foreign-keys\ndescription: Uses another tool's keys. Use in tests.\ncategory: Security & Testing\ndependencies:\n  - python3\n  - jq\n---\n# Foreign\n",
    );
    const published = await cli(cwd, 'sync', '--changelog', 'First');
    expectExit(published, 0);
    expect(published.stdout).toMatch(/foreign-keys +1\.0\.0 \(new, in general, the default\)/);
    expect(published.stderr).toContain('foreign-keys: SKILL.md: category is not read');
    expect(published.stderr).toContain('foreign-keys: SKILL.md: dependencies is not read');
    const doc = await registryDoc('foreign-keys');
    expect(doc).toMatchObject({ category: 'general', dependencies: {} });
  });
});

describe('a taken slug', () => {
  it("says, in the client's terms, to publish a version of one's own skill and to rename anyone else's", async () => {
    const cwd = dir('taken');
    skill(cwd, 'taken-name');
    expectExit(await cli(cwd, 'publish', 'taken-name'), 0);
    await versionsOf('taken-name');

    const mine = await cli(cwd, 'publish', 'taken-name', '--json');
    expectExit(mine, 1);
    expect(mine.json.error).toMatchObject({
      code: 'slug_taken',
      message: 'you already publish taken-name (at 1.0.0): this folder would be a new version of it',
      hint: 'skillpress version taken-name patch --changelog "what changed" (or minor, major, or a version such as 1.1.0)',
    });

    const bobs = dir('taken-bob');
    skill(bobs, 'taken-name', { 'notes.md': "Bob's own skill, by chance of the same name\n" });
    const theirs = await asBob(bobs, 'publish', 'taken-name', '--json');
    expectExit(theirs, 1);
    expect(theirs.json.error.code).toBe('slug_taken');
    expect(theirs.json.error.message).toBe(`the name "taken-name" belongs to another skill in ${base}`);
    expect(theirs.json.error.hint).toContain(`change "name: taken-name" in ${join('taken-name', 'SKILL.md')}`);
    expect(JSON.stringify([mine.json, theirs.json])).not.toContain('/api/');

    // Through sync, the other author's skill is refused with the same advice, and nothing changes.
    const synced = await asBob(bobs, 'sync', '--json');
    expectExit(synced, 1);
    expect(synced.json.error.code).toBe('forbidden');
    expect(synced.json.error.details['taken-name']).toContain('publish yours under another name');
    expect(await versionsOf('taken-name')).toEqual(['1.0.0']);
  });
});
