import type * as z from 'zod/mini';
import { DomainError, notFound } from '#core/errors';
import { limits } from '#core/limits';
import { isAdmin } from '#core/moderation';
import type { invitationSchema, memberSchema, orgSchema } from '#core/organisations';
import { canSee, decide, isPublicListing, type Role, SESSION, sameLogin, skillResource } from '#core/policy';
import { LOGIN_PATTERN } from '#core/login';
import type { Deps } from '../platform/composition.ts';
import { auditPage } from '../store/audit.ts';
import { returnSlot, takeSlot } from '../store/rate-limit.ts';
import { rateWindow } from './rate-windows.ts';
import { record } from './audit.ts';
import {
  addMember,
  createOrg,
  deleteInvitation,
  deleteOrg,
  getInvitation,
  getOrg,
  getOrgs,
  type InvitationItem,
  invitationsOfOrg,
  invitationsOfUser,
  type OrgItem,
  orgsOf,
  putInvitation,
  removeMember,
  setRole,
} from '../store/orgs.ts';
import { listSkillsByOrg } from '../store/skills.ts';
import { findUserByLogin } from '../store/users.ts';
import { allow, callerFor, type Principal, rolesIn } from './authorization.ts';
import { toOwnSkill, toSkill } from './skill-views.ts';

/**
 * Organisations (docs/api.md §7.12): created by a signed-in user, who becomes their first owner;
 * joined by invitation, which only the invitee may accept; run by their owners. Every decision
 * is the policy's (core/policy.ts); every change an owner or a member makes is written to the
 * organisation's audit log once it has happened.
 */
type Ports = Pick<Deps, 'db' | 'clock' | 'config' | 'log'>;

type Org = z.output<typeof orgSchema>;
type Member = z.output<typeof memberSchema>;
type Invitation = z.output<typeof invitationSchema>;

const missingOrg = (login: string) => `No organisation ${login.slice(0, 39)}`;

/** The organisation `login`, or 404. */
async function orgNamed(deps: Ports, login: string): Promise<OrgItem> {
  const org = LOGIN_PATTERN.test(login) ? await getOrg(deps.db, login) : undefined;
  if (!org) throw notFound(missingOrg(login));
  return org;
}

/**
 * A new organisation, with its creator as its one owner. 409 `login_taken` when a user or an
 * organisation has the login; 429 past the creator's limit of new organisations (a refused
 * creation spends no slot), so nobody sweeps the namespace of logins in a second.
 */
export async function createOrganisation(deps: Ports, principal: Principal, body: { login: string; name: string }): Promise<Org> {
  const window = rateWindow(deps.config, 'org');
  const slot = await takeSlot(deps.db, principal.user.id, deps.clock(), window);
  let org: OrgItem;
  try {
    org = await createOrg(deps.db, body, principal.user, deps.clock());
  } catch (error) {
    await returnSlot(deps.db, principal.user.id, slot.stamp, window).catch(() => undefined);
    throw error;
  }
  return { login: org.login, name: org.name, createdAt: org.createdAt, role: 'owner', skills: [] };
}

/**
 * An organisation as the caller may see it: its login, name and listed skills (public, not
 * quarantined: what the catalog lists) to anyone; to its members, their role and its private and
 * quarantined skills too, with the quarantine's reason, which is the owning side's to read.
 */
export async function organisation(deps: Ports, principal: Principal | undefined, login: string): Promise<Org> {
  const org = await orgNamed(deps, login);
  const [caller, skills] = await Promise.all([callerFor(deps, principal, rolesIn(org, principal?.user.id)), listSkillsByOrg(deps.db, org.login)]);
  const role = principal ? org.members[principal.user.id]?.role : undefined;
  const shown = role
    ? skills.filter((skill) => canSee(caller, skillResource(skill))).map(toOwnSkill)
    : skills.filter((skill) => isPublicListing(skill)).map(toSkill);
  return {
    login: org.login,
    name: org.name,
    createdAt: org.createdAt,
    ...(role ? { role } : {}),
    skills: shown.reverse(),
  };
}

/** The organisations the caller belongs to, with their role in each: for the dashboard's switcher. */
export async function myOrganisations(deps: Ports, principal: Principal) {
  const orgs = await orgsOf(deps.db, principal.user.id);
  return orgs.map((org) => ({ login: org.login, name: org.name, role: org.members[principal.user.id]!.role })).sort((a, b) => byLogin(a.login, b.login));
}

export async function members(deps: Ports, principal: Principal, login: string): Promise<Member[]> {
  const org = await orgNamed(deps, login);
  await allow(deps, principal, 'org.read_members', { kind: 'org', login: org.login }, rolesIn(org, principal.user.id));
  return Object.values(org.members)
    .map(({ login: member, role, since }) => ({ login: member, role, since }))
    .sort((a, b) => byLogin(a.login, b.login));
}

/**
 * Invites a user who has signed in at least once (404 otherwise) with `role`; again, the role
 * and the expiry are replaced. 409 `already_member` for a member; 409 `org_full` past the
 * limit of members and pending invitations.
 */
export async function invite(deps: Ports, principal: Principal, login: string, body: { login: string; role: Role }): Promise<Invitation> {
  const org = await orgNamed(deps, login);
  await allow(deps, principal, 'org.manage_members', { kind: 'org', login: org.login }, rolesIn(org, principal.user.id));
  const invitee = await findUserByLogin(deps.db, body.login);
  if (!invitee) throw notFound(`No user ${body.login}; they need to sign in once before they can be invited`);
  if (Object.hasOwn(org.members, invitee.id)) throw new DomainError('already_member', `${invitee.login} is already a member of ${org.login}`);
  const pending = await invitationsOfOrg(deps.db, org.login, deps.clock());
  if (Object.keys(org.members).length + pending.filter((i) => i.userId !== invitee.id).length >= limits.orgMembers) {
    throw new DomainError('org_full', `${org.login} has ${limits.orgMembers} members and invitations, the most an organisation may have`);
  }
  const now = deps.clock();
  const invitation: InvitationItem = {
    org: org.login,
    userId: invitee.id,
    login: invitee.login,
    role: body.role,
    invitedBy: principal.user.login,
    invitedById: principal.user.id,
    createdAt: now.toISOString(),
    expiresAt: Math.floor(now.getTime() / 1000) + limits.invitationDays * 86_400,
  };
  await putInvitation(deps.db, invitation);
  await record(deps, org.login, principal, 'invitation.created', invitee.login, { role: body.role });
  return invitationOut(invitation);
}

/** The organisation's pending invitations, for its owners. */
export async function invitations(deps: Ports, principal: Principal, login: string): Promise<Invitation[]> {
  const org = await orgNamed(deps, login);
  await allow(deps, principal, 'org.manage_members', { kind: 'org', login: org.login }, rolesIn(org, principal.user.id));
  return (await standingInvitations(deps, [org], await invitationsOfOrg(deps.db, org.login, deps.clock()))).sort(newestFirst).map(invitationOut);
}

/**
 * Who vouches for an invitation: its inviter, while they may still invite into `org` (the policy
 * asked with the item read), with the role they have there; undefined once they may not (removed,
 * demoted), and the invitation holds no more. An owner's invitations are theirs to stand by: a
 * removed owner leaves none that a friend's account could accept to take the organisation back.
 */
async function voucherOf(deps: Ports, org: OrgItem, invitation: InvitationItem): Promise<{ userId: string; role: Role } | undefined> {
  const userId = invitation.invitedById ?? (await findUserByLogin(deps.db, invitation.invitedBy))?.id;
  if (userId === undefined) return undefined;
  const inviter = { user: { id: userId, login: invitation.invitedBy }, credential: SESSION };
  const caller = await callerFor(deps, inviter, rolesIn(org, userId));
  if (!decide(caller, 'org.manage_members', { kind: 'org', login: org.login }).allowed) return undefined;
  return { userId, role: org.members[userId]!.role };
}

/** The invitations of `invitations` that hold: those whose inviter may still invite (their organisations are among `orgs`). */
async function standingInvitations(deps: Ports, orgs: readonly OrgItem[], invitations: InvitationItem[]): Promise<InvitationItem[]> {
  const byLogin = new Map(orgs.map((org) => [org.login.toLowerCase(), org]));
  const held = await Promise.all(
    invitations.map(async (invitation) => {
      const org = byLogin.get(invitation.org.toLowerCase());
      return org !== undefined && (await voucherOf(deps, org, invitation)) !== undefined;
    }),
  );
  return invitations.filter((_, i) => held[i]);
}

/** Withdraws the invitation of `invitee` (an owner's change of mind: it can no longer be accepted). */
export async function revokeInvitation(deps: Ports, principal: Principal, login: string, invitee: string): Promise<void> {
  const org = await orgNamed(deps, login);
  await allow(deps, principal, 'org.manage_members', { kind: 'org', login: org.login }, rolesIn(org, principal.user.id));
  const user = LOGIN_PATTERN.test(invitee) ? await findUserByLogin(deps.db, invitee) : undefined;
  if (!user || !(await deleteInvitation(deps.db, org.login, user.id))) throw notFound(`No invitation of ${invitee.slice(0, 39)} to ${org.login}`);
  await record(deps, org.login, principal, 'invitation.revoked', user.login);
}

/** The caller's pending invitations, newest first. */
export async function myInvitations(deps: Ports, principal: Principal): Promise<Invitation[]> {
  const invitations = await invitationsOfUser(deps.db, principal.user.id, deps.clock());
  const orgs = await getOrgs(deps.db, [...new Set(invitations.map((invitation) => invitation.org))]);
  return (await standingInvitations(deps, orgs, invitations)).sort(newestFirst).map(invitationOut);
}

/**
 * The invitee accepts (`accept` true) or declines. Only the invited user's session may: anyone
 * else is told there is no such invitation, as for an expired or missing one.
 */
export async function answerInvitation(deps: Ports, principal: Principal, login: string, invitee: string, accept: boolean): Promise<Member | undefined> {
  const org = await orgNamed(deps, login);
  const missing = `No invitation of ${invitee.slice(0, 39)} to ${org.login}`;
  const inviteeId = sameLogin(invitee, principal.user.login) ? principal.user.id : `not:${invitee}`;
  await allow(deps, principal, 'invitation.answer', { kind: 'invitation', org: org.login, inviteeId }, [], missing);
  const invitation = await getInvitation(deps.db, org.login, principal.user.id, deps.clock());
  if (!invitation) throw notFound(missing);
  if (!accept) {
    if (!(await deleteInvitation(deps.db, org.login, principal.user.id))) throw notFound(missing);
    await record(deps, org.login, principal, 'invitation.declined', principal.user.login, { role: invitation.role });
    return undefined;
  }
  const voucher = await voucherOf(deps, org, invitation);
  if (!voucher) throw notFound(missing);
  const now = deps.clock();
  // Added only if the inviter's role is still the one that let them invite, whatever raced with this.
  if (!(await addMember(deps.db, org.login, principal.user, invitation.role, now, voucher))) {
    const current = await getOrg(deps.db, org.login);
    if (!current || !Object.hasOwn(current.members, principal.user.id)) throw notFound(missing);
    await deleteInvitation(deps.db, org.login, principal.user.id);
    throw new DomainError('already_member', `You are already a member of ${org.login}`);
  }
  await deleteInvitation(deps.db, org.login, principal.user.id);
  await record(deps, org.login, principal, 'invitation.accepted', principal.user.login, { role: invitation.role });
  return { login: principal.user.login, role: invitation.role, since: now.toISOString() };
}

/** An owner changes a member's role. 409 `last_owner` when that would leave the organisation without an owner. */
export async function changeRole(deps: Ports, principal: Principal, login: string, memberLogin: string, role: Role): Promise<Member> {
  let org = await orgNamed(deps, login);
  await allow(deps, principal, 'org.manage_members', { kind: 'org', login: org.login }, rolesIn(org, principal.user.id));
  for (let attempt = 0; ; attempt++) {
    const [userId, member] = memberNamed(org, memberLogin);
    const outcome = await setRole(deps.db, org.login, userId, member.role, role);
    if (outcome === 'done') {
      if (member.role !== role) await record(deps, org.login, principal, 'member.role_changed', member.login, { from: member.role, to: role });
      return { login: member.login, role, since: member.since };
    }
    if (outcome === 'last_owner') throw lastOwner(org.login);
    // Someone changed the same member meanwhile: read again and decide on what stands.
    if (attempt === 2) throw new DomainError('last_owner', `The roles of ${org.login} are changing; try again`);
    org = await orgNamed(deps, login);
  }
}

/**
 * Removes a member: an owner removes anyone, a member removes themselves (leaves). 409
 * `last_owner` for the organisation's last owner. Their keys stop reaching the organisation's
 * private skills at once: every request reads their role afresh.
 */
export async function removeFromOrg(deps: Ports, principal: Principal, login: string, memberLogin: string): Promise<void> {
  let org = await orgNamed(deps, login);
  const self = sameLogin(memberLogin, principal.user.login);
  await allow(deps, principal, self ? 'org.leave' : 'org.manage_members', { kind: 'org', login: org.login }, rolesIn(org, principal.user.id));
  for (let attempt = 0; ; attempt++) {
    const [userId, member] = memberNamed(org, memberLogin);
    const outcome = await removeMember(deps.db, org.login, userId, member.role);
    if (outcome === 'done') {
      await record(deps, org.login, principal, 'member.removed', member.login, { role: member.role });
      return;
    }
    if (outcome === 'last_owner') throw lastOwner(org.login);
    if (attempt === 2) throw new DomainError('last_owner', `The roles of ${org.login} are changing; try again`);
    org = await orgNamed(deps, login);
  }
}

/**
 * Deletes an organisation that owns no skill (409 `org_not_empty` otherwise); its login is free
 * again. Its audit log stays, ended by `org.deleted`: what was done in it can still be looked into.
 */
export async function deleteOrganisation(deps: Ports, principal: Principal, login: string): Promise<void> {
  const org = await orgNamed(deps, login);
  await allow(deps, principal, 'org.delete', { kind: 'org', login: org.login }, rolesIn(org, principal.user.id));
  if (!(await deleteOrg(deps.db, org))) {
    throw new DomainError('org_not_empty', `${org.login} still owns skills: transfer them to another organisation first`);
  }
  await record(deps, org.login, principal, 'org.deleted', org.login, { createdAt: org.createdAt });
}

/**
 * A page of the audit log of the organisation `login`, newest first: to its owners, its own
 * entries (from its creation on); to admins, every entry of the login, of the organisations of it
 * that were deleted too (a deleted organisation's log is theirs to read).
 */
export async function auditLog(deps: Ports, principal: Principal, login: string, cursor: string | undefined) {
  const org = LOGIN_PATTERN.test(login) ? await getOrg(deps.db, login) : undefined;
  const admin = isAdmin(principal.user.login, deps.config.admins);
  if (!org && !admin) throw notFound(missingOrg(login));
  const caller = await allow(deps, principal, 'org.read_audit', { kind: 'org', login: org?.login ?? login }, org ? rolesIn(org, principal.user.id) : {});
  const whole = caller.kind === 'user' && caller.admin;
  return auditPage(deps.db, org?.login ?? login, cursor, limits.auditPage, whole ? undefined : org!.createdAt);
}

function memberNamed(org: OrgItem, login: string): [string, OrgItem['members'][string]] {
  const found = Object.entries(org.members).find(([, member]) => sameLogin(member.login, login));
  if (!found) throw notFound(`${login.slice(0, 39)} is not a member of ${org.login}`);
  return found;
}

const lastOwner = (org: string) =>
  new DomainError('last_owner', `That would leave ${org} without an owner: make another member an owner first (or delete the organisation)`);

function invitationOut(invitation: InvitationItem): Invitation {
  return {
    org: invitation.org,
    login: invitation.login,
    role: invitation.role,
    invitedBy: invitation.invitedBy,
    createdAt: invitation.createdAt,
    expiresAt: new Date(invitation.expiresAt * 1000).toISOString(),
  };
}

const newestFirst = (a: InvitationItem, b: InvitationItem) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0);
const byLogin = (a: string, b: string) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0);
