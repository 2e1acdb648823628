import { notFound } from '#core/errors';
import { isAdmin } from '#core/moderation';
import {
  type Action,
  type Actor,
  ANONYMOUS,
  authorize,
  type Caller,
  type Credential,
  decide,
  ownerOf,
  refusal,
  skillResource,
  type ResourceOf,
  SCOPES,
  type SkillAction,
  type Verdict,
} from '#core/policy';
import type { Provenance } from '#core/provenance';
import type { User } from '#core/schemas';
import type { Deps } from '../platform/composition.ts';
import type { ApiKeyItem } from '../store/api-keys.ts';
import { type OrgItem, rolesOf } from '../store/orgs.ts';
import { getSkill, type SkillItem, standInSkill } from '../store/skills.ts';

/**
 * Where services ask the policy (core/policy.ts). They read what a decision needs to know about
 * the caller (their role in the organisation that owns what they touch) and ask; none of them
 * decides who may do what itself.
 */

/** A signed-in caller as the HTTP layer found them: the user, and the credential they came with. */
export interface Principal {
  user: User;
  credential: Credential;
  /** A CI publish token's: where what it publishes came from, as its OIDC exchange verified (docs/api.md §7.14). */
  provenance?: Provenance;
}

type Ports = Pick<Deps, 'db' | 'config'>;

/** The credential an API key gives: every scope and no narrowing for a key created without them. */
export function keyCredential(key: Pick<ApiKeyItem, 'scopes' | 'org' | 'skills'>): Credential {
  return {
    kind: 'api-key',
    scopes: key.scopes ?? SCOPES,
    ...(key.org === undefined ? {} : { org: key.org.toLowerCase() }),
    ...(key.skills ? { skills: key.skills } : {}),
  };
}

/**
 * The caller the policy weighs: anonymous, or `principal` with their roles in `orgs` (read now),
 * or with `roles` already read (from an organisation's item the service holds).
 */
export async function callerFor({ db, config }: Ports, principal: Principal | undefined, orgs: readonly string[] | Roles): Promise<Caller> {
  if (!principal) return ANONYMOUS;
  const roles = !Array.isArray(orgs) ? (orgs as Roles) : orgs.length === 0 ? {} : await rolesOf(db, principal.user.id, orgs);
  return actor(principal, roles, config.admins);
}

/** Roles by lower-case organisation login, as the policy reads them. */
export type Roles = Actor['roles'];

/** `userId`'s role in `org`, from its item, as {@link callerFor} takes it. */
export function rolesIn(org: Pick<OrgItem, 'login' | 'members'>, userId: string | undefined): Roles {
  const entry = userId !== undefined && Object.hasOwn(org.members, userId) ? org.members[userId] : undefined;
  return entry ? { [org.login.toLowerCase()]: entry.role } : {};
}

function actor(principal: Principal, roles: Actor['roles'], admins: readonly string[]): Actor {
  return {
    kind: 'user',
    userId: principal.user.id,
    login: principal.user.login,
    credential: principal.credential,
    admin: isAdmin(principal.user.login, admins),
    roles,
  };
}

/** The 404 of a skill asked for by id: the same words whether it does not exist or is hidden. */
export const missingSkill = (skillId: string) => `No skill with id ${skillId.slice(0, 128)}`;

/**
 * The organisations whose roles a decision about `skill` needs. For a skill that does not exist
 * the decision weighs {@link standInSkill}, whose organisation cannot exist: its read costs what
 * a hidden skill's does.
 */
export function orgsToRead(skill: SkillItem): string[] {
  const owner = ownerOf(skill);
  return owner.type === 'org' ? [owner.login] : [];
}

/**
 * Reads skill `skillId` and asks the policy whether `principal` may do `action` to it: 404 when
 * it does not exist or `principal` cannot see it (the same reads and the same answer either way),
 * else the policy's refusal, if any. Gives the skill and the caller as weighed.
 */
export async function skillFor(
  deps: Ports,
  principal: Principal | undefined,
  skillId: string,
  action: SkillAction | 'skill.report',
): Promise<{ skill: SkillItem; caller: Caller }> {
  return allowSkill(deps, principal, await getSkill(deps.db, skillId), skillId, action);
}

/**
 * {@link skillFor} for a skill already read (`skill` undefined: there is none). `missing` is the
 * 404's message, for a skill asked for by slug rather than id.
 */
export async function allowSkill(
  deps: Ports,
  principal: Principal | undefined,
  skill: SkillItem | undefined,
  skillId: string,
  action: SkillAction | 'skill.report',
  missing = missingSkill(skillId),
): Promise<{ skill: SkillItem; caller: Caller }> {
  // A missing skill is weighed as a hidden one, on the same path to the same answer: the policy
  // refuses the stand-in to everyone with the 404 it gives a private skill the caller cannot see.
  const weighed = skill ?? standInSkill();
  const caller = await callerFor(deps, principal, orgsToRead(weighed));
  authorize(caller, action, skillResource(weighed), missing);
  if (!skill) throw notFound(missing);
  return { skill, caller };
}

/** Whether `principal` may do `action` to `skill`, without throwing: for lists and for choosing between answers. */
export async function verdictOn(deps: Ports, principal: Principal | undefined, skill: SkillItem, action: SkillAction | 'skill.report'): Promise<Verdict> {
  return decide(await callerFor(deps, principal, orgsToRead(skill)), action, skillResource(skill));
}

/** Throws the refusal `verdict` gives, if it is one. */
export function refuse(verdict: Verdict, missing: string): void {
  if (!verdict.allowed) throw refusal(verdict, missing);
}

/** Asks the policy about anything but a skill, with the roles in `orgs` read first (or given). */
export async function allow<A extends Exclude<Action, SkillAction | 'skill.report'>>(
  deps: Ports,
  principal: Principal | undefined,
  action: A,
  resource: ResourceOf<A>,
  orgs: readonly string[] | Roles = [],
  missing = 'Not found',
): Promise<Caller> {
  const caller = await callerFor(deps, principal, orgs);
  authorize(caller, action, resource, missing);
  return caller;
}
