import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { User } from '#core/schemas';
import type { Db } from './db.ts';
import { loginKey, userKey } from './keys.ts';

/** Users, and the login → id index that grants use. */


export interface UserItem extends User {
  createdAt: string;
}

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
export function toUserItem(raw: Record<string, unknown>): UserItem {
  const { pk: _pk, sk: _sk, ...item } = raw;
  return item as unknown as UserItem;
}

export async function findUserByLogin(db: Db, login: string): Promise<UserItem | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: loginKey(login), ConsistentRead: true }));
  if (!Item) return undefined;
  const user = await getUser(db, Item.userId as string);
  return user && user.login.toLowerCase() === login.toLowerCase() ? user : undefined;
}

export function toUser(item: UserItem): User {
  return { id: item.id, login: item.login, ...(item.name ? { name: item.name } : {}), ...(item.avatarUrl ? { avatarUrl: item.avatarUrl } : {}) };
}

/** Test builder. */
export function makeUser(overrides: Partial<User> = {}): User {
  const login = overrides.login ?? `user${Math.random().toString(36).slice(2, 8)}`;
  return { id: `dev:${login.toLowerCase()}`, login, ...overrides };
}
