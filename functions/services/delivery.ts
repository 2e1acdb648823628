import { deliveryJson, type FileBytes, toWireFile } from '#core/bundle';
import { DomainError, notFound } from '#core/errors';
import { clientOf, type InstallChannel } from '#core/install-analytics';
import type { ClientFacts } from '#core/install-visitor';
import { jsonStringBytes } from '#core/limits';
import { type AccessFacts, type AccessRoute, decideAccess, tokenProblem, tokenRejected } from '#core/paid-access';
import { contentIsPublic } from '#core/policy';
import type { DeliverQuery } from '#core/schemas';
import { assertStrictVersion } from '#core/semver-order';
import { bundleKey, bundlePath } from '#core/static-paths';
import { behaviourOf, defaultOfSkill, refused } from '#core/version-behaviour';
import { getBlob } from '../content/blobs.ts';
import { deliveryLink } from '../content/delivery-links.ts';
import type { Deps } from '../platform/composition.ts';
import { allowSkill, type Principal } from './authorization.ts';
import type { Delivery } from './delivery-cache.ts';
import { entitlementHolds, standingOf } from './entitlement.ts';
import { findDownloadToken, spendDownloadToken } from '../store/download-tokens.ts';
import { getSkill, getVersion, type SkillItem, type StoredFile } from '../store/skills.ts';

/**
 * Delivery of a skill version's content (docs/api.md §7). The steps are ordered so that a request
 * that fails changes nothing: every check and every content read comes first, then the token's
 * use is spent, and only then is the download counted (written behind the response, see
 * DownloadCounter) and the response sent.
 */

export interface DeliveryRequest extends DeliverQuery {
  skillId: string;
  /**
   * Who is calling: the API key sent (401 when it is not valid), else the session, else nobody.
   * Read beside the skill whatever it turns out to be, so a private skill's `not_found` costs
   * what a missing one's does. Only private skills (a member, with `read`) and paid ones (a
   * session with access) look at it.
   */
  caller: () => Promise<Principal | undefined>;
  /** False for HEAD: answering with headers only is not an install, so nothing is spent or counted. */
  install: boolean;
  /** Who is installing, for distinct installs and the client's name (core/install-visitor.ts). */
  client: ClientFacts;
  /** The endpoint asked: ClawHub's download tells its CLIs apart from ours. */
  channel: InstallChannel;
  /**
   * Whether a delivery too large for a response (`config.inlineDeliveryBytes`) is answered with
   * where to fetch it ({@link Delivered.location}); ClawHub's download answers a ZIP instead.
   */
  linkLarge?: boolean;
}

/** A delivery, and for a large one asked with {@link DeliveryRequest.linkLarge}, where its body is to be fetched instead. */
export interface Delivered extends Delivery {
  /** Set when the delivery is too large for a response: it is answered `303`. */
  large?: {
    /**
     * The version's immutable bundle on the site (free public content, once the rebuild wrote it),
     * else a pre-signed link to the delivery in the private content bucket, good for a minute. A
     * link is a credential for the content, so it is made only for an install (a GET, which
     * spends a token's use): a HEAD is told the delivery is large, and not where it is.
     */
    location?: string;
  };
}

/**
 * The content of the requested version (the current one by default), counted as one install
 * from `request.source`. Throws 400 for a malformed version, 404 for an unknown skill or version
 * (or a private skill the caller may not see: the same answer), 403 `quarantined` for a
 * quarantined skill (whoever asks), and 401/402 for paid content without access (see
 * core/paid-access.ts).
 */
export async function deliver(deps: Deps, request: DeliveryRequest): Promise<Delivered> {
  const { db, clock, delivery: cache } = deps;
  const wanted = request.version === undefined ? undefined : assertStrictVersion(request.version);
  const [stored, principal] = await Promise.all([cache.skill(request.skillId, () => getSkill(db, request.skillId)), request.caller()]);
  const { skill } = await allowSkill(deps, principal, stored, request.skillId, 'skill.read');
  if (skill.quarantine) throw new DomainError('quarantined', `${skill.slug} is quarantined after reports or a scan; it cannot be installed`);
  const version = wanted ?? defaultVersion(skill);
  const delivery = await cache.payloads.load(
    `${skill.id}@${version}`,
    () => readDelivery(deps, skill, version),
    (d) => !d.pending,
  );

  const route = await accessRoute(deps, skill, request, principal);
  // Where a large one is fetched, settled before anything is spent or counted: a link that cannot be made fails the request whole.
  const large = request.linkLarge === true && delivery.inlineBytes > deps.config.inlineDeliveryBytes;
  const answer: Delivered = large ? { ...delivery, large: await largeDeliveryLocation(deps, skill, delivery, request.install) } : delivery;
  if (!request.install) return answer;
  const token = route === 'token' ? request.token! : undefined;
  if (token && !(await spendDownloadToken(db, token, skill.id, clock()))) {
    // Lost a race for the last use, or revoked or expired while the content was read.
    throw tokenRejected(tokenProblem(await findDownloadToken(db, token), skill.id, clock()) ?? 'used_up');
  }
  deps.downloads.add({
    skillId: skill.id,
    source: request.source,
    client: clientOf(request.channel, request.client.userAgent),
    visitor: request.client,
    at: clock().getTime(),
  });
  return answer;
}

/**
 * The version delivered when none is named: the newest cleared release (core/version-behaviour.ts),
 * never one still being observed. A new skill whose first version is being observed has none yet:
 * 409 `being_observed`, which names the version that `?version=` reaches meanwhile.
 */
function defaultVersion(skill: SkillItem): string {
  const found = defaultOfSkill(skill);
  if (found !== null) return found;
  throw new DomainError(
    'being_observed',
    `${skill.slug}@${skill.currentVersion} is being run in the sandbox before anyone installs it by default; ask for it with ?version=${skill.currentVersion}, or try again in a minute`,
    { version: skill.currentVersion },
  );
}

/** Bundles known to be on the site, by bucket and key: they are immutable and never deleted. */
const bundled = new Set<string>();

/**
 * Where a delivery too large for a response is fetched (docs/api.md §7.6): free public content
 * from its bundle, which the CDN serves to anyone (the same files; the rebuild writes it moments
 * after the publish, so until then it is linked as paid content is); anything else through a
 * short-lived pre-signed link to the delivery in the private content bucket, which only this
 * caller is given, and only for an `install`.
 */
async function largeDeliveryLocation(deps: Deps, skill: SkillItem, delivery: Delivery, install: boolean): Promise<NonNullable<Delivered['large']>> {
  if (contentIsPublic(skill)) {
    const key = bundleKey(skill.slug, delivery.version);
    const id = `${deps.config.staticBucket}/${key}`;
    if (!bundled.has(id) && (await deps.staticStore.metadata(key)) !== undefined) {
      if (bundled.size >= 50_000) bundled.clear();
      bundled.add(id);
    }
    if (bundled.has(id)) return { location: bundlePath(skill.slug, delivery.version) };
  }
  return install ? { location: await deliveryLink(deps.blobs, skill.id, delivery.version, delivery.body) } : {};
}

/**
 * Reads and serialises one version's payload; a version that does not exist is a 404 (not kept).
 * The body is in canonical form, so it begins with the version's bundle as the registry hashed
 * it and a client can check the integrity over the bytes it received (docs/api.md §7.6).
 */
async function readDelivery(deps: Deps, skill: SkillItem, version: string): Promise<Delivery> {
  const item = await getVersion(deps.db, skill.id, version);
  if (!item) throw notFound(`${skill.slug} has no version ${version}`);
  if (refused(item))
    throw new DomainError('quarantined', `${skill.slug}@${version} was refused on what it did when run in the sandbox; it cannot be installed`);
  const header = { skillId: skill.id, slug: skill.slug, version };
  const files = (await readFiles(deps, item.files)).map(toWireFile);
  const body = Buffer.from(deliveryJson(header, files));
  return { ...header, body, inlineBytes: jsonStringBytes(body), ...(behaviourOf(item) === 'pending' ? { pending: true as const } : {}) };
}

/** Gathers only the facts the decision needs: nothing for free skills, no token read for entitled sessions. */
async function accessRoute(deps: Deps, skill: SkillItem, request: DeliveryRequest, principal: Principal | undefined): Promise<AccessRoute> {
  if (!skill.paid) return decideAccess({ paid: false });
  // Paid content opens to a session with access, or to a download token; never to an API key itself.
  const user = principal?.credential.kind === 'session' ? principal.user : undefined;
  const session = user ? await standingOf(deps, skill, user) : undefined;
  if ((session && session !== 'other') || request.token === undefined) return decideAccess({ paid: true, session });
  return decideAccess({ paid: true, session, token: await tokenStanding(deps, skill, request.token) });
}

/** A presented token's verdict; one minted by a buyer or grantee holds only while their access does. */
async function tokenStanding(deps: Deps, skill: SkillItem, token: string): Promise<AccessFacts['token']> {
  const found = await findDownloadToken(deps.db, token);
  const problem = tokenProblem(found, skill.id, deps.clock());
  if (problem) return problem;
  if (found?.entitlement && !(await entitlementHolds(deps, skill.id, found.entitlement))) return 'withdrawn';
  return 'valid';
}

/** Reads each distinct blob once; files are already sorted by filename in the version item. */
async function readFiles(deps: Deps, files: StoredFile[]): Promise<FileBytes[]> {
  const distinct = [...new Set(files.map((f) => f.sha256))];
  const blobs = new Map(await Promise.all(distinct.map(async (sha) => [sha, await getBlob(deps.blobs, sha)] as const)));
  return files.map((f) => ({ filename: f.filename, bytes: blobs.get(f.sha256)!, encoding: f.encoding, ...(f.executable ? { executable: true } : {}) }));
}
