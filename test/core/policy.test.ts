import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Actor,
  ANONYMOUS,
  type Caller,
  type Credential,
  decide,
  isPublicListing,
  ownerOf,
  ROLES,
  type Role,
  SCOPES,
  type Scope,
  SESSION,
  type SkillAction,
  type SkillResource,
} from '#core/policy';

/**
 * The policy as a table (who may do what, case by case) and by properties: for random roles,
 * credentials and visibilities, its decisions agree with a small model of the rules written
 * another way (ranks instead of role lists), and never grow worse with more rights.
 */

const actor = (overrides: Partial<Actor> = {}): Actor => ({
  kind: 'user',
  userId: 'dev:alice',
  login: 'alice',
  credential: SESSION,
  admin: false,
  roles: {},
  ...overrides,
});
const key = (scopes: readonly Scope[] = SCOPES, narrow: Partial<Credential> = {}): Credential => ({ kind: 'api-key', scopes, ...narrow });
const token = (skills: string[]): Credential => ({ kind: 'publish-token', scopes: ['publish'], skills });
const orgSkill = (overrides: Partial<SkillResource> = {}): SkillResource => ({
  kind: 'skill',
  id: 'skill-1',
  owner: { type: 'org', login: 'Acme' },
  authorId: 'dev:someone',
  visibility: 'public',
  ...overrides,
});
const userSkill = (overrides: Partial<SkillResource> = {}): SkillResource => ({
  kind: 'skill',
  id: 'skill-2',
  owner: { type: 'user', login: 'alice' },
  authorId: 'dev:alice',
  visibility: 'public',
  ...overrides,
});
const in_ = (role: Role) => ({ acme: role });
const outcome = (verdict: ReturnType<typeof decide>) => (verdict.allowed ? 'allowed' : verdict.code);

describe('the policy, case by case', () => {
  const cases: [string, Caller, Parameters<typeof decide>[1], Parameters<typeof decide>[2], string][] = [
    ['anyone reads a public skill', ANONYMOUS, 'skill.read', orgSkill(), 'allowed'],
    ['a stranger reads nothing of a private skill: not_found', actor(), 'skill.read', orgSkill({ visibility: 'private' }), 'not_found'],
    ['signed out, a private skill is not_found too', ANONYMOUS, 'skill.read', orgSkill({ visibility: 'private' }), 'not_found'],
    ['a member reads a private skill with a session', actor({ roles: in_('member') }), 'skill.read', orgSkill({ visibility: 'private' }), 'allowed'],
    [
      'a member reads it with a read key',
      actor({ roles: in_('member'), credential: key(['read']) }),
      'skill.read',
      orgSkill({ visibility: 'private' }),
      'allowed',
    ],
    [
      "a member's publish-only key finds the skill but may not read it",
      actor({ roles: in_('member'), credential: key(['publish']) }),
      'skill.read',
      orgSkill({ visibility: 'private' }),
      'insufficient_scope',
    ],
    [
      "a member's key narrowed to another skill does not see a private one",
      actor({ roles: in_('owner'), credential: key(SCOPES, { skills: ['other'] }) }),
      'skill.read',
      orgSkill({ visibility: 'private' }),
      'not_found',
    ],
    [
      "a member's key narrowed to another org does not see it",
      actor({ roles: in_('owner'), credential: key(SCOPES, { org: 'other' }) }),
      'skill.read',
      orgSkill({ visibility: 'private' }),
      'not_found',
    ],
    ['a maintainer publishes versions', actor({ roles: in_('maintainer') }), 'skill.publish_version', orgSkill(), 'allowed'],
    ['a member may not publish versions', actor({ roles: in_('member') }), 'skill.publish_version', orgSkill(), 'forbidden'],
    ['a stranger may not publish to a public org skill', actor(), 'skill.publish_version', orgSkill(), 'forbidden'],
    [
      'a publish token publishes versions of a skill it reaches, whoever the roles',
      actor({ credential: token(['skill-1']) }),
      'skill.publish_version',
      orgSkill(),
      'allowed',
    ],
    ['a publish token reaches only its skills', actor({ credential: token(['skill-9']) }), 'skill.publish_version', orgSkill(), 'insufficient_scope'],
    [
      'a publish token publishes to a private skill it reaches',
      actor({ credential: token(['skill-1']) }),
      'skill.publish_version',
      orgSkill({ visibility: 'private' }),
      'allowed',
    ],
    [
      'a publish token sees no private skill it does not reach',
      actor({ credential: token(['skill-9']) }),
      'skill.publish_version',
      orgSkill({ visibility: 'private' }),
      'not_found',
    ],
    ['a publish token may not yank', actor({ roles: in_('owner'), credential: token(['skill-1']) }), 'skill.yank', orgSkill(), 'insufficient_scope'],
    [
      'a publish token may not manage trusted publishers',
      actor({ roles: in_('owner'), credential: token(['skill-1']) }),
      'skill.manage_publishers',
      orgSkill(),
      'insufficient_scope',
    ],
    ['a read key may not publish', actor({ roles: in_('owner'), credential: key(['read']) }), 'skill.publish_version', orgSkill(), 'insufficient_scope'],
    [
      'a key narrowed to one skill may not touch another',
      actor({ roles: in_('owner'), credential: key(SCOPES, { skills: ['skill-9'] }) }),
      'skill.publish_version',
      orgSkill(),
      'insufficient_scope',
    ],
    [
      'a key narrowed to the skill may',
      actor({ roles: in_('maintainer'), credential: key(['publish'], { skills: ['skill-1'] }) }),
      'skill.publish_version',
      orgSkill(),
      'allowed',
    ],
    [
      'a key narrowed to the org may',
      actor({ roles: in_('maintainer'), credential: key(['publish'], { org: 'acme' }) }),
      'skill.publish_version',
      orgSkill(),
      'allowed',
    ],
    ['an org key touches nothing user-owned', actor({ credential: key(SCOPES, { org: 'acme' }) }), 'skill.publish_version', userSkill(), 'insufficient_scope'],
    ['the author publishes to their own skill', actor(), 'skill.publish_version', userSkill(), 'allowed'],
    ['nobody else does', actor({ userId: 'dev:eve', login: 'eve' }), 'skill.publish_version', userSkill(), 'forbidden'],
    ['maintainers yank and deprecate', actor({ roles: in_('maintainer') }), 'skill.yank', orgSkill(), 'allowed'],
    ['maintainers may not change visibility', actor({ roles: in_('maintainer') }), 'skill.set_visibility', orgSkill(), 'forbidden'],
    ['nor price', actor({ roles: in_('maintainer') }), 'skill.set_price', orgSkill(), 'forbidden'],
    ['nor transfer', actor({ roles: in_('maintainer') }), 'skill.transfer', orgSkill(), 'forbidden'],
    ['owners do', actor({ roles: in_('owner') }), 'skill.transfer', orgSkill(), 'allowed'],
    ['members read analytics', actor({ roles: in_('member') }), 'skill.read_analytics', orgSkill(), 'allowed'],
    ['admins read any skill’s reports', actor({ admin: true }), 'skill.read_reports', orgSkill(), 'allowed'],
    ['members may not report their own org’s skill', actor({ roles: in_('member') }), 'skill.report', orgSkill(), 'forbidden'],
    ['strangers may report a public one', actor(), 'skill.report', orgSkill(), 'allowed'],
    ['strangers cannot report a private one: not_found', actor(), 'skill.report', orgSkill({ visibility: 'private' }), 'not_found'],
    ['a maintainer publishes into the org', actor({ roles: in_('maintainer') }), 'org.create_skill', { kind: 'org', login: 'ACME' }, 'allowed'],
    ['a member does not', actor({ roles: in_('member') }), 'org.create_skill', { kind: 'org', login: 'acme' }, 'forbidden'],
    [
      'a maintainer may not manage members (no escalation)',
      actor({ roles: in_('maintainer') }),
      'org.manage_members',
      { kind: 'org', login: 'acme' },
      'forbidden',
    ],
    [
      'an owner with a key may not manage members',
      actor({ roles: in_('owner'), credential: key() }),
      'org.manage_members',
      { kind: 'org', login: 'acme' },
      'unauthenticated',
    ],
    ['members list members', actor({ roles: in_('member') }), 'org.read_members', { kind: 'org', login: 'acme' }, 'allowed'],
    ['strangers do not', actor(), 'org.read_members', { kind: 'org', login: 'acme' }, 'forbidden'],
    ['only owners read the audit log', actor({ roles: in_('maintainer') }), 'org.read_audit', { kind: 'org', login: 'acme' }, 'forbidden'],
    ['anyone sees an org’s public face', ANONYMOUS, 'org.read', { kind: 'org', login: 'acme' }, 'allowed'],
    ['a maintainer receives a skill from its author', actor({ roles: in_('maintainer') }), 'org.receive_from_user', { kind: 'org', login: 'acme' }, 'allowed'],
    ['only owners receive one from another org', actor({ roles: in_('maintainer') }), 'org.receive_from_org', { kind: 'org', login: 'acme' }, 'forbidden'],
    ['a user publishes skills of their own', actor(), 'account.create_skill', { kind: 'account', userId: 'dev:alice' }, 'allowed'],
    [
      'a narrowed key does not',
      actor({ credential: key(SCOPES, { org: 'acme' }) }),
      'account.create_skill',
      { kind: 'account', userId: 'dev:alice' },
      'insufficient_scope',
    ],
    [
      'a key that may publish sends files ahead of a publish',
      actor({ credential: key(['publish']) }),
      'account.send_files',
      { kind: 'account', userId: 'dev:alice' },
      'allowed',
    ],
    [
      'a narrowed one too: the files are nobody’s until a publish names them',
      actor({ credential: key(['publish'], { org: 'acme' }) }),
      'account.send_files',
      { kind: 'account', userId: 'dev:alice' },
      'allowed',
    ],
    ['a read-only key does not', actor({ credential: key(['read']) }), 'account.send_files', { kind: 'account', userId: 'dev:alice' }, 'insufficient_scope'],
    [
      'a key that may publish files appeals',
      actor({ credential: key(['publish'], { org: 'acme' }) }),
      'account.file_appeal',
      { kind: 'account', userId: 'dev:alice' },
      'allowed',
    ],
    [
      'a key that may publish imports repositories',
      actor({ credential: key(['publish']) }),
      'account.import_repo',
      { kind: 'account', userId: 'dev:alice' },
      'allowed',
    ],
    [
      'a publish token stands for no account: it files no appeal',
      actor({ credential: token(['skill-1']) }),
      'account.file_appeal',
      { kind: 'account', userId: 'dev:alice' },
      'forbidden',
    ],
    [
      'nor publishes a new skill, beyond its reach',
      actor({ credential: token(['skill-1']) }),
      'account.create_skill',
      { kind: 'account', userId: 'dev:alice' },
      'insufficient_scope',
    ],
    [
      'a narrowed key does not import: an import creates skills of its user',
      actor({ credential: key(['publish'], { org: 'acme' }) }),
      'account.import_repo',
      { kind: 'account', userId: 'dev:alice' },
      'insufficient_scope',
    ],
    ['a key never manages keys', actor({ credential: key() }), 'account.manage_keys', { kind: 'account', userId: 'dev:alice' }, 'unauthenticated'],
    ['an invitation is its invitee’s', actor(), 'invitation.answer', { kind: 'invitation', org: 'acme', inviteeId: 'dev:alice' }, 'allowed'],
    ['anyone else’s is unknown', actor(), 'invitation.answer', { kind: 'invitation', org: 'acme', inviteeId: 'dev:bob' }, 'not_found'],
    ['admins moderate', actor({ admin: true }), 'registry.moderate', { kind: 'registry' }, 'allowed'],
    ['nobody else does', actor(), 'registry.moderate', { kind: 'registry' }, 'forbidden'],
  ];
  it.each(cases)('%s', (_, caller, action, resource, expected) => {
    expect(outcome(decide(caller, action, resource as never))).toBe(expected);
  });

  it('names the scope a credential lacks', () => {
    const verdict = decide(actor({ roles: in_('owner'), credential: key(['read']) }), 'skill.yank', orgSkill());
    expect(verdict).toEqual({ allowed: false, code: 'insufficient_scope', scope: 'manage', message: 'This API key lacks the manage scope' });
  });

  it('keeps private skills and quarantined ones out of every public listing', () => {
    expect(isPublicListing({})).toBe(true);
    expect(isPublicListing({ visibility: 'public' })).toBe(true);
    expect(isPublicListing({ visibility: 'private' })).toBe(false);
    expect(isPublicListing({ quarantine: { reason: 'x' } })).toBe(false);
  });

  it('takes a skill stored before owners were recorded for its author’s', () => {
    expect(ownerOf({ authorLogin: 'alice' })).toEqual({ type: 'user', login: 'alice' });
    expect(ownerOf({ authorLogin: 'alice', owner: { type: 'org', login: 'acme' } })).toEqual({ type: 'org', login: 'acme' });
  });
});

// A small model of the rules, written as ranks: 0 for a stranger, up to 3 for an owner.
const RANK: Record<Role | 'none', number> = { none: 0, member: 1, maintainer: 2, owner: 3 };
const MODEL: Record<SkillAction, { scope: Scope; rank: number; admin?: true }> = {
  'skill.read': { scope: 'read', rank: 1 },
  'skill.publish_version': { scope: 'publish', rank: 2 },
  'skill.manage_publishers': { scope: 'manage', rank: 2 },
  'skill.yank': { scope: 'manage', rank: 2 },
  'skill.deprecate': { scope: 'manage', rank: 2 },
  'skill.set_price': { scope: 'manage', rank: 3 },
  'skill.set_visibility': { scope: 'manage', rank: 3 },
  'skill.transfer': { scope: 'manage', rank: 3 },
  'skill.manage_access': { scope: 'manage', rank: 3 },
  'skill.read_sales': { scope: 'read', rank: 3 },
  'skill.read_analytics': { scope: 'read', rank: 1 },
  'skill.read_reports': { scope: 'read', rank: 2, admin: true },
  'skill.use_unpaid': { scope: 'read', rank: 1 },
};

type Narrowing = 'none' | 'this-org' | 'other-org' | 'this-skill' | 'other-skill';
interface Case {
  anonymous: boolean;
  role: Role | 'none';
  session: boolean;
  scopes: Scope[];
  narrowing: Narrowing;
  admin: boolean;
  orgOwned: boolean;
  isAuthor: boolean;
  visibility: 'public' | 'private';
  action: SkillAction;
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  anonymous: fc.boolean(),
  role: fc.constantFrom<Role | 'none'>('none', ...ROLES),
  session: fc.boolean(),
  scopes: fc.subarray([...SCOPES]),
  narrowing: fc.constantFrom<Narrowing>('none', 'this-org', 'other-org', 'this-skill', 'other-skill'),
  admin: fc.boolean(),
  orgOwned: fc.boolean(),
  isAuthor: fc.boolean(),
  visibility: fc.constantFrom<'public' | 'private'>('public', 'private'),
  action: fc.constantFrom(...(Object.keys(MODEL) as SkillAction[])),
});

function build(c: Case): { caller: Caller; skill: SkillResource } {
  const narrow: Partial<Credential> = {
    none: {},
    'this-org': { org: 'acme' },
    'other-org': { org: 'other' },
    'this-skill': { skills: ['skill-1'] },
    'other-skill': { skills: ['skill-9'] },
  }[c.narrowing];
  const credential: Credential = c.session ? SESSION : { kind: 'api-key', scopes: c.scopes, ...narrow };
  const caller: Caller = c.anonymous
    ? ANONYMOUS
    : actor({ credential, admin: c.admin, roles: c.orgOwned && c.role !== 'none' ? { acme: c.role } : {}, userId: c.isAuthor ? 'dev:author' : 'dev:other' });
  const skill: SkillResource = {
    kind: 'skill',
    id: 'skill-1',
    owner: c.orgOwned ? { type: 'org', login: 'Acme' } : { type: 'user', login: 'author' },
    authorId: 'dev:author',
    visibility: c.visibility,
  };
  return { caller, skill };
}

/** What the rules say, from the model. */
function model(c: Case): string {
  const rule = MODEL[c.action];
  if (c.action === 'skill.read' && c.visibility === 'public') return 'allowed';
  if (c.anonymous) return c.visibility === 'private' ? 'not_found' : 'unauthenticated';
  const scopes = c.session ? SCOPES : c.scopes;
  const narrowing = c.session ? 'none' : c.narrowing;
  const reach = narrowing === 'none' || narrowing === 'this-skill' || (narrowing === 'this-org' && c.orgOwned);
  const rank = c.orgOwned ? RANK[c.role] : c.isAuthor ? 3 : 0;
  if (c.visibility === 'private' && (rank === 0 || !reach)) return 'not_found';
  if (!scopes.includes(rule.scope) || !reach) return 'insufficient_scope';
  if (rule.admin && c.admin) return 'allowed';
  return rank >= rule.rank ? 'allowed' : 'forbidden';
}

describe('the policy, by properties', () => {
  it('agrees with the model of the rules for every role, scope, reach and visibility', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const { caller, skill } = build(c);
        expect(outcome(decide(caller, c.action, skill))).toBe(model(c));
      }),
      { numRuns: 5000 },
    );
  });

  it('never refuses more for more rights: a higher role, another scope, a wider reach', () => {
    const allowed = (c: Case) => {
      const { caller, skill } = build(c);
      return decide(caller, c.action, skill).allowed;
    };
    fc.assert(
      fc.property(caseArb, fc.constantFrom(...SCOPES), (c, scope) => {
        if (!allowed(c)) return;
        const higher = ROLES.filter((r) => RANK[r] > RANK[c.role]);
        for (const role of higher) expect(allowed({ ...c, role })).toBe(true);
        expect(allowed({ ...c, scopes: [...new Set([...c.scopes, scope])] })).toBe(true);
        expect(allowed({ ...c, narrowing: 'none' })).toBe(true);
        expect(allowed({ ...c, session: true })).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('tells anyone outside an organisation nothing about its private skills, whatever they ask', () => {
    fc.assert(
      fc.property(caseArb, fc.constantFrom<SkillAction | 'skill.report'>(...(Object.keys(MODEL) as SkillAction[]), 'skill.report'), (c, action) => {
        const { caller, skill } = build({ ...c, orgOwned: true, role: 'none', visibility: 'private' });
        expect(decide(caller, action, skill)).toEqual({ allowed: false, code: 'not_found', message: 'not found' });
      }),
      { numRuns: 2000 },
    );
  });

  it('treats a session as a key with every scope and no narrowing', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const asSession = build({ ...c, session: true });
        const asKey = build({ ...c, session: false, scopes: [...SCOPES], narrowing: 'none' });
        expect(outcome(decide(asSession.caller, c.action, asSession.skill))).toBe(outcome(decide(asKey.caller, c.action, asKey.skill)));
      }),
      { numRuns: 2000 },
    );
  });
});
