import { expect } from 'vitest';
import { eventually } from './eventually.ts';
import { json, type TestStack, withKey } from './stack.ts';

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
  await stack.idle();
  return found;
}
