import * as z from 'zod/mini';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { User } from '#core/schemas';
import { DomainError } from '#core/errors';
import { type Db, parseItem, writeIf } from './db.ts';
import { loginKey, userKey } from './keys.ts';
import { lazySchema } from '#core/lazy-schema';

/**
 * Users, and the login → id index that grants and invitations use. Users and organisations share
 * that index (`LOGIN#<login>`, ignoring case): a claim names a user (`userId`) or an
 * organisation (`orgLogin`), never both, so neither can take the other's login.
 */

const userItemSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    login: z.string(),
    name: z.optional(z.string()),
    avatarUrl: z.optional(z.string()),
    createdAt: z.string(),
  }),
);
export type UserItem = z.output<typeof userItemSchema>;
/** The login index: which user, or which organisation, holds a login now. */
const loginClaimSchema = lazySchema(() => z.union([z.object({ userId: z.string() }), z.object({ orgLogin: z.string() })]));

/**
 * Creates or refreshes a user and its login index (the login of an id may change on GitHub).
 * 409 `login_taken` when an organisation holds the login: nobody signs in as an organisation.
 */
export async function upsertUser(db: Db, user: User, now: Date): Promise<User> {
  const [existing, claim] = await Promise.all([getUser(db, user.id), getLoginClaim(db, user.login)]);
  if (claim && 'orgLogin' in claim) throw orgLoginRefused(user.login);
  const item: UserItem = { ...existing, ...user, createdAt: existing?.createdAt ?? now.toISOString() };
  await db.doc.send(new PutCommand({ TableName: db.table, Item: { ...userKey(user.id), ...item } }));
  // An organisation created since the read above keeps its login: this sign-in is refused.
  const claimed = await writeIf(
    db,
    new PutCommand({ TableName: db.table, Item: { ...loginKey(user.login), userId: user.id }, ConditionExpression: 'attribute_not_exists(orgLogin)' }),
  );
  if (!claimed) throw orgLoginRefused(user.login);
  return toUser(item);
}

const orgLoginRefused = (login: string) =>
  new DomainError('login_taken', `${login} is an organisation on this registry, and nobody can sign in as an organisation: sign in with your own account`);

async function getLoginClaim(db: Db, login: string): Promise<z.output<typeof loginClaimSchema> | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: loginKey(login), ConsistentRead: true }));
  return Item && parseItem(loginClaimSchema, Item, 'login claim');
}

export async function getUser(db: Db, id: string): Promise<UserItem | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: userKey(id), ConsistentRead: true }));
  return Item && toUserItem(Item);
}

/** A user item as stored (without its table keys). */
export const toUserItem = (raw: Record<string, unknown>): UserItem => parseItem(userItemSchema, raw, 'user');

/** The user who holds `login` now; undefined when nobody does, or an organisation does. */
export async function findUserByLogin(db: Db, login: string): Promise<UserItem | undefined> {
  const claim = await getLoginClaim(db, login);
  if (!claim || !('userId' in claim)) return undefined;
  const user = await getUser(db, claim.userId);
  return user && user.login.toLowerCase() === login.toLowerCase() ? user : undefined;
}

export function toUser(item: UserItem): User {
  return { id: item.id, login: item.login, ...(item.name ? { name: item.name } : {}), ...(item.avatarUrl ? { avatarUrl: item.avatarUrl } : {}) };
}
