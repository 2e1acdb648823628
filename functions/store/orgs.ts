import { randomBytes } from 'node:crypto';
import * as z from 'zod/mini';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DomainError } from '#core/errors';
import { ROLES, type Role } from '#core/policy';
import { LOGIN_PATTERN } from '#core/login';
import type { User } from '#core/schemas';
import { type Db, getItems, isConditionFailed, parseItem, queryAll, queryOwned, writeIf } from './db.ts';
import { invitationKey, loginKey, membershipKey, orgKey, prefix, sortPrefix } from './keys.ts';
import { lazySchema } from '#core/lazy-schema';

/**
 * Organisations. One item, `ORG#<login>/ORG`, holds an organisation's members and their roles
 * with a count of its owners, so every change of role is one conditional write: the last owner
 * can never be demoted or removed, however changes race, without transactions. Beside it:
 * pending invitations (`ORG#<login>/INVITE#<user>`, listed for the invitee through the GSI) and,
 * in each member's partition, `USER#<user>/ORG#<login>`, which lists a user's organisations; it
 * is written after the organisation's item and checked against it, so a crash in between only
 * delays an organisation's appearance in a list. The login is claimed in the same `LOGIN#`
 * namespace as users' logins.
 */

const memberSchema = lazySchema(() => z.object({ login: z.string(), role: z.enum(ROLES), since: z.string() }));
export type MemberEntry = z.output<typeof memberSchema>;

const orgItemSchema = lazySchema(() =>
  z.object({
    login: z.string(),
    name: z.string(),
    createdAt: z.string(),
    /** The user id of its creator. */
    createdBy: z.string(),
    /** How many members are owners: never below one. */
    owners: z.number(),
    /**
     * How many skills it owns, counted up before a skill becomes its own and down after one leaves,
     * so an organisation is deleted only when it owns none, whatever races with the deletion.
     */
    skills: z._default(z.number(), 0),
    /** By user id. */
    members: z.record(z.string(), memberSchema),
    /** The login it had before a GitHub account took its login back (docs/api.md §4.8). */
    renamedFrom: z.optional(z.string()),
  }),
);
export type OrgItem = z.output<typeof orgItemSchema>;

const invitationSchema = lazySchema(() =>
  z.object({
    org: z.string(),
    userId: z.string(),
    login: z.string(),
    role: z.enum(ROLES),
    /** The login of the owner who invited. */
    invitedBy: z.string(),
    /** Their user id; absent on invitations made before it was recorded (then their login is looked up). */
    invitedById: z.optional(z.string()),
    createdAt: z.string(),
    /** Epoch seconds; also the table's TTL attribute (deletion is lazy: expiry is checked here). */
    expiresAt: z.number(),
  }),
);
export type InvitationItem = z.output<typeof invitationSchema>;

const invitationsPartition = (userId: string) => prefix.invitationsOf + userId;

/**
 * A login no organisation can have (logins start with a letter or a digit). Reading it costs what
 * reading a real organisation's roles costs, for paths that must take the same time whether the
 * thing asked for exists or not.
 */
export const NO_ORG = '-';

export async function getOrg(db: Db, login: string): Promise<OrgItem | undefined> {
  if (!LOGIN_PATTERN.test(login)) return undefined;
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: orgKey(login), ConsistentRead: true }));
  return Item && parseItem(orgItemSchema, Item, 'organisation');
}

/** Each of `logins` that is an organisation, in one batched read (in no particular order). */
export async function getOrgs(db: Db, logins: readonly string[]): Promise<OrgItem[]> {
  const found = await getItems(db, logins.filter((login) => LOGIN_PATTERN.test(login)).map(orgKey));
  return found.map((item) => parseItem(orgItemSchema, item, 'organisation'));
}

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

/**
 * Creates an organisation with `creator` as its one owner. Its login is claimed first, in the
 * namespace users' logins share (ignoring case): 409 `login_taken` when a user or another
 * organisation has it.
 */
export async function createOrg(db: Db, org: { login: string; name: string }, creator: User, now: Date): Promise<OrgItem> {
  const claimed = await writeIf(
    db,
    new PutCommand({ TableName: db.table, Item: { ...loginKey(org.login), orgLogin: org.login }, ConditionExpression: 'attribute_not_exists(pk)' }),
  );
  if (!claimed) throw loginTaken(org.login);
  const item: OrgItem = {
    login: org.login,
    name: org.name,
    createdAt: now.toISOString(),
    createdBy: creator.id,
    owners: 1,
    skills: 0,
    members: { [creator.id]: { login: creator.login, role: 'owner', since: now.toISOString() } },
  };
  try {
    await db.doc.send(new PutCommand({ TableName: db.table, Item: { ...orgKey(org.login), ...item }, ConditionExpression: 'attribute_not_exists(pk)' }));
  } catch (error) {
    await db.doc.send(new DeleteCommand({ TableName: db.table, Key: loginKey(org.login) })).catch(() => undefined);
    if (isConditionFailed(error)) throw loginTaken(org.login);
    throw error;
  }
  await putMembership(db, creator.id, org.login);
  return item;
}

/**
 * The organisation `org` becomes under a new login, a GitHub account having taken its login back:
 * the first free of `<login>-org`, `<login>-org-2`, `<login>-org-3`, then `<login>-org-<random>`,
 * claimed as any organisation's login is; or the one a rename of `org` begun before made (a rename
 * cut short is resumed, never begun twice). Its item is `org`'s under the new login, with
 * `renamedFrom` and no skill yet (they move one by one, counted in as they come); each member's
 * pointer to it is written.
 */
export async function createRenamedOrg(db: Db, org: OrgItem): Promise<OrgItem> {
  const base = org.login.slice(0, 30).replace(/-+$/, '');
  const suffixes = ['-org', '-org-2', '-org-3', ...Array.from({ length: 5 }, () => `-org-${randomBytes(3).toString('hex')}`)];
  for (const login of suffixes.map((suffix) => base + suffix)) {
    const claimed = await writeIf(
      db,
      new PutCommand({ TableName: db.table, Item: { ...loginKey(login), orgLogin: login }, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
    const existing = claimed ? undefined : await getOrg(db, login);
    if (!claimed && existing?.renamedFrom?.toLowerCase() !== org.login.toLowerCase()) continue;
    const renamed: OrgItem = existing ?? { ...org, login, skills: 0, renamedFrom: org.login };
    if (!existing)
      await db.doc.send(new PutCommand({ TableName: db.table, Item: { ...orgKey(login), ...renamed }, ConditionExpression: 'attribute_not_exists(pk)' }));
    await Promise.all(Object.keys(org.members).map((userId) => putMembership(db, userId, login)));
    return renamed;
  }
  throw new Error(`no free login to rename the organisation ${org.login} to`);
}

export const loginTaken = (login: string) =>
  new DomainError('login_taken', `The login ${login} is taken: users and organisations share one namespace, and ${login} is in use`);

/**
 * Adds a member with `role`; false when they already are one (their role stays), or when
 * `vouchedBy` is given and that member's role is no longer the one given (who invited them was
 * demoted or removed meanwhile). Writes the entry in the organisation's item first, then the
 * member's pointer to it.
 */
export async function addMember(
  db: Db,
  org: string,
  member: Pick<User, 'id' | 'login'>,
  role: Role,
  now: Date,
  vouchedBy?: { userId: string; role: Role },
): Promise<boolean> {
  const entry: MemberEntry = { login: member.login, role, since: now.toISOString() };
  const added = await writeIf(
    db,
    new UpdateCommand({
      TableName: db.table,
      Key: orgKey(org),
      UpdateExpression: 'SET #members.#user = :entry, #owners = #owners + :owners',
      ConditionExpression: `attribute_exists(pk) AND attribute_not_exists(#members.#user)${vouchedBy ? ' AND #members.#voucher.#role = :voucherRole' : ''}`,
      ExpressionAttributeNames: {
        '#members': 'members',
        '#user': member.id,
        '#owners': 'owners',
        ...(vouchedBy ? { '#voucher': vouchedBy.userId, '#role': 'role' } : {}),
      },
      ExpressionAttributeValues: { ':entry': entry, ':owners': role === 'owner' ? 1 : 0, ...(vouchedBy ? { ':voucherRole': vouchedBy.role } : {}) },
    }),
  );
  if (added) await putMembership(db, member.id, org);
  return added;
}

/** What a change of role or a removal came to. */
export type MemberChange = 'done' | 'last_owner' | 'changed';

/**
 * Changes a member's role from `from` to `to`. `last_owner` when it would leave no owner;
 * `changed` when their role is no longer `from` (a concurrent change: read again and retry).
 */
export async function setRole(db: Db, org: string, userId: string, from: Role, to: Role): Promise<MemberChange> {
  if (from === to) return 'done';
  const delta = (to === 'owner' ? 1 : 0) - (from === 'owner' ? 1 : 0);
  return memberWrite(
    db,
    org,
    userId,
    from,
    new UpdateCommand({
      TableName: db.table,
      Key: orgKey(org),
      UpdateExpression: 'SET #members.#user.#role = :to, #owners = #owners + :delta',
      ConditionExpression: `#members.#user.#role = :from${delta < 0 ? ' AND #owners > :one' : ''}`,
      ExpressionAttributeNames: { '#members': 'members', '#user': userId, '#role': 'role', '#owners': 'owners' },
      ExpressionAttributeValues: { ':to': to, ':from': from, ':delta': delta, ...(delta < 0 ? { ':one': 1 } : {}) },
    }),
  );
}

/** Removes a member whose role is `role`, then their pointer to the organisation; as {@link setRole}. */
export async function removeMember(db: Db, org: string, userId: string, role: Role): Promise<MemberChange> {
  const owner = role === 'owner';
  const outcome = await memberWrite(
    db,
    org,
    userId,
    role,
    new UpdateCommand({
      TableName: db.table,
      Key: orgKey(org),
      UpdateExpression: 'REMOVE #members.#user SET #owners = #owners - :owners',
      ConditionExpression: `#members.#user.#role = :role${owner ? ' AND #owners > :one' : ''}`,
      ExpressionAttributeNames: { '#members': 'members', '#user': userId, '#role': 'role', '#owners': 'owners' },
      ExpressionAttributeValues: { ':role': role, ':owners': owner ? 1 : 0, ...(owner ? { ':one': 1 } : {}) },
    }),
  );
  if (outcome === 'done') await db.doc.send(new DeleteCommand({ TableName: db.table, Key: membershipKey(userId, org) }));
  return outcome;
}

async function memberWrite(db: Db, org: string, userId: string, from: Role, write: UpdateCommand): Promise<MemberChange> {
  if (await writeIf(db, write)) return 'done';
  const role = (await rolesOf(db, userId, [org]))[org.toLowerCase()];
  return role === from ? 'last_owner' : 'changed';
}

async function putMembership(db: Db, userId: string, org: string): Promise<void> {
  await db.doc.send(new PutCommand({ TableName: db.table, Item: { ...membershipKey(userId, org), org: org.toLowerCase() } }));
}

/**
 * The organisations `userId` belongs to, as their items say (a pointer whose organisation does
 * not list them, left by a crash or a removal half done, is skipped).
 */
export async function orgsOf(db: Db, userId: string): Promise<OrgItem[]> {
  const pointers = await queryAll(db, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :org)',
    ExpressionAttributeValues: { ':pk': prefix.user + userId, ':org': sortPrefix.membership },
    ConsistentRead: true,
  });
  const logins = pointers.map((item) => String(item.sk).slice(sortPrefix.membership.length));
  return (await getOrgs(db, logins)).filter((org) => Object.hasOwn(org.members, userId));
}

/** Invites a user (again: the role and the expiry are replaced). */
export async function putInvitation(db: Db, invitation: InvitationItem): Promise<void> {
  await db.doc.send(
    new PutCommand({
      TableName: db.table,
      Item: {
        ...invitationKey(invitation.org, invitation.userId),
        ...invitation,
        gsi1pk: invitationsPartition(invitation.userId),
        gsi1sk: `${invitation.createdAt}#${invitation.org.toLowerCase()}`,
      },
    }),
  );
}

/** A live invitation of `userId` into `org`; undefined when there is none or it has expired. */
export async function getInvitation(db: Db, org: string, userId: string, now: Date): Promise<InvitationItem | undefined> {
  const { Item } = await db.doc.send(new GetCommand({ TableName: db.table, Key: invitationKey(org, userId), ConsistentRead: true }));
  const invitation = Item && parseItem(invitationSchema, Item, 'invitation');
  return invitation && live(invitation, now) ? invitation : undefined;
}

/** Deletes an invitation; false when there was none. */
export async function deleteInvitation(db: Db, org: string, userId: string): Promise<boolean> {
  return writeIf(db, new DeleteCommand({ TableName: db.table, Key: invitationKey(org, userId), ConditionExpression: 'attribute_exists(pk)' }));
}

/** An organisation's live invitations. */
export async function invitationsOfOrg(db: Db, org: string, now: Date): Promise<InvitationItem[]> {
  const items = await queryAll(db, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :invite)',
    ExpressionAttributeValues: { ':pk': orgKey(org).pk, ':invite': sortPrefix.invitation },
    ConsistentRead: true,
  });
  return items.map((item) => parseItem(invitationSchema, item, 'invitation')).filter((invitation) => live(invitation, now));
}

/** A user's live invitations, from the GSI (which follows writes within about a second). */
export async function invitationsOfUser(db: Db, userId: string, now: Date): Promise<InvitationItem[]> {
  const items = await queryOwned(db, invitationsPartition(userId));
  return items.map((item) => parseItem(invitationSchema, item, 'invitation')).filter((invitation) => live(invitation, now));
}

const live = (invitation: InvitationItem, now: Date) => invitation.expiresAt * 1000 > now.getTime();

/**
 * Counts a skill in (`+1`, before it becomes the organisation's: false when the organisation is
 * gone) or out (`-1`, after it left, or to undo a count in whose skill never arrived).
 */
export async function countSkill(db: Db, org: string, delta: 1 | -1): Promise<boolean> {
  return writeIf(
    db,
    new UpdateCommand({
      TableName: db.table,
      Key: orgKey(org),
      UpdateExpression: 'SET #skills = if_not_exists(#skills, :zero) + :delta',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#skills': 'skills' },
      ExpressionAttributeValues: { ':zero': 0, ':delta': delta },
    }),
  );
}

/**
 * Deletes an organisation if it owns no skill (false when it does): its item first, on that
 * condition, then its invitations, its members' pointers and its login claim (the login is free
 * again). Its audit log is the caller's to delete.
 */
export async function deleteOrg(db: Db, org: OrgItem): Promise<boolean> {
  const deleted = await writeIf(
    db,
    new DeleteCommand({
      TableName: db.table,
      Key: orgKey(org.login),
      ConditionExpression: 'attribute_not_exists(#skills) OR #skills <= :zero',
      ExpressionAttributeNames: { '#skills': 'skills' },
      ExpressionAttributeValues: { ':zero': 0 },
    }),
  );
  if (!deleted) return false;
  const invitations = await queryAll(db, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :invite)',
    ExpressionAttributeValues: { ':pk': orgKey(org.login).pk, ':invite': sortPrefix.invitation },
  });
  await Promise.all(invitations.map((item) => db.doc.send(new DeleteCommand({ TableName: db.table, Key: { pk: item.pk, sk: item.sk } }))));
  await Promise.all(Object.keys(org.members).map((userId) => db.doc.send(new DeleteCommand({ TableName: db.table, Key: membershipKey(userId, org.login) }))));
  await writeIf(db, new DeleteCommand({ TableName: db.table, Key: loginKey(org.login), ConditionExpression: 'attribute_exists(orgLogin)' }));
  return true;
}
