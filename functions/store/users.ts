import * as z from 'zod/mini';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { User } from '#core/schemas';
import { type Db, parseItem } from './db.ts';
import { loginKey, userKey } from './keys.ts';

/** Users, and the login → id index that grants use. */

const userItemSchema = z.object({
  id: z.string(),
  login: z.string(),
  name: z.optional(z.string()),
  avatarUrl: z.optional(z.string()),
  createdAt: z.string(),
});
export type UserItem = z.output<typeof userItemSchema>;
/** The login index: which user holds a login now. */
const loginClaimSchema = z.object({ userId: z.string() });

/** Creates or refreshes a user and its login index (the login of an id may change on GitHub). */
export async function upsertUser(db: Db, user: User, now: Date): Promise<User> {
  const existing = await getUser(db, user.id);
  const item: UserItem = { ...existing, ...user, createdAt: existing?.createdAt ?? now.toISOString() };
  await db.doc.send(new PutCommand({ TableName: db.table, Item: { ...userKey(user.id), ...item } }));
  await db.doc.send(new PutCommand({ TableName: db.table, Item: { ...loginKey(user.login), userId: user.id } }));
  return toUser(item);
}

export async function getUser(db: Db, id: string): Promise<UserItem | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: userKey(id), ConsistentRead: true }));
  return Item && toUserItem(Item);
}

/** A user item as stored (without its table keys). */
export const toUserItem = (raw: Record<string, unknown>): UserItem => parseItem(userItemSchema, raw, 'user');

export async function findUserByLogin(db: Db, login: string): Promise<UserItem | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: loginKey(login), ConsistentRead: true }));
  if (!Item) return undefined;
  const user = await getUser(db, parseItem(loginClaimSchema, Item, 'login claim').userId);
  return user && user.login.toLowerCase() === login.toLowerCase() ? user : undefined;
}

export function toUser(item: UserItem): User {
  return { id: item.id, login: item.login, ...(item.name ? { name: item.name } : {}), ...(item.avatarUrl ? { avatarUrl: item.avatarUrl } : {}) };
}
