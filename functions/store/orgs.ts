import * as z from 'zod/mini';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ROLES, type Role } from '#core/policy';
import type { Db } from './db.ts';
import { orgKey } from './keys.ts';

/**
 * Organisations. One item, `ORG#<login>/ORG`, holds an organisation's members and their roles,
 * by user id.
 */

const memberSchema = z.object({ login: z.string(), role: z.enum(ROLES), since: z.string() });

/**
 * A login no organisation can have (logins start with a letter or a digit). Reading it costs what
 * reading a real organisation's roles costs, for paths that must take the same time whether the
 * thing asked for exists or not.
 */
export const NO_ORG = '-';

/**
 * `userId`'s role in each of `orgs` (lower-case logins as keys; absent where not a member): one
 * consistent read per organisation of that member's entry alone. {@link NO_ORG} is read like any
 * other and is never a membership.
 */
export async function rolesOf(db: Db, userId: string, orgs: readonly string[]): Promise<Record<string, Role>> {
  const roles: Record<string, Role> = {};
  await Promise.all(
    [...new Set(orgs.map((org) => org.toLowerCase()))].map(async (org) => {
      const { Item } = await db.doc.send(
        new GetCommand({
          TableName: db.table,
          Key: orgKey(org),
          ConsistentRead: true,
          ProjectionExpression: '#members.#user',
          ExpressionAttributeNames: { '#members': 'members', '#user': userId },
        }),
      );
      const entry = (Item?.members as Record<string, unknown> | undefined)?.[userId];
      const parsed = memberSchema.safeParse(entry);
      if (parsed.success) roles[org] = parsed.data.role;
    }),
  );
  return roles;
}
