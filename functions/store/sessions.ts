import * as z from 'zod/mini';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { limits } from '#core/limits';
import { hashSecret, newSecret } from '../platform/secrets.ts';
import type { Db } from './db.ts';
import { sessionKey } from './keys.ts';
import { lazySchema } from '#core/lazy-schema';

/** Browser sessions: the cookie holds a random token; the table holds only its SHA-256. */

const sessionItemSchema = lazySchema(() =>
  z.object({
    userId: z.string(),
    createdAt: z.string(),
    /** Epoch seconds; also the table's TTL attribute. */
    expiresAt: z.number(),
  }),
);
type SessionItem = z.output<typeof sessionItemSchema>;

export async function createSession(db: Db, userId: string, now: Date): Promise<{ token: string; expiresAt: Date }> {
  const token = newSecret();
  const expiresAt = Math.floor(now.getTime() / 1000) + limits.sessionSeconds;
  const item: SessionItem = { userId, createdAt: now.toISOString(), expiresAt };
  await db.doc.send(
    new PutCommand({ TableName: db.table, Item: { ...sessionKey(hashSecret(token)), ...item }, ConditionExpression: 'attribute_not_exists(pk)' }),
  );
  return { token, expiresAt: new Date(expiresAt * 1000) };
}

/**
 * The user id of a live session, or undefined. Expiry is checked here: TTL deletion is lazy. A
 * damaged session item counts as none (the caller is asked to sign in, which makes a new one)
 * rather than failing every request the browser sends with it.
 */
export async function sessionUserId(db: Db, token: string, now: Date): Promise<string | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: sessionKey(hashSecret(token)), ConsistentRead: true }));
  const session = sessionItemSchema.safeParse(Item);
  if (!session.success || session.data.expiresAt * 1000 <= now.getTime()) return undefined;
  return session.data.userId;
}

export async function deleteSession(db: Db, token: string): Promise<void> {
  await db.doc.send(new DeleteCommand({ TableName: db.table, Key: sessionKey(hashSecret(token)) }));
}
