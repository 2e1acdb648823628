import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { skillKey } from '#functions/store/keys';
import { getSkill, skillRecord, toSkillItem } from '#functions/store/skills';
import { Client, createTestStack, json, skillBody, skillFile, type TestStack, withKey } from '../support/stack.ts';

/**
 * Skills stored before owners were recorded: every reader takes them for their authors' while
 * they wait, and the rebuild writes the owner down, without a pause and without changing what
 * anyone sees.
 */

let stack: TestStack;
let key: string;

beforeAll(async () => {
  stack = await createTestStack();
  key = await (await Client.signIn(stack, 'alice')).createKey();
});

/** Publishes a skill, then rewrites its META as a store from before owners holds it: no `owner`. */
async function legacySkill(): Promise<{ id: string; slug: string }> {
  const skill = await json<{ id: string; slug: string }>(await withKey(stack, key, '/api/publish', { body: skillBody() }));
  await stack.idle();
  const { owner: _new, ...before } = (await getSkill(stack.deps.db, skill.id))!;
  await stack.deps.db.doc.send(new PutCommand({ TableName: stack.deps.db.table, Item: skillRecord(before) }));
  return skill;
}

const storedOwner = async (id: string) => {
  const { Item } = await stack.deps.db.doc.send(new GetCommand({ TableName: stack.deps.db.table, Key: skillKey(id), ConsistentRead: true }));
  return toSkillItem(Item!).owner;
};

describe('skills stored before owners were recorded', () => {
  it('are their authors’ for every reader while they wait', async () => {
    const skill = await legacySkill();
    expect(await storedOwner(skill.id)).toBeUndefined();
    // The author still runs it: a new version, a deprecation, the list of their skills.
    const version = await withKey(stack, key, `/api/skills/${skill.id}/versions`, { body: { version: '1.1.0', files: [skillFile(skill.slug, 'x')] } });
    expect(version.status).toBe(201);
    const mine = await json(await (await Client.signIn(stack, 'alice')).session('/api/me/skills'));
    expect(mine.skills.find((s: { id: string }) => s.id === skill.id)).toMatchObject({ author: 'alice', owner: { type: 'user', login: 'alice' } });
    const stranger = await (await Client.signIn(stack, 'mallory')).createKey();
    expect((await withKey(stack, stranger, `/api/skills/${skill.id}/deprecate`, { body: { message: 'mine now' } })).status).toBe(403);
  });

  it('get their owner written by the rebuild, and their documents say the same before and after', async () => {
    const skill = await legacySkill();
    await stack.runtime.rebuildAll();
    expect(await storedOwner(skill.id)).toEqual({ type: 'user', login: 'alice' });
    const registry = await json(await stack.request(`/api/registry/${skill.slug}`));
    expect(registry).toMatchObject({ author: 'alice', owner: { type: 'user', login: 'alice' } });
    expect(registry.versions.every((v: { publishedBy: string }) => v.publishedBy === 'alice')).toBe(true);
    // Written once: a second full rebuild finds nothing to migrate and leaves the item alone.
    const before = (await stack.deps.db.doc.send(new GetCommand({ TableName: stack.deps.db.table, Key: skillKey(skill.id), ConsistentRead: true }))).Item;
    await stack.runtime.rebuildAll();
    const after = (await stack.deps.db.doc.send(new GetCommand({ TableName: stack.deps.db.table, Key: skillKey(skill.id), ConsistentRead: true }))).Item;
    expect(after).toEqual(before);
  });

  it('are migrated by the rebuild that follows their next write too', async () => {
    const skill = await legacySkill();
    expect((await withKey(stack, key, `/api/skills/${skill.id}/deprecate`, { body: { message: 'Use another' } })).status).toBe(200);
    await stack.idle();
    expect(await storedOwner(skill.id)).toEqual({ type: 'user', login: 'alice' });
  });
});
