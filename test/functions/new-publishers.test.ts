import { beforeAll, describe, expect, it } from 'vitest';
import { accountMadeDaysAgo } from '../support/behaviour.ts';
import { CLEAN_SKILL_MD, SUSPICIOUS_SKILL_MD } from '../support/scan-samples.ts';
import { createTestStack, json, skillBodyWithSkillMd, type TestStack, withKey } from '../support/stack.ts';

/**
 * New publishers (docs/api.md §7.15): a version the scan flags, from an account younger than 7
 * days or without a clean version yet, is held in the appeal queue instead of published flagged;
 * an established publisher's is published flagged, as before.
 */

let stack: TestStack;

beforeAll(async () => {
  stack = await createTestStack({}, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
});

const accountOf = (login: string, days: number) => accountMadeDaysAgo(stack, login, days);

const publish = (key: string, text: string) => withKey(stack, key, '/api/publish', { body: skillBodyWithSkillMd(text) });

describe('a flagged version', () => {
  it('from an account younger than 7 days is held for review, not published', async () => {
    const { client, key } = await accountOf('newcomer', 2);
    expect((await publish(key, CLEAN_SKILL_MD)).status).toBe(201);
    const res = await publish(key, SUSPICIOUS_SKILL_MD);
    expect(res.status).toBe(422);
    const { error } = await json(res);
    expect(error).toMatchObject({ code: 'held_for_review', details: { appeal: { id: expect.any(String), status: 'pending' } } });
    const appeals = (await json(await client.session('/api/appeals'))).appeals;
    expect(appeals).toEqual([expect.objectContaining({ id: error.details.appeal.id, status: 'pending', kind: 'skill' })]);
    // Nothing was published: the author has their clean skill alone.
    expect((await json(await client.session('/api/me/skills'))).skills).toHaveLength(1);
  });

  it('sent again with the same files waits in the appeal it is already in; changed files are an appeal of their own', async () => {
    const { client, key } = await accountOf('resender', 1);
    const body = skillBodyWithSkillMd(SUSPICIOUS_SKILL_MD);
    const send = async (sent: typeof body) => (await json(await withKey(stack, key, '/api/publish', { body: sent }))).error;
    const first = await send(body);
    const again = await send(body);
    expect(again).toMatchObject({ code: 'held_for_review', details: { appeal: { id: first.details.appeal.id, status: 'pending' } } });
    expect((await json(await client.session('/api/appeals'))).appeals).toHaveLength(1);
    const [skillFile] = body.files as { filename: string; content: string }[];
    const changed = await send({ ...body, files: [{ ...skillFile!, content: `${skillFile!.content}\nOne more line.\n` }] });
    expect(changed.code).toBe('held_for_review');
    expect(changed.details.appeal.id).not.toBe(first.details.appeal.id);
    expect((await json(await client.session('/api/appeals'))).appeals).toHaveLength(2);
  });

  it('from an older account without a clean version yet is held for review', async () => {
    const { key } = await accountOf('quiet-veteran', 30);
    const res = await publish(key, SUSPICIOUS_SKILL_MD);
    expect(res.status).toBe(422);
    expect((await json(res)).error.code).toBe('held_for_review');
  });

  it('from an account older than 7 days with a clean version is published flagged', async () => {
    const { key } = await accountOf('regular', 8);
    expect((await publish(key, CLEAN_SKILL_MD)).status).toBe(201);
    const res = await publish(key, SUSPICIOUS_SKILL_MD);
    expect(res.status).toBe(201);
    expect((await json(res)).scan.verdict).toBe('suspicious');
  });

  it('is never held when it is clean, whoever publishes it', async () => {
    const { key } = await accountOf('first-timer', 0);
    expect((await publish(key, CLEAN_SKILL_MD)).status).toBe(201);
  });
});
