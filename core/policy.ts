import { DomainError, notFound, unauthenticated } from './errors.ts';

/**
 * Who may do what (docs/architecture.md, "The policy"). Every "may this caller do this to that?"
 * in the service is a call to {@link decide}: a pure function of the caller, the action and the
 * resource. Routes and services gather the facts (the skill, the caller's role in the org that
 * owns it, the credential's scopes) and ask; none of them re-derives a rule. A private skill's
 * `not_found` is decided here too, so every path answers a stranger alike.
 *
 * A decision weighs, in this order:
 * 1. visibility: a private skill exists only for the members of its org, through a credential
 *    that reaches it; anyone else is told `not_found`, as for a skill that does not exist;
 * 2. the credential: its scopes (`publish`, `manage`, `read`) and its reach (an org, or some
 *    skills), whatever the user behind it may do: `insufficient_scope`, naming the scope;
 * 3. the user: the author of a user-owned skill, or a role in the org that owns it: `forbidden`.
 */

export const ROLES = ['owner', 'maintainer', 'member'] as const;
/** A member's role in an organisation: owners run it, maintainers publish, members install. */
export type Role = (typeof ROLES)[number];

export const SCOPES = ['publish', 'manage', 'read'] as const;
/**
 * What a credential may be used for: `publish` new skills and versions; `manage` them (yank,
 * deprecate, price, visibility, transfer, access, and an org's members); `read` private skills
 * and what only the owning side sees (analytics, reports, sales).
 */
export type Scope = (typeof SCOPES)[number];

/** Who owns a skill: a user (the author) or an organisation. Logins are compared ignoring case. */
export interface Owner {
  type: 'user' | 'org';
  login: string;
}

export type Visibility = 'public' | 'private';

/**
 * What a credential lets its holder do at most. A session and an API key created without scopes
 * carry every scope and no narrowing (everything the user may do); a narrowed key reaches one
 * org (and nothing user-owned) or some skills; a short-lived publish token is a credential of
 * its own kind with `publish` alone, narrowed to skills: the skills whose trusted publishers named
 * the CI workflow it was exchanged for, which it may publish new versions of and nothing else.
 */
export interface Credential {
  kind: 'session' | 'api-key' | 'publish-token';
  scopes: readonly Scope[];
  /** Reaches only this organisation (lower-case login) and its skills. */
  org?: string;
  /** Reaches only these skills (ids). */
  skills?: readonly string[];
}

/** A browser session: the user, whole. */
export const SESSION: Credential = { kind: 'session', scopes: SCOPES };

/** A signed-in caller: the user, the credential they came with, and the facts a decision needs about them. */
export interface Actor {
  kind: 'user';
  userId: string;
  login: string;
  credential: Credential;
  /** Named in SKILLPRESS_ADMINS. */
  admin: boolean;
  /**
   * The caller's role in each organisation the decision is about, by lower-case login, as the
   * service read it for this request. An organisation missing here is one the caller is not a
   * member of.
   */
  roles: Readonly<Record<string, Role>>;
}

/** A caller with no credential, or with one that does not count where it was sent. */
export const ANONYMOUS = { kind: 'anonymous' } as const;
export type Caller = Actor | typeof ANONYMOUS;

export interface SkillResource {
  kind: 'skill';
  id: string;
  owner: Owner;
  /** The user who published it first: the owner of a user-owned skill. */
  authorId: string;
  visibility: Visibility;
}

export interface OrgResource {
  kind: 'org';
  /** The organisation's login, any case. */
  login: string;
}

/** A user's own account: what they own themselves (new user-owned skills, their keys). */
export interface AccountResource {
  kind: 'account';
  userId: string;
}

export interface InvitationResource {
  kind: 'invitation';
  org: string;
  /** The user invited. */
  inviteeId: string;
}

/** The registry as a whole: what admins alone do. */
export interface RegistryResource {
  kind: 'registry';
}

interface SkillRule {
  scope: Scope;
  /** The author of a user-owned skill may. */
  author: boolean;
  /** These roles in the owning organisation may. */
  roles: readonly Role[];
  /** Admins may too. */
  admin?: boolean;
  /** For messages: "may <what>". */
  what: string;
}

const EVERYONE: readonly Role[] = ROLES;
const RUNNERS: readonly Role[] = ['owner', 'maintainer'];
const OWNERS: readonly Role[] = ['owner'];

/**
 * What may be done to a skill, and by whom. Reading a public skill is open to everyone and is
 * not in this table; reporting is the one action its owning side may not take ({@link decide}).
 */
const skillRules = {
  /** A private skill's registry documents and deliveries. */
  'skill.read': { scope: 'read', author: true, roles: EVERYONE, what: 'install it' },
  'skill.publish_version': { scope: 'publish', author: true, roles: RUNNERS, what: 'publish its versions' },
  /** Which CI workflows may publish it (trusted publishers, docs/api.md §7.14). */
  'skill.manage_publishers': { scope: 'manage', author: true, roles: RUNNERS, what: 'manage its trusted publishers' },
  'skill.yank': { scope: 'manage', author: true, roles: RUNNERS, what: 'yank its versions' },
  'skill.deprecate': { scope: 'manage', author: true, roles: RUNNERS, what: 'deprecate it' },
  'skill.set_price': { scope: 'manage', author: true, roles: OWNERS, what: 'change its price' },
  'skill.set_visibility': { scope: 'manage', author: true, roles: OWNERS, what: 'change its visibility' },
  'skill.transfer': { scope: 'manage', author: true, roles: OWNERS, what: 'transfer it' },
  /** Download tokens (listing, revoking, minting ones bound to nothing) and grants. */
  'skill.manage_access': { scope: 'manage', author: true, roles: OWNERS, what: 'manage who may download it' },
  'skill.read_sales': { scope: 'read', author: true, roles: OWNERS, what: 'see its sales' },
  'skill.read_analytics': { scope: 'read', author: true, roles: EVERYONE, what: 'read its analytics' },
  'skill.read_reports': { scope: 'read', author: true, roles: RUNNERS, admin: true, what: 'read its reports' },
  /** Installing a paid skill without buying it: its owning side. */
  'skill.use_unpaid': { scope: 'read', author: true, roles: EVERYONE, what: 'install it without buying it' },
} as const satisfies Record<string, SkillRule>;

interface OrgRule {
  scope?: Scope;
  /** These roles may; undefined: anyone. */
  roles?: readonly Role[];
  /** Admins may too (of an organisation deleted since, as of a live one). */
  admin?: boolean;
  /** Only with a browser session: who may do what is changed by people, never by a key. */
  sessionOnly?: boolean;
  what: string;
}

const orgRules = {
  /** Its public face: login, name, public skills. */
  'org.read': { what: 'see it' },
  'org.read_members': { scope: 'read', roles: EVERYONE, what: 'list its members' },
  'org.read_audit': { scope: 'read', roles: OWNERS, admin: true, what: 'read its audit log' },
  /** Invitations, roles and removals of others. */
  'org.manage_members': { scope: 'manage', roles: OWNERS, sessionOnly: true, what: 'manage its members' },
  /** Removing oneself. */
  'org.leave': { scope: 'manage', roles: EVERYONE, sessionOnly: true, what: 'leave it' },
  'org.delete': { scope: 'manage', roles: OWNERS, sessionOnly: true, what: 'delete it' },
  'org.create_skill': { scope: 'publish', roles: RUNNERS, what: 'publish skills into it' },
  /** Receiving a user-owned skill from its author. */
  'org.receive_from_user': { scope: 'manage', roles: RUNNERS, what: 'transfer skills into it' },
  /** Receiving a skill from another organisation (whose owners must agree: `skill.transfer`). */
  'org.receive_from_org': { scope: 'manage', roles: OWNERS, what: 'transfer skills into it from another organisation' },
  /** Creating an API key narrowed to it. */
  'org.narrow_key': { roles: EVERYONE, sessionOnly: true, what: 'create keys narrowed to it' },
} as const satisfies Record<string, OrgRule>;

interface AccountRule {
  scope: Scope;
  sessionOnly?: boolean;
  /** A narrowed key may do it too: it touches nothing the key's reach limits. */
  anyReach?: boolean;
  what: string;
}

const accountRules = {
  /** A new skill owned by the caller. */
  'account.create_skill': { scope: 'publish', what: 'publish skills of your own' },
  /** Reading the appeals one filed. */
  'account.read_appeals': { scope: 'publish', what: 'see your appeals' },
  /** Filing one: then the publish it stands for is checked as that publish would be. */
  'account.file_appeal': { scope: 'publish', anyReach: true, what: 'appeal a refused version' },
  /**
   * Sending a file ahead of a publish (ClawHub's upload): the bytes are nobody's until a publish
   * names them, and that publish checks what it touches.
   */
  'account.send_files': { scope: 'publish', anyReach: true, what: 'send files for a publish' },
  /**
   * Importing a GitHub repository, listing and syncing one's imports: the import publishes as the
   * caller, so a key must publish and reach everything its user does (each publish still checks
   * the skill or organisation it touches).
   */
  'account.import_repo': { scope: 'publish', what: 'import GitHub repositories' },
  /** Creating, listing and revoking API keys: a key never makes or lists keys. */
  'account.manage_keys': { scope: 'manage', sessionOnly: true, what: 'manage API keys' },
} as const satisfies Record<string, AccountRule>;

export type SkillAction = keyof typeof skillRules;
export type OrgAction = keyof typeof orgRules;
export type AccountAction = keyof typeof accountRules;
export type Action = SkillAction | OrgAction | AccountAction | 'skill.report' | 'invitation.answer' | 'registry.moderate';

/** The resource each action is about. */
export type ResourceOf<A extends Action> = A extends SkillAction | 'skill.report'
  ? SkillResource
  : A extends OrgAction
    ? OrgResource
    : A extends AccountAction
      ? AccountResource
      : A extends 'invitation.answer'
        ? InvitationResource
        : RegistryResource;

export type Verdict =
  | { allowed: true }
  | { allowed: false; code: 'not_found' | 'forbidden' | 'unauthenticated'; message: string }
  | { allowed: false; code: 'insufficient_scope'; message: string; scope: Scope };

const ALLOWED: Verdict = { allowed: true };

/** The decision: may `caller` do `action` to `resource`? */
export function decide<A extends Action>(caller: Caller, action: A, resource: ResourceOf<A>): Verdict {
  if (action === 'skill.report') return decideReport(caller, resource as SkillResource);
  if (action === 'invitation.answer') return decideInvitation(caller, resource as InvitationResource);
  if (action === 'registry.moderate') {
    if (caller.kind === 'anonymous') return signInFirst;
    return caller.admin ? ALLOWED : deny('forbidden', 'Only admins may do this');
  }
  if (action in skillRules) return decideSkill(caller, action as SkillAction, resource as SkillResource);
  if (action in orgRules) return decideOrg(caller, action as OrgAction, resource as OrgResource);
  return decideAccount(caller, action as AccountAction, resource as AccountResource);
}

/** Throws the domain error of a refusal; `missing` is the message of the resource's 404, the same whether it is private or absent. */
export function authorize<A extends Action>(caller: Caller, action: A, resource: ResourceOf<A>, missing: string): void {
  const verdict = decide(caller, action, resource);
  if (verdict.allowed) return;
  throw refusal(verdict, missing);
}

/** The error a refusal answers with. */
export function refusal(verdict: Exclude<Verdict, { allowed: true }>, missing: string): DomainError {
  switch (verdict.code) {
    case 'not_found':
      return notFound(missing);
    case 'unauthenticated':
      return unauthenticated(verdict.message);
    case 'insufficient_scope':
      return new DomainError('insufficient_scope', verdict.message, { scope: verdict.scope });
    default:
      return new DomainError('forbidden', verdict.message);
  }
}

/**
 * Whether `caller` can see `skill` at all: a public skill, anyone; a private one, the members of
 * its organisation through a credential that reaches it (whatever its scopes: a maintainer's
 * `publish` key must find the skill it publishes to).
 */
export function canSee(caller: Caller, skill: SkillResource): boolean {
  if (skill.visibility === 'public') return true;
  if (caller.kind === 'anonymous' || !reachesSkill(caller.credential, skill)) return false;
  // The owning side declared that the workflow behind a publish token may publish this skill.
  if (caller.credential.kind === 'publish-token') return true;
  return skill.owner.type === 'org' ? roleIn(caller, skill.owner.login) !== undefined : skill.authorId === caller.userId;
}

/** Whether a credential reaches a skill: not narrowed, narrowed to its organisation, or to it. */
export function reachesSkill(credential: Credential, skill: Pick<SkillResource, 'id' | 'owner'>): boolean {
  if (credential.skills) return credential.skills.includes(skill.id);
  if (credential.org !== undefined) return skill.owner.type === 'org' && sameLogin(skill.owner.login, credential.org);
  return true;
}

/** Whether a credential reaches an organisation itself (its members, log, new skills): not narrowed, or narrowed to it. */
export function reachesOrg(credential: Credential, login: string): boolean {
  if (credential.skills) return false;
  return credential.org === undefined || sameLogin(credential.org, login);
}

/** The caller's role in `org`, as the service read it; undefined for a non-member. */
export function roleIn(caller: Actor, org: string): Role | undefined {
  const roles = caller.roles;
  const key = org.toLowerCase();
  return Object.hasOwn(roles, key) ? roles[key] : undefined;
}

export const sameLogin = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

function decideSkill(caller: Caller, action: SkillAction, skill: SkillResource): Verdict {
  if (action === 'skill.read' && skill.visibility === 'public') return ALLOWED;
  if (caller.kind === 'anonymous') return skill.visibility === 'private' ? hidden : signInFirst;
  if (!canSee(caller, skill)) return hidden;
  const rule: SkillRule = skillRules[action];
  const credential = credentialLimit(caller.credential, rule.scope, reachesSkill(caller.credential, skill), 'this skill');
  if (credential) return credential;
  // A CI publish token stands for a trust the skill's owning side declared (a trusted publisher):
  // it publishes new versions of the skills it reaches, and does nothing else, whoever set it up.
  if (caller.credential.kind === 'publish-token')
    return action === 'skill.publish_version' ? ALLOWED : deny('forbidden', 'A publish token may only publish new versions');
  if (rule.admin && caller.admin) return ALLOWED;
  if (skill.owner.type === 'user') {
    return skill.authorId === caller.userId && rule.author ? ALLOWED : deny('forbidden', `Only the author of this skill may ${rule.what}`);
  }
  const role = roleIn(caller, skill.owner.login);
  if (role !== undefined && rule.roles.includes(role)) return ALLOWED;
  return deny('forbidden', `Only ${rolesText(rule.roles)} of ${skill.owner.login} may ${rule.what}`);
}

/** Anyone signed in may report a skill they can see, except its owning side. */
function decideReport(caller: Caller, skill: SkillResource): Verdict {
  if (caller.kind === 'anonymous') return skill.visibility === 'private' ? hidden : signInFirst;
  if (!canSee(caller, skill)) return hidden;
  if (caller.credential.kind === 'publish-token') return deny('forbidden', 'A publish token may only publish new versions');
  const owningSide = skill.owner.type === 'user' ? skill.authorId === caller.userId : roleIn(caller, skill.owner.login) !== undefined;
  return owningSide ? deny('forbidden', 'You cannot report your own skill') : ALLOWED;
}

function decideOrg(caller: Caller, action: OrgAction, org: OrgResource): Verdict {
  const rule: OrgRule = orgRules[action];
  if (rule.roles === undefined) return ALLOWED;
  if (caller.kind === 'anonymous') return signInFirst;
  if (rule.sessionOnly && caller.credential.kind !== 'session') return deny('unauthenticated', `Only a browser session may ${rule.what}`);
  if (rule.scope) {
    const credential = credentialLimit(caller.credential, rule.scope, reachesOrg(caller.credential, org.login), org.login);
    if (credential) return credential;
  }
  if (rule.admin && caller.admin) return ALLOWED;
  const role = roleIn(caller, org.login);
  if (role !== undefined && rule.roles.includes(role)) return ALLOWED;
  return deny('forbidden', `Only ${rolesText(rule.roles)} of ${org.login} may ${rule.what}`);
}

function decideAccount(caller: Caller, action: AccountAction, account: AccountResource): Verdict {
  const rule: AccountRule = accountRules[action];
  if (caller.kind === 'anonymous') return signInFirst;
  if (rule.sessionOnly && caller.credential.kind !== 'session') return deny('unauthenticated', `Only a browser session may ${rule.what}`);
  // A narrowed credential reaches nothing a user owns alone.
  const narrowed = caller.credential.org !== undefined || caller.credential.skills !== undefined;
  const credential = credentialLimit(caller.credential, rule.scope, rule.anyReach === true || !narrowed, 'your own account');
  if (credential) return credential;
  // A CI publish token stands for no account: it publishes new versions, and does nothing else.
  if (caller.credential.kind === 'publish-token') return deny('forbidden', 'A publish token may only publish new versions');
  return caller.userId === account.userId ? ALLOWED : deny('forbidden', `You may ${rule.what} only for your own account`);
}

function decideInvitation(caller: Caller, invitation: InvitationResource): Verdict {
  if (caller.kind === 'anonymous') return signInFirst;
  if (caller.credential.kind !== 'session') return deny('unauthenticated', 'Only a browser session may answer an invitation');
  // Someone else's invitation is as unknown as a missing one.
  return caller.userId === invitation.inviteeId ? ALLOWED : hidden;
}

/** The refusal a credential's own limits give (scope, then reach), or undefined when they allow. */
function credentialLimit(credential: Credential, scope: Scope, reaches: boolean, what: string): Verdict | undefined {
  if (!credential.scopes.includes(scope)) {
    return { allowed: false, code: 'insufficient_scope', scope, message: `This ${credentialName(credential)} lacks the ${scope} scope` };
  }
  if (!reaches) {
    const reach = credential.skills ? 'only the skills it was narrowed to' : `only the organisation ${credential.org}`;
    return { allowed: false, code: 'insufficient_scope', scope, message: `This ${credentialName(credential)} reaches ${reach}, not ${what}` };
  }
  return undefined;
}

const credentialName = (credential: Credential) =>
  credential.kind === 'publish-token' ? 'publish token' : credential.kind === 'api-key' ? 'API key' : 'session';

function rolesText(roles: readonly Role[]): string {
  if (roles.length === ROLES.length) return 'the members';
  const names = roles.map((r) => `${r}s`);
  return `the ${names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0]}`;
}

const deny = (code: 'not_found' | 'forbidden' | 'unauthenticated', message: string): Verdict => ({ allowed: false, code, message });
const hidden = deny('not_found', 'not found');
const signInFirst = deny('unauthenticated', 'Sign in or send an API key first');

/** A skill as the policy sees it, from what is stored about it. */
export function skillResource(skill: { id: string; owner?: Owner; authorLogin: string; authorId: string; visibility?: Visibility }): SkillResource {
  return { kind: 'skill', id: skill.id, owner: ownerOf(skill), authorId: skill.authorId, visibility: visibilityOf(skill) };
}

/** The owner of a skill stored before owners were recorded: its author, until the rebuild writes it. */
export function ownerOf(skill: { owner?: Owner; authorLogin: string }): Owner {
  return skill.owner ?? { type: 'user', login: skill.authorLogin };
}

/**
 * One string per owner, to tell owners apart: the author's user id for a user-owned skill,
 * `org:<login>` (lower case) for an organisation's.
 */
export function ownerIdentity(skill: { owner?: Owner; authorLogin: string; authorId: string }): string {
  const owner = ownerOf(skill);
  return owner.type === 'org' ? `org:${owner.login.toLowerCase()}` : skill.authorId;
}

/** A skill's visibility; absent means public (every skill stored before private skills). */
export const visibilityOf = (skill: { visibility?: Visibility }): Visibility => skill.visibility ?? 'public';

/**
 * Whether a skill belongs in anything public: the catalog, the discovery index, the site, the
 * public install counts, ClawHub's lists and search, the search index. Private skills never do,
 * quarantined ones not while quarantined. Every static output asks this one question.
 */
export function isPublicListing(skill: { visibility?: Visibility; quarantine?: unknown }): boolean {
  return visibilityOf(skill) === 'public' && skill.quarantine === undefined;
}

/**
 * Whether a skill's files may be in static files (bundles, archives): a listed skill's (public,
 * not quarantined, whatever was published while it was: docs/api.md §7.10) that is not paid.
 */
export const contentIsPublic = (skill: { visibility?: Visibility; quarantine?: unknown; paid?: boolean }): boolean => isPublicListing(skill) && !skill.paid;

/** Whether a skill has static files at all (registry documents, bundles): every public skill, never a private one. */
export const hasStaticFiles = (skill: { visibility?: Visibility }): boolean => visibilityOf(skill) === 'public';
