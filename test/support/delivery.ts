import { expect } from 'vitest';
import type { Source } from '#core/install-analytics';
import type { Deps } from '#functions/platform/composition';
import type { InstallEvent } from '#functions/store/downloads';
import { Client, createTestStack, json, skillBody, type TestStack, withKey } from './stack.ts';

/** Steps shared by the delivery, paid-access and analytics tests. */

export interface AuthorStack {
  stack: TestStack;
  alice: Client;
  aliceKey: string;
}

/** A fresh stack with alice signed in and holding an API key; publishing is not rate limited. */
export async function authorStack(overrides: Partial<Deps> = {}): Promise<AuthorStack> {
  const stack = await createTestStack(overrides, { SKILLPRESS_PUBLISH_LIMIT: '1000', SKILLPRESS_VERSION_LIMIT: '1000' });
  const alice = await Client.signIn(stack, 'alice');
  return { stack, alice, aliceKey: await alice.createKey() };
}

export interface PublishedSkill {
  id: string;
  slug: string;
}

/** Publishes a skill with `key` and expects 201. */
export async function publish(stack: TestStack, key: string, overrides: Record<string, unknown> = {}): Promise<PublishedSkill> {
  const res = await withKey(stack, key, '/api/publish', { body: skillBody(overrides) });
  expect(res.status, await res.clone().text()).toBe(201);
  return json(res);
}

/** GET /api/deliver/<id> with the given query, anonymously or with `as`'s session. */
export function deliver(stack: TestStack, skillId: string, query: Record<string, string> = {}, as?: Client): Promise<Response> {
  const qs = new URLSearchParams(query).toString();
  const path = `/api/deliver/${skillId}${qs ? `?${qs}` : ''}`;
  return as ? as.session(path) : stack.request(path);
}

/** An install of `skillId` as delivery would count it, for tests that drive a counter directly. */
export function installEvent(skillId: string, source: Source, at: Date, address = '127.0.0.1'): InstallEvent {
  return { skillId, source, client: 'other', visitor: { address, userAgent: 'test' }, at: at.getTime() };
}

/** The analytics of a skill as its author sees them. */
export async function analytics(
  author: Client,
  skillId: string,
): Promise<{
  total: number;
  last7d: number;
  last30d: number;
  bySource: Record<string, number>;
  byClient: Record<string, number>;
  distinct: { total: number; last7d: number; last30d: number };
  daily: { date: string; cli: number; web: number; api: number; distinct: number }[];
}> {
  const res = await author.session(`/api/analytics/${skillId}`);
  expect(res.status).toBe(200);
  return json(res);
}

/** Issues a download token as the author (session) and returns the create response. */
export async function issueToken(
  author: Client,
  skillId: string,
  body: Record<string, unknown> = {},
): Promise<{ id: string; token: string; expiresAt: string; maxUses: number | null }> {
  const res = await author.session(`/api/skills/${skillId}/download-tokens`, { method: 'POST', body });
  expect(res.status, await res.clone().text()).toBe(201);
  return json(res);
}

/** Every DynamoDB command `stack` sends while `run` runs, in order. */
export async function commandsDuring(stack: TestStack, run: () => Promise<unknown>): Promise<{ name: string; input: Record<string, unknown> }[]> {
  const doc = stack.deps.db.doc;
  const original = doc.send.bind(doc);
  const sent: { name: string; input: Record<string, unknown> }[] = [];
  doc.send = ((command: { constructor: { name: string }; input: Record<string, unknown> }, ...rest: unknown[]) => {
    sent.push({ name: command.constructor.name, input: command.input });
    return (original as (...args: unknown[]) => unknown)(command, ...rest);
  }) as typeof doc.send;
  try {
    await run();
  } finally {
    doc.send = original;
  }
  return sent;
}
