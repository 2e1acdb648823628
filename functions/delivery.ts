import { type FileBytes, toWireFile, type WireFile } from '#core/bundle';
import { notFound } from '#core/errors';
import { type AccessRoute, decideAccess, type SessionStanding, tokenProblem, tokenRejected } from '#core/paid-access';
import type { DeliverQuery, User } from '#core/schemas';
import { assertStrictVersion } from '#core/semver-order';
import { getBlob } from './content/blobs.ts';
import type { Deps } from './deps.ts';
import { findDownloadToken, refundDownloadToken, spendDownloadToken } from './store/download-tokens.ts';
import { recordDownload } from './store/downloads.ts';
import { hasGrant } from './store/grants.ts';
import { getSkill, getVersion, type SkillItem, type StoredFile } from './store/skills.ts';

/**
 * Delivery of a skill version's content (DESIGN.md §4). The steps are ordered so that a request
 * that fails changes nothing: every check and every content read comes first, then the token's
 * use is spent, then the download is counted, and only then does the response go out. A count
 * that fails gives the token use back.
 */

export interface DeliveryRequest extends DeliverQuery {
  skillId: string;
  /** The signed-in user, looked up only for paid skills (free delivery reads no credentials). */
  sessionUser: () => Promise<User | undefined>;
  /** False for HEAD: answering with headers only is not an install, so nothing is spent or counted. */
  install: boolean;
}

export interface Delivery {
  skillId: string;
  slug: string;
  version: string;
  files: WireFile[];
}

/**
 * The content of the requested version (the current one by default), counted as one install
 * from `request.source`. Throws 400 for a malformed version, 404 for an unknown skill or version,
 * and 401/402 for paid content without access (see core/paid-access.ts).
 */
export async function deliver(deps: Deps, request: DeliveryRequest): Promise<Delivery> {
  const { db, clock } = deps;
  const wanted = request.version === undefined ? undefined : assertStrictVersion(request.version);
  // With an explicit version the two reads are independent; without one, META names it.
  const [skill, explicit] = await Promise.all([getSkill(db, request.skillId), wanted ? getVersion(db, request.skillId, wanted) : undefined]);
  if (!skill) throw notFound(`No skill with id ${request.skillId}`);
  const version = wanted ? explicit : await getVersion(db, skill.id, skill.currentVersion);
  if (!version) throw notFound(`${skill.slug} has no version ${wanted ?? skill.currentVersion}`);

  const route = await accessRoute(deps, skill, request);
  const files = await readFiles(deps, version.files);

  const delivery = { skillId: skill.id, slug: skill.slug, version: version.version, files: files.map(toWireFile) };
  if (!request.install) return delivery;
  const token = route === 'token' ? request.token! : undefined;
  if (token && !(await spendDownloadToken(db, token, skill.id, clock()))) {
    // Lost a race for the last use, or revoked or expired while the content was read.
    throw tokenRejected(tokenProblem(await findDownloadToken(db, token), skill.id, clock()) ?? 'used_up');
  }
  try {
    await recordDownload(db, skill.id, request.source, clock());
  } catch (error) {
    if (token) {
      await refundDownloadToken(db, token).catch((refundError: unknown) => {
        deps.log.error('could not give back a download token use', { skillId: skill.id, error: (refundError as Error).name });
      });
    }
    throw error;
  }
  return delivery;
}

/** Gathers only the facts the decision needs: nothing for free skills, no token read for entitled sessions. */
async function accessRoute(deps: Deps, skill: SkillItem, request: DeliveryRequest): Promise<AccessRoute> {
  if (!skill.paid) return decideAccess({ paid: false });
  const user = await request.sessionUser();
  const session = user ? await standing(deps, skill, user) : undefined;
  if (session === 'author' || session === 'granted' || request.token === undefined) return decideAccess({ paid: true, session });
  const problem = tokenProblem(await findDownloadToken(deps.db, request.token), skill.id, deps.clock());
  return decideAccess({ paid: true, session, token: problem ?? 'valid' });
}

async function standing(deps: Deps, skill: SkillItem, user: User): Promise<SessionStanding> {
  if (user.id === skill.authorId) return 'author';
  return (await hasGrant(deps.db, skill.id, user.id)) ? 'granted' : 'other';
}

/** Reads each distinct blob once; files are already sorted by filename in the version item. */
async function readFiles(deps: Deps, files: StoredFile[]): Promise<FileBytes[]> {
  const distinct = [...new Set(files.map((f) => f.sha256))];
  const blobs = new Map(await Promise.all(distinct.map(async (sha) => [sha, await getBlob(deps.blobs, sha)] as const)));
  return files.map((f) => ({ filename: f.filename, bytes: blobs.get(f.sha256)!, encoding: f.encoding }));
}
