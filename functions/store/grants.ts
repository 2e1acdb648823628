import * as z from 'zod/mini';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { notFound } from '#core/errors';
import { LOGIN_PATTERN } from '#core/login';
import { type Db, parseItem, queryOwned, writeIf } from './db.ts';
import { grantKey, prefix } from './keys.ts';
import { lazySchema } from '#core/lazy-schema';

/**
 * Grants: the author lets a user's session download a paid skill. Checking access is one
 * consistent read of `GRANT#<skill>#<user>` on the delivery path; the author's listing reads a
 * GSI partition per skill, sorted by the grantee's login so revoking by login is a key lookup.
 */

const skillPartition = (skillId: string) => prefix.grantsOf + skillId;

const grantItemSchema = lazySchema(() =>
  z.object({
    skillId: z.string(),
    userId: z.string(),
    login: z.string(),
    grantedBy: z.string(),
    grantedAt: z.string(),
  }),
);
export type GrantItem = z.output<typeof grantItemSchema>;

/** Grants access; granting again keeps the first grant (and its date) and returns it. */
export async function putGrant(db: Db, grant: GrantItem): Promise<GrantItem> {
  const put = new PutCommand({
    TableName: db.table,
    Item: { ...grantKey(grant.skillId, grant.userId), ...grant, gsi1pk: skillPartition(grant.skillId), gsi1sk: grant.login.toLowerCase() },
    ConditionExpression: 'attribute_not_exists(pk)',
  });
  if (await writeIf(db, put)) return grant;
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: grantKey(grant.skillId, grant.userId), ConsistentRead: true }));
  // Revoked between the two calls: the caller asked for a grant, so make it again.
  return Item ? toGrantItem(Item) : putGrant(db, grant);
}

/** Whether `userId` was granted `skillId`: one consistent read, on the paid delivery path. */
export async function hasGrant(db: Db, skillId: string, userId: string): Promise<boolean> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: grantKey(skillId, userId), ConsistentRead: true }));
  return Item !== undefined;
}

/** Every grant of the skill, for its author's dashboard. */
export async function listGrants(db: Db, skillId: string): Promise<GrantItem[]> {
  return (await queryOwned(db, skillPartition(skillId))).map(toGrantItem);
}

/**
 * Revokes the grants listed under `login` (compared ignoring case, as logins are). The grantee's
 * next delivery is refused at once, since access reads the grant item consistently.
 */
export async function revokeGrant(db: Db, skillId: string, login: string): Promise<void> {
  if (!LOGIN_PATTERN.test(login)) throw notFound(`${login.slice(0, 64)} has no grant for this skill`);
  const found = await queryOwned(db, skillPartition(skillId), login.toLowerCase());
  if (found.length === 0) throw notFound(`${login} has no grant for this skill`);
  // More than one only if a login moved to another account between grants; revoke them all.
  await Promise.all(found.map((item) => db.doc.send(new DeleteCommand({ TableName: db.table, Key: { pk: item.pk, sk: item.sk } }))));
}

function toGrantItem(raw: Record<string, unknown>): GrantItem {
  return parseItem(grantItemSchema, raw, 'grant');
}
