import { expect } from 'vitest';
import { eventually } from './eventually.ts';
import { Client, json, skillBody, type TestStack, withKey } from './stack.ts';

/** What `GET /api/skills/<id>/versions/<v>/behaviour` answers. */
export interface VersionBehaviour {
  behaviour: 'pending' | 'cleared' | 'refused';
  effects?: Record<string, unknown[]>;
  observation?: { verdict: string; evidence: { rule: string; verdict: string; message: string }[]; at: string; attempts?: number };
}

/** A run in the sandbox takes seconds, two passes of a version; a slow, shared machine gets room. */
export const OBSERVED_WITHIN_MS = 180_000;

/**
 * Waits until the run of `skillId@version` in the sandbox ended, asking the API as the holder of
 * `key` might, then until the rebuild it set off is done; gives how the version fared.
 */
export async function untilObserved(stack: TestStack, key: string, skillId: string, version = '1.0.0'): Promise<VersionBehaviour> {
  const read = async () => {
    const res = await withKey(stack, key, `/api/skills/${skillId}/versions/${version}/behaviour`, { method: 'GET' });
    expect(res.status, await res.clone().text()).toBe(200);
    return json<VersionBehaviour>(res);
  };
  const found = await eventually(read, (b) => b.behaviour !== 'pending', OBSERVED_WITHIN_MS);
  expect(found.behaviour, `${skillId}@${version} is still being observed`).not.toBe('pending');
  // The version's item says how it fared a moment before its skill's versions move: wait for that, then the rebuild.
  await stack.deps.observer.idle?.();
  await stack.idle();
  return found;
}

const DAY_MS = 86_400_000;

/** Signs `login` in `days` ago (the account is made then) and gives their session and an API key. */
export async function accountMadeDaysAgo(stack: TestStack, login: string, days: number): Promise<{ client: Client; key: string }> {
  stack.setNow(new Date(Date.now() - days * DAY_MS));
  try {
    const client = await Client.signIn(stack, login);
    return { client, key: await client.createKey() };
  } finally {
    stack.setNow(undefined);
  }
}

/**
 * An established publisher: an account older than a week with a clean skill published, whose
 * flagged versions are published flagged rather than held for review (docs/api.md §7.15).
 */
export async function establishedPublisher(stack: TestStack, login: string): Promise<{ client: Client; key: string }> {
  const account = await accountMadeDaysAgo(stack, login, 8);
  const res = await withKey(stack, account.key, '/api/publish', { body: skillBody() });
  expect(res.status, await res.clone().text()).toBe(201);
  return account;
}
