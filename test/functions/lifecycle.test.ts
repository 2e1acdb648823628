import { beforeAll, describe, expect, it } from 'vitest';
import { getSkill, getSkillWithVersions, setYanked, yankRelease } from '#functions/store/skills';
import { Client, createTestStack, json, skillBody, skillFile, type TestStack, withKey } from '../support/stack.ts';

/**
 * Yank and deprecate (docs/api.md §7.5) through the API against the embedded services: who may,
 * what the answer says, what the registry, the versions list, the catalog, the discovery index
 * and delivery show after the rebuild, and how the current version moves.
 */

let stack: TestStack;
let alice: Client;
let aliceKey: string;
let bobKey: string;

beforeAll(async () => {
  stack = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
  alice = await Client.signIn(stack, 'alice');
  aliceKey = await alice.createKey();
  bobKey = await (await Client.signIn(stack, 'bob')).createKey();
});

/** A skill of alice's with `versions` published after 1.0.0, in that order. */
async function skillWith(...versions: string[]): Promise<{ id: string; slug: string }> {
  const skill = await json<{ id: string; slug: string }>(await withKey(stack, aliceKey, '/api/publish', { body: skillBody() }));
  for (const version of versions) {
    const res = await withKey(stack, aliceKey, `/api/skills/${skill.id}/versions`, {
      body: { version, changelog: `Changes in ${version}`, files: [skillFile(skill.slug, `# ${version}`)] },
    });
    expect(res.status).toBe(201);
  }
  return skill;
}

const yank = (id: string, version: string, body: unknown = {}, key = aliceKey) => withKey(stack, key, `/api/skills/${id}/versions/${version}/yank`, { body });
const unyank = (id: string, version: string, key = aliceKey) => withKey(stack, key, `/api/skills/${id}/versions/${version}/yank`, { method: 'DELETE' });

async function registry(slug: string) {
  await stack.idle();
  return json(await stack.request(`/api/registry/${slug}`));
}
async function versionsList(slug: string) {
  await stack.idle();
  return json(await stack.request(`/api/registry/${slug}/versions`));
}
async function catalogEntry(slug: string) {
  await stack.idle();
  return (await json(await stack.request('/.well-known/skills.json'))).skills.find((s: { slug: string }) => s.slug === slug);
}
async function discoveryEntry(slug: string) {
  await stack.idle();
  return (await json(await stack.request('/.well-known/agent-skills/index.json'))).skills.find((s: { name: string }) => s.name === slug);
}
const delivered = async (id: string, version?: string) => json(await stack.request(`/api/deliver/${id}${version ? `?version=${version}` : ''}`));

describe('yanking a version', () => {
  it('flags an older version with its reason, keeps it deliverable by exact version, and leaves the current version alone', async () => {
    const { id, slug } = await skillWith('1.1.0', '1.2.0');
    const res = await yank(id, '1.1.0', { reason: 'Deletes files in the working tree' });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ skillId: id, version: '1.1.0', yanked: true, yankReason: 'Deletes files in the working tree', currentVersion: '1.2.0' });

    const doc = await registry(slug);
    expect(doc.currentVersion).toBe('1.2.0');
    expect(doc.versions.find((v: { version: string }) => v.version === '1.1.0')).toMatchObject({
      yanked: true,
      yankReason: 'Deletes files in the working tree',
    });
    for (const other of ['1.2.0', '1.0.0']) expect(doc.versions.find((v: { version: string }) => v.version === other)).not.toHaveProperty('yanked');
    const all = await versionsList(slug);
    expect(all.versions.find((v: { version: string }) => v.version === '1.1.0')).toMatchObject({
      yanked: true,
      yankReason: 'Deletes files in the working tree',
    });

    // An old lockfile that pinned it still installs it.
    expect(await delivered(id, '1.1.0')).toMatchObject({ version: '1.1.0', files: [skillFile(slug, '# 1.1.0')] });
    expect((await stack.request(`/bundles/${slug}/1.1.0.json`)).status).toBe(200);
    expect((await delivered(id)).version).toBe('1.2.0');
  });

  it('moves the current version to the highest release left when the current one is yanked: registry, catalog, discovery index and delivery', async () => {
    const { id, slug } = await skillWith('1.1.0', '2.0.0', '2.1.0-rc.1', '1.5.0');
    expect((await json(await yank(id, '1.5.0'))).currentVersion).toBe('2.0.0');
    const res = await yank(id, '2.0.0', { reason: 'Broken on Windows' });
    // Not the prerelease, not the yanked backport: the highest release left.
    expect(await json(res)).toMatchObject({ yanked: true, currentVersion: '1.1.0' });
    expect((await getSkill(stack.deps.db, id))!.currentVersion).toBe('1.1.0');

    const doc = await registry(slug);
    expect(doc.currentVersion).toBe('1.1.0');
    expect(doc.files).toEqual([expect.objectContaining({ filename: 'SKILL.md' })]);
    expect(doc.delivery.bundle).toBe(`/bundles/${slug}/1.1.0.json`);
    expect((await versionsList(slug)).currentVersion).toBe('1.1.0');
    expect((await catalogEntry(slug)).currentVersion).toBe('1.1.0');
    // 1.1.0 is its SKILL.md alone: the index names that file.
    expect(await discoveryEntry(slug)).toMatchObject({ version: '1.1.0', type: 'skill-md', url: `/.well-known/agent-skills/${slug}/1.1.0/SKILL.md` });
    expect((await delivered(id)).version).toBe('1.1.0');
    expect((await delivered(id, '2.0.0')).version).toBe('2.0.0');
  });

  it('makes a version current again when its yank is undone and it is the highest release', async () => {
    const { id, slug } = await skillWith('2.0.0');
    await yank(id, '2.0.0');
    const res = await unyank(id, '2.0.0');
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ skillId: id, version: '2.0.0', yanked: false, currentVersion: '2.0.0' });
    const doc = await registry(slug);
    expect(doc.currentVersion).toBe('2.0.0');
    expect(doc.versions[0]).not.toHaveProperty('yanked');
    expect(doc.versions[0]).not.toHaveProperty('yankReason');
    // Undoing the yank of a lower version leaves the current one where it is.
    await yank(id, '1.0.0');
    expect(await json(await unyank(id, '1.0.0'))).toMatchObject({ yanked: false, currentVersion: '2.0.0' });
  });

  it('replaces the reason when yanked again, and drops it when the new yank gives none', async () => {
    const { id, slug } = await skillWith('1.1.0');
    await yank(id, '1.0.0', { reason: 'first' });
    expect(await json(await yank(id, '1.0.0', { reason: 'second' }))).toMatchObject({ yankReason: 'second' });
    const again = await json(await yank(id, '1.0.0'));
    expect(again).toMatchObject({ yanked: true });
    expect(again).not.toHaveProperty('yankReason');
    const listed = (await versionsList(slug)).versions.find((v: { version: string }) => v.version === '1.0.0');
    expect(listed).toMatchObject({ yanked: true });
    expect(listed).not.toHaveProperty('yankReason');
  });

  it('refuses to yank the last release that is not yanked: a skill always has a current version', async () => {
    const { id } = await skillWith('1.1.0', '2.0.0-rc.1');
    expect((await yank(id, '1.1.0')).status).toBe(200);
    const res = await yank(id, '1.0.0');
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({ code: 'invalid_request', details: { issues: [{ path: ['version'] }] } });
    expect((await getSkill(stack.deps.db, id))!.currentVersion).toBe('1.0.0');
    // A prerelease may be yanked: it is never current anyway.
    expect(await json(await yank(id, '2.0.0-rc.1'))).toMatchObject({ yanked: true, currentVersion: '1.0.0' });
  });

  it('lets a publish of a higher version become current beside a yanked one', async () => {
    const { id, slug } = await skillWith('2.0.0');
    await yank(id, '2.0.0');
    const res = await withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body: { version: '1.5.0', files: [skillFile(slug)] } });
    // 1.5.0 is below the yanked 2.0.0 but above every release that counts.
    expect((await json(res)).currentVersion).toBe('1.5.0');
    expect((await registry(slug)).currentVersion).toBe('1.5.0');
  });

  it('converges when the current version is yanked while a higher one is published', async () => {
    const { id, slug } = await skillWith('2.0.0');
    const [yanked, published] = await Promise.all([
      yank(id, '2.0.0'),
      withKey(stack, aliceKey, `/api/skills/${id}/versions`, { body: { version: '3.0.0', files: [skillFile(slug)] } }),
    ]);
    expect([yanked.status, published.status]).toEqual([200, 201]);
    expect((await getSkill(stack.deps.db, id))!.currentVersion).toBe('3.0.0');
    expect((await registry(slug)).currentVersion).toBe('3.0.0');
  });

  it('is repaired by the rebuild when a yank stopped after flagging the version', async () => {
    const { id, slug } = await skillWith('2.0.0');
    await stack.idle();
    // What a crash between the two writes of a yank leaves: the version flagged, META not moved.
    await setYanked(stack.deps.db, id, '2.0.0', { reason: 'crashed half-way' });
    stack.deps.changed([id]);
    expect((await registry(slug)).currentVersion).toBe('1.0.0');
    expect((await getSkill(stack.deps.db, id))!.currentVersion).toBe('1.0.0');
  });

  it('counts a yank that stopped after its decisive write, before flagging the version, as done', async () => {
    const { id, slug } = await skillWith('1.1.0');
    await stack.idle();
    // What a crash between a yank's two writes leaves: META records the yank, the item does not.
    const { skill } = await getSkillWithVersions(stack.deps.db, id);
    expect(await yankRelease(stack.deps.db, skill!, { version: '1.1.0', untracked: [], next: '1.0.0' }, new Date())).toBeDefined();
    stack.deps.changed([id]);
    const listed = (await versionsList(slug)).versions.find((v: { version: string }) => v.version === '1.1.0');
    expect(listed).toMatchObject({ yanked: true });
    expect((await registry(slug)).currentVersion).toBe('1.0.0');
    // And the rule holds on it: the one release left cannot go.
    expect((await yank(id, '1.0.0')).status).toBe(400);
    expect(await json(await unyank(id, '1.1.0'))).toMatchObject({ yanked: false, currentVersion: '1.1.0' });
  });

  it('lets exactly one of two concurrent yanks of the last two releases through, every time', async () => {
    for (let trial = 0; trial < 5; trial++) {
      const { id, slug } = await skillWith('1.1.0', '2.0.0-rc.1');
      const answers = await Promise.all([yank(id, '1.0.0'), yank(id, '1.1.0')]);
      expect(answers.map((res) => res.status).sort(), `trial ${trial}`).toEqual([200, 400]);
      const left = (await versionsList(slug)).versions.filter((v: { version: string; yanked?: boolean }) => !v.yanked && !v.version.includes('-'));
      expect(left).toHaveLength(1);
      const current = (await getSkill(stack.deps.db, id))!.currentVersion;
      expect(current).toBe(left[0].version);
      expect((await registry(slug)).currentVersion).toBe(current);
      expect((await delivered(id)).version).toBe(current);
    }
  });

  it('keeps one release whatever mix of yanks and undos races on a skill', async () => {
    const { id, slug } = await skillWith('1.1.0', '1.2.0');
    const releases = ['1.0.0', '1.1.0', '1.2.0'];
    for (let round = 0; round < 4; round++) {
      await Promise.all(releases.flatMap((v, i) => (round % 2 === i % 2 ? [yank(id, v), yank(id, v)] : [yank(id, v), unyank(id, v)])));
      const listed = (await versionsList(slug)).versions as { version: string; yanked?: boolean }[];
      const current = (await getSkill(stack.deps.db, id))!.currentVersion;
      expect(
        listed.some((v) => !v.yanked),
        `round ${round}`,
      ).toBe(true);
      expect(listed.find((v) => v.version === current)?.yanked, `round ${round}: current ${current}`).toBeUndefined();
    }
  });

  it('answers 401 without credentials, 403 to another author, 404 for an unknown skill or version, 400 for a malformed one', async () => {
    const { id } = await skillWith('1.1.0');
    const anonymous = await stack.request(`/api/skills/${id}/versions/1.0.0/yank`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(anonymous.status).toBe(401);
    expect((await json(await yank(id, '1.0.0', {}, bobKey))).error.code).toBe('forbidden');
    expect((await unyank(id, '1.0.0', bobKey)).status).toBe(403);
    expect((await yank('no-such-skill', '1.0.0')).status).toBe(404);
    expect((await json(await yank(id, '9.9.9'))).error.code).toBe('not_found');
    expect((await unyank(id, '9.9.9')).status).toBe(404);
    expect((await json(await yank(id, 'v1.0.0'))).error.code).toBe('invalid_request');
    expect((await yank(id, '1.0.0', { reason: 'x'.repeat(501) })).status).toBe(400);
    expect((await yank(id, '1.0.0', { reason: 'ok', extra: true })).status).toBe(400);
    expect((await getSkill(stack.deps.db, id))!.currentVersion).toBe('1.1.0');
  });

  it('takes a session from the site origin, and refuses one from elsewhere', async () => {
    const { id } = await skillWith('1.1.0');
    const path = `/api/skills/${id}/versions/1.0.0/yank`;
    expect((await alice.session(path, { method: 'POST', body: {}, headers: { origin: 'https://evil.example' } })).status).toBe(403);
    expect((await alice.session(path, { method: 'POST', body: { reason: 'from the dashboard' } })).status).toBe(200);
    expect((await alice.session(path, { method: 'DELETE' })).status).toBe(200);
  });
});

describe('deprecating a skill', () => {
  const deprecate = (id: string, body: unknown, key = aliceKey) => withKey(stack, key, `/api/skills/${id}/deprecate`, { body });
  const undeprecate = (id: string, key = aliceKey) => withKey(stack, key, `/api/skills/${id}/deprecate`, { method: 'DELETE' });

  it('carries the message in the answer, the registry, the catalog and the author’s list, until undone', async () => {
    const { id, slug } = await skillWith();
    const res = await deprecate(id, { message: 'Use pdf-tools-2 instead' });
    expect(res.status).toBe(200);
    const skill = await json(res);
    expect(skill).toMatchObject({ id, slug, deprecated: 'Use pdf-tools-2 instead', currentVersion: '1.0.0' });
    expect((await registry(slug)).deprecated).toBe('Use pdf-tools-2 instead');
    expect((await catalogEntry(slug)).deprecated).toBe('Use pdf-tools-2 instead');
    const mine = await json(await alice.session('/api/me/skills'));
    expect(mine.skills.find((s: { id: string }) => s.id === id).deprecated).toBe('Use pdf-tools-2 instead');
    // Still installable: deprecation warns, it does not withdraw.
    expect((await stack.request(`/api/deliver/${id}`)).status).toBe(200);

    expect(await json(await deprecate(id, { message: 'Renamed to pdf-kit' }))).toMatchObject({ deprecated: 'Renamed to pdf-kit' });
    const undone = await undeprecate(id);
    expect(undone.status).toBe(200);
    expect(await json(undone)).not.toHaveProperty('deprecated');
    expect(await registry(slug)).not.toHaveProperty('deprecated');
    expect(await catalogEntry(slug)).not.toHaveProperty('deprecated');
  });

  it('needs a message, and is the author’s alone', async () => {
    const { id } = await skillWith();
    for (const body of [{}, { message: '' }, { message: '   ' }, { message: 'x'.repeat(501) }, { message: 'line\u0007bell' }]) {
      expect((await deprecate(id, body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await deprecate(id, { message: 'mine now' }, bobKey)).status).toBe(403);
    expect((await undeprecate(id, bobKey)).status).toBe(403);
    expect((await deprecate('no-such-skill', { message: 'gone' })).status).toBe(404);
    const csrf = await alice.session(`/api/skills/${id}/deprecate`, { method: 'POST', body: { message: 'x' }, headers: { origin: 'https://evil.example' } });
    expect(csrf.status).toBe(403);
    expect(await getSkill(stack.deps.db, id)).not.toHaveProperty('deprecated');
  });
});
