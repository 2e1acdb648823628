import { DomainError, invalidRequest } from '#core/errors';
import { limits } from '#core/limits';
import { decide, ownerIdentity, ownerOf, SESSION, skillResource } from '#core/policy';
import type { Provenance } from '#core/provenance';
import type { TrustedPublisherBody } from '#core/schemas';
import type { Deps } from '../platform/composition.ts';
import { configuredOrigin } from '../platform/config.ts';
import type { OidcVerifier } from '../platform/oidc.ts';
import { createPublishToken, spendOidcToken } from '../store/publish-tokens.ts';
import { getSkills, type SkillItem } from '../store/skills.ts';
import {
  confirmTrustedPublisher,
  deleteTrustedPublisher,
  listTrustedPublishers,
  putTrustedPublisher,
  type TrustedPublisherItem,
  trustedPublishersOf,
} from '../store/trusted-publishers.ts';
import { findUserByLogin, getUser, toUser } from '../store/users.ts';
import { callerFor, orgsToRead, type Principal, skillFor } from './authorization.ts';
import { record } from './audit.ts';

/**
 * Trusted publishing (docs/api.md §7.14): a skill's owning side names the CI workflows that may
 * publish its versions; such a workflow exchanges its OIDC ID token for a 15-minute publish
 * token (`spt_`) narrowed to the skills that trust it, and each version it publishes records
 * where it came from, from the verified claims alone.
 */

type Ports = Pick<Deps, 'db' | 'clock' | 'config' | 'log'>;

/** A trusted publisher as the API shows it, with whether it counts now. */
function shown(item: TrustedPublisherItem, active: boolean) {
  return {
    id: item.id,
    provider: item.provider,
    repository: item.repository,
    workflow: item.workflow,
    ...(item.environment === undefined ? {} : { environment: item.environment }),
    createdAt: item.createdAt,
    createdBy: item.createdBy,
    active,
  };
}

/**
 * Whether a trusted publisher counts now: a workflow publishes on the word of whoever added it
 * (or last confirmed it), so it counts only while they may still publish the skill, as the policy
 * decides for them today (a member removed or demoted takes their publishers' trust with them),
 * and only for the owner it was added under (a transfer suspends it until the new owning side
 * adds it again).
 */
async function counts(deps: Ports, item: TrustedPublisherItem, skill: SkillItem): Promise<boolean> {
  if (item.owner !== undefined && item.owner !== ownerIdentity(skill)) return false;
  const adder = item.createdById === undefined ? await findUserByLogin(deps.db, item.createdBy) : await getUser(deps.db, item.createdById);
  if (!adder) return false;
  const caller = await callerFor(deps, { user: toUser(adder), credential: SESSION }, orgsToRead(skill));
  return decide(caller, 'skill.publish_version', skillResource(skill)).allowed;
}

export async function addTrustedPublisher(deps: Ports, principal: Principal, skillId: string, body: TrustedPublisherBody) {
  const { skill } = await skillFor(deps, principal, skillId, 'skill.manage_publishers');
  const existing = await listTrustedPublishers(deps.db, skill.id);
  const same = existing.find(
    (p) =>
      p.repository.toLowerCase() === body.repository.toLowerCase() &&
      p.workflow === body.workflow &&
      (p.environment ?? '').toLowerCase() === (body.environment ?? '').toLowerCase(),
  );
  const vouch = { createdBy: principal.user.login, createdById: principal.user.id, owner: ownerIdentity(skill) };
  const owner = ownerOf(skill);
  if (same) {
    // Added again: it counts on the caller's word from now on (who may publish the skill: the policy said so above).
    const confirmed = await confirmTrustedPublisher(deps.db, same, vouch);
    if (owner.type === 'org' && !(await counts(deps, same, skill))) {
      await record(deps, owner.login, principal, 'publisher.confirmed', skill.slug, publisherDetails(confirmed));
    }
    return shown(confirmed, true);
  }
  if (existing.length >= limits.trustedPublishers) throw invalidRequest(`A skill may trust at most ${limits.trustedPublishers} publishers; remove one first`);
  const item = await putTrustedPublisher(deps.db, {
    skillId: skill.id,
    provider: body.provider,
    repository: body.repository,
    workflow: body.workflow,
    ...(body.environment === undefined ? {} : { environment: body.environment }),
    createdAt: deps.clock().toISOString(),
    ...vouch,
  });
  if (owner.type === 'org') await record(deps, owner.login, principal, 'publisher.added', skill.slug, publisherDetails(item));
  return shown(item, true);
}

export async function trustedPublishersOfSkill(deps: Ports, principal: Principal, skillId: string) {
  const { skill } = await skillFor(deps, principal, skillId, 'skill.manage_publishers');
  const items = await listTrustedPublishers(deps.db, skill.id);
  return { publishers: await Promise.all(items.map(async (item) => shown(item, await counts(deps, item, skill)))) };
}

export async function removeTrustedPublisher(deps: Ports, principal: Principal, skillId: string, publisherId: string): Promise<void> {
  const { skill } = await skillFor(deps, principal, skillId, 'skill.manage_publishers');
  const item = await deleteTrustedPublisher(deps.db, skill.id, publisherId.slice(0, 128));
  const owner = ownerOf(skill);
  if (owner.type === 'org') await record(deps, owner.login, principal, 'publisher.removed', skill.slug, publisherDetails(item));
}

const publisherDetails = (item: TrustedPublisherItem) => ({
  repository: item.repository,
  workflow: item.workflow,
  environment: item.environment ?? null,
});

let verifier: { issuer: string; cooldown: number; verifier: Promise<OidcVerifier> } | undefined;

/** The verifier of the configured issuer, loaded (with `jose`) on the first exchange. */
function verifierFor(deps: Ports): Promise<OidcVerifier> {
  const { issuer, jwksCooldownMs } = deps.config.oidc;
  if (verifier?.issuer !== issuer || verifier.cooldown !== jwksCooldownMs) {
    verifier = {
      issuer,
      cooldown: jwksCooldownMs,
      verifier: import('../platform/oidc.ts').then(({ OidcVerifier }) => new OidcVerifier({ issuer, jwksCooldownMs, now: deps.clock })),
    };
  }
  return verifier.verifier;
}

const refused = (claim: string, message: string) => new DomainError('invalid_oidc_token', `The OIDC token was refused: ${message}`, { claim });

/**
 * `POST /api/oidc/exchange`: the CI's OIDC token for a publish token. The token must verify
 * against the issuer's keys with every claim of docs/api.md §7.14, its audience this registry's
 * configured origin; its `repository`,
 * `job_workflow_ref` and `environment` must match a trusted publisher of at least one skill; its
 * `jti` must never have been exchanged. Anything wrong is `401 invalid_oidc_token`, naming the
 * claim in `details.claim`.
 */
export async function exchangeOidcToken(deps: Ports, token: string) {
  const { issuer } = deps.config.oidc;
  // The audience is configuration, never the request's Host, which the caller would choose.
  const audience = configuredOrigin(deps.config);
  if (audience === undefined) throw refused('aud', 'this registry has no configured origin (SITE_ORIGIN) for a token to name as its audience');
  const claims = await verified(deps, token, audience);
  const repository = stringClaim(claims, 'repository');
  const workflowRef = stringClaim(claims, 'job_workflow_ref');
  const environment = typeof claims.environment === 'string' ? claims.environment : undefined;
  // `owner/repo/.github/workflows/publish.yml@refs/heads/main`: the workflow file of this repository.
  const prefix = `${repository}/.github/workflows/`;
  const at = workflowRef.indexOf('@');
  if (!workflowRef.toLowerCase().startsWith(prefix.toLowerCase()) || at < 0)
    throw refused('job_workflow_ref', `job_workflow_ref ${workflowRef.slice(0, 200)} is not a workflow of ${repository}`);
  const workflowFile = workflowRef.slice(prefix.length, at);

  const trusted = await trustedPublishersOf(deps.db, 'github', repository);
  if (trusted.length === 0) throw refused('repository', `no skill trusts the repository ${repository}`);
  const byWorkflow = trusted.filter((p) => p.workflow === workflowFile);
  if (byWorkflow.length === 0) throw refused('job_workflow_ref', `no skill trusts the workflow ${workflowFile} of ${repository}`);
  const matching = byWorkflow.filter((p) => p.environment === undefined || p.environment.toLowerCase() === environment?.toLowerCase());
  if (matching.length === 0) throw refused('environment', `the skills that trust ${workflowFile} require another environment than ${environment ?? 'none'}`);
  const trusting = new Map((await getSkills(deps.db, [...new Set(matching.map((p) => p.skillId))])).map((skill) => [skill.id, skill]));
  const standing = await Promise.all(
    matching.map(async (p) => (trusting.has(p.skillId) && (await counts(deps, p, trusting.get(p.skillId)!)) ? p.skillId : undefined)),
  );
  // Only the skills a publisher still counts for: the answer never names one the workflow may no longer publish.
  const skills = [...trusting.values()].filter((skill) => standing.includes(skill.id));
  if (skills.length === 0) {
    throw refused(
      'repository',
      `no skill trusts the repository ${repository} now: a trusted publisher counts only while whoever added it may publish the skill, and not after a transfer, until the owning side adds it again`,
    );
  }

  // Last, so a token refused for anything else can be fixed and sent again: its jti is spent here.
  const exp = claims.exp as number;
  if (!(await spendOidcToken(deps.db, issuer, stringClaim(claims, 'jti'), Math.ceil(exp) + 120)))
    throw refused('jti', 'this token was already exchanged; ask the runner for a new one');

  const now = deps.clock();
  const expiresAt = Math.floor(now.getTime() / 1000) + limits.publishTokenSeconds;
  const provenance: Provenance = {
    provider: 'github',
    repository,
    workflow: `.github/workflows/${workflowFile}`,
    workflowRef,
    ref: stringClaim(claims, 'ref'),
    sha: stringClaim(claims, 'sha'),
    runId: stringClaim(claims, 'run_id'),
    runAttempt: stringClaim(claims, 'run_attempt'),
    ...(environment === undefined ? {} : { environment }),
    issuer,
  };
  const spt = await createPublishToken(deps.db, {
    skills: skills.map((s) => s.id),
    provenance,
    publisher: `github:${repository}`,
    createdAt: now.toISOString(),
    expiresAt,
  });
  deps.log.info('publish token issued', { repository, workflow: workflowFile, skills: skills.length });
  return { token: spt, expiresAt: new Date(expiresAt * 1000).toISOString(), skills: skills.map((skill) => skill.slug).sort() };
}

async function verified(deps: Ports, token: string, audience: string): Promise<Record<string, unknown>> {
  const { OidcRefusal } = await import('../platform/oidc.ts');
  try {
    return await (await verifierFor(deps)).verify(token, audience);
  } catch (error) {
    if (error instanceof OidcRefusal) throw refused(error.claim, error.message);
    deps.log.warn('could not verify an OIDC token', { error: (error as Error).message.slice(0, 200) });
    throw refused('iss', "the issuer's signing keys could not be read; try again");
  }
}

function stringClaim(claims: Record<string, unknown>, name: string): string {
  const value = claims[name];
  if (typeof value !== 'string' || value.length === 0 || value.length > 512) throw refused(name, `the token has no ${name} claim`);
  return value;
}
