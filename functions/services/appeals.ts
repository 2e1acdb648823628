import { type AdminAppeal, type AdminAppealDetail, type Appeal, type AppealBody, NEW_PUBLISHER_DAYS, PENDING_APPEALS_PER_AUTHOR } from '#core/appeals';
import { type FileBytes, fileEntries, toWireFile } from '#core/bundle';
import { DomainError, invalidRequest, notFound } from '#core/errors';
import type { ScanResult } from '#core/scan/finding';
import { publishBodySchema, versionBodySchema } from '#core/schemas';
import { getFiles, putBlobs } from '../content/blobs.ts';
import type { Deps } from '../platform/composition.ts';
import {
  type AppealItem,
  decideAppeal,
  getAppeal,
  listAppealsOf,
  listPendingAppeals,
  putAppeal,
  reopenAppeal,
  returnPendingPlace,
  setAppealSkill,
  takePendingPlace,
} from '../store/appeals.ts';
import { returnSlot, type SlotTaken, takeSlot } from '../store/rate-limit.ts';
import { getUser } from '../store/users.ts';
import { allow, type Principal } from './authorization.ts';
import { checkSkill, checkVersion, FIRST_VERSION, type HeldVersion, publishSkill, publishVersion } from './publishing.ts';
import { rateWindow } from './rate-windows.ts';
import { scannerOf } from './scanning.ts';

/**
 * Appeals (docs/api.md §7.15). An author whose version the scan refuses (or flags) sends it again
 * with a message. It goes through every check its publish would (who may publish it, the slug,
 * the version, dependencies, conformance, the rate limit) except the verdict, and waits: its files
 * in the private content bucket, reachable from nothing public, its item in the admins' queue.
 * An admin approves it (it is published exactly as sent, through the same publish, its scan the
 * one they reviewed with `reviewed: {by, at}`, counting against no rate limit) or declines it with
 * a reason. The author follows it at `GET /api/appeals` and in the dashboard.
 */

export interface Filed {
  result: { id: string; status: 'pending' };
  rate: SlotTaken;
}

/** Files an appeal: `422`-worthy content waits for an admin instead of being refused. */
export async function fileAppeal(deps: Deps, principal: Principal, body: AppealBody): Promise<Filed> {
  const author = principal.user;
  await allow(deps, principal, 'account.file_appeal', { kind: 'account', userId: author.id });
  // The place is taken first, in one conditional write (appeals sent at once cannot all pass), and
  // given back if the appeal is not stored.
  if (!(await takePendingPlace(deps.db, author.id, PENDING_APPEALS_PER_AUTHOR))) {
    throw new DomainError('too_many_appeals', `You have ${PENDING_APPEALS_PER_AUTHOR} appeals waiting for an admin; send another once one of them is decided`);
  }
  try {
    return await filed(deps, principal, body);
  } catch (error) {
    await returnPendingPlace(deps.db, author.id).catch(() => undefined);
    throw error;
  }
}

/**
 * Holds a new publisher's flagged version for review (docs/api.md §7.15): it is filed as an
 * appeal in the author's name, with a message that says why, and the publish is answered with
 * the error this gives, `held_for_review` naming the appeal. An author with five appeals waiting
 * is told `too_many_appeals`, as when they file one.
 */
export async function holdForReview(deps: Deps, principal: Principal, body: Omit<AppealBody, 'message'>, held: HeldVersion): Promise<DomainError> {
  const message = `Held for review: the scan flagged this version, and versions from accounts younger than ${NEW_PUBLISHER_DAYS} days or without a clean version are reviewed before they are published`;
  // The same files sent again (a second `publish --all`, a retried CI job) wait in the appeal they are already in.
  const waiting = await pendingAppealOf(deps, principal.user.id, held);
  const result = waiting ?? (await fileAppeal(deps, principal, { ...body, message } as AppealBody)).result;
  return new DomainError(
    'held_for_review',
    `The scan flagged this version and your account is new to publishing, so it waits for an admin's review (appeal ${result.id}) instead of being published flagged; follow it at GET /api/appeals`,
    { appeal: result },
  );
}

/** The author's pending appeal holding exactly `held` (the same skill, version and files), if there is one. */
async function pendingAppealOf(deps: Deps, userId: string, held: HeldVersion): Promise<{ id: string; status: 'pending' } | undefined> {
  const files = sameFilesAs(storedFiles([...held.files]));
  const found = (await listAppealsOf(deps.db, userId)).find(
    (appeal) => appeal.status === 'pending' && appeal.slug === held.slug && appeal.version === held.version && files(appeal.files),
  );
  return found && { id: found.id, status: 'pending' };
}

/** Whether stored files are `expected`, in any order: the same names, digests and executable bits. */
function sameFilesAs(expected: AppealItem['files']): (files: AppealItem['files']) => boolean {
  const key = (files: AppealItem['files']) =>
    files
      .map((f) => `${f.filename}\0${f.sha256}\0${f.executable === true}`)
      .sort()
      .join('\n');
  const wanted = key(expected);
  return (files) => key(files) === wanted;
}

/** {@link fileAppeal} once its place is taken. */
async function filed(deps: Deps, principal: Principal, body: AppealBody): Promise<Filed> {
  const author = principal.user;
  const target = await checkedTarget(deps, principal, body);
  const scan = await scannerOf(deps)(target.files, { quote: !target.paid });
  if (scan.verdict === 'clean') {
    throw invalidRequest('The scan finds nothing to appeal in this version: publish it as it is', { scan });
  }
  const window = rateWindow(deps.config, target.kind === 'skill' ? 'publish' : 'version');
  const slot = await takeSlot(deps.db, author.id, deps.clock(), window);
  const now = deps.clock().toISOString();
  const appeal: AppealItem = {
    id: crypto.randomUUID(),
    userId: author.id,
    login: author.login,
    kind: target.kind,
    status: 'pending',
    slug: target.slug,
    version: target.version,
    ...(target.skillId === undefined ? {} : { skillId: target.skillId }),
    ...(target.owner === undefined ? {} : { owner: target.owner }),
    paid: target.paid,
    message: body.message,
    createdAt: now,
    credential: storedCredential(principal.credential),
    request: target.request,
    files: storedFiles(target.files),
    scan,
    counted: true,
  };
  try {
    await putBlobs(deps.blobs, target.files);
    await putAppeal(deps.db, appeal);
  } catch (error) {
    await returnSlot(deps.db, author.id, slot.stamp, window).catch(() => undefined);
    throw error;
  }
  deps.log.info('appeal filed', { appealId: appeal.id, slug: appeal.slug, version: appeal.version, verdict: scan.verdict });
  return { result: { id: appeal.id, status: 'pending' }, rate: slot };
}

interface Target {
  kind: AppealItem['kind'];
  slug: string;
  version: string;
  skillId?: string;
  owner?: string;
  paid: boolean;
  files: FileBytes[];
  request: Record<string, unknown>;
}

/** The publish an appeal stands for, through every check of that publish but the scan's verdict. */
async function checkedTarget(deps: Deps, principal: Principal, body: AppealBody): Promise<Target> {
  if (body.publish) {
    const checked = await checkSkill(deps, principal, body.publish);
    const { files: _files, ...request } = body.publish;
    return {
      kind: 'skill',
      slug: checked.slug,
      version: checked.version,
      ...(checked.owner.type === 'org' ? { owner: checked.owner.login } : {}),
      paid: body.publish.paid,
      files: checked.files,
      request,
    };
  }
  const skillId = body.skillId!;
  const version = body.version!;
  const checked = await checkVersion(deps, principal, skillId, version);
  const { files: _files, ...request } = version;
  return { kind: 'version', slug: checked.skill.slug, version: checked.version, skillId, paid: checked.skill.paid, files: checked.files, request };
}

function storedCredential({ kind, scopes, org, skills }: Principal['credential']): AppealItem['credential'] {
  return { kind, scopes: [...scopes], ...(org === undefined ? {} : { org }), ...(skills ? { skills: [...skills] } : {}) };
}

function storedFiles(files: FileBytes[]): AppealItem['files'] {
  const entries = new Map(fileEntries(files).map((e) => [e.filename, e]));
  return files.map((file) => {
    const entry = entries.get(file.filename)!;
    return { filename: file.filename, size: entry.size, sha256: entry.sha256, encoding: file.encoding, ...(file.executable ? { executable: true } : {}) };
  });
}

/** The caller's appeals, newest first. */
export async function appealsOf(deps: Pick<Deps, 'db' | 'config'>, principal: Principal): Promise<Appeal[]> {
  await allow(deps, principal, 'account.read_appeals', { kind: 'account', userId: principal.user.id });
  return (await listAppealsOf(deps.db, principal.user.id)).map(forAuthor);
}

/** The pending appeals, oldest first: the admins' queue. */
export async function pendingAppeals(deps: Pick<Deps, 'db' | 'config'>, admin: Principal): Promise<AdminAppeal[]> {
  await assertAdmin(deps, admin);
  return (await listPendingAppeals(deps.db)).map(forAdmin);
}

/** One appeal with its files' contents, for the admin reviewing it. */
export async function appealForReview(deps: Pick<Deps, 'db' | 'config' | 'blobs'>, admin: Principal, id: string): Promise<AdminAppealDetail> {
  await assertAdmin(deps, admin);
  const appeal = await existing(deps, id);
  const files = await getFiles(deps.blobs, appeal.files);
  const entries = new Map(appeal.files.map((f) => [f.filename, f]));
  return {
    ...forAdmin(appeal),
    files: files.map((file) => {
      const { content, encoding } = toWireFile(file);
      const entry = entries.get(file.filename)!;
      return { filename: file.filename, size: entry.size, sha256: entry.sha256, content, encoding: encoding ?? 'utf8' };
    }),
  };
}

/**
 * An admin approves a pending appeal: it is decided first (so two admins cannot both publish it),
 * then published as its author sent it, with the scan the admins reviewed. When the publish fails
 * (the slug was taken meanwhile, the author may no longer publish there), the appeal is pending
 * again and the error is the answer.
 */
export async function approveAppeal(deps: Deps, admin: Principal, id: string): Promise<AdminAppeal> {
  await assertAdmin(deps, admin);
  const appeal = await existing(deps, id);
  const at = deps.clock().toISOString();
  const by = admin.user.login;
  if (!(await decideAppeal(deps.db, appeal, { status: 'approved', by, at }))) throw decided(appeal);
  try {
    const user = await getUser(deps.db, appeal.userId);
    if (!user) throw notFound(`The author of appeal ${id} no longer exists`);
    const author: Principal = { user: { id: user.id, login: user.login }, credential: appeal.credential };
    const approved = { files: await getFiles(deps.blobs, appeal.files), scan: { ...appeal.scan, reviewed: { by, at } } satisfies ScanResult };
    let skillId = appeal.skillId;
    if (appeal.kind === 'skill') {
      const body = publishBodySchema.parse({ ...appeal.request, files: [] });
      skillId = (await publishSkill(deps, author, body, FIRST_VERSION, approved)).result.id;
      await setAppealSkill(deps.db, id, skillId);
    } else {
      await publishVersion(deps, author, appeal.skillId!, versionBodySchema.parse({ ...appeal.request, files: [] }), approved);
    }
    deps.log.info('appeal approved', { appealId: id, slug: appeal.slug, version: appeal.version, admin: by });
    return forAdmin({ ...appeal, status: 'approved', decidedAt: at, decidedBy: by, ...(skillId === undefined ? {} : { skillId }) });
  } catch (error) {
    await reopenAppeal(deps.db, appeal, by, at);
    throw error;
  }
}

/** An admin declines a pending appeal, telling its author why. Nothing is published. */
export async function declineAppeal(deps: Pick<Deps, 'db' | 'config' | 'clock' | 'log'>, admin: Principal, id: string, reason: string): Promise<AdminAppeal> {
  await assertAdmin(deps, admin);
  const appeal = await existing(deps, id);
  const at = deps.clock().toISOString();
  const by = admin.user.login;
  if (!(await decideAppeal(deps.db, appeal, { status: 'declined', by, at, reason }))) throw decided(appeal);
  deps.log.info('appeal declined', { appealId: id, slug: appeal.slug, version: appeal.version, admin: by });
  return forAdmin({ ...appeal, status: 'declined', decidedAt: at, decidedBy: by, reason });
}

async function existing(deps: Pick<Deps, 'db'>, id: string): Promise<AppealItem> {
  const appeal = await getAppeal(deps.db, id);
  if (!appeal) throw notFound(`No appeal with id ${id.slice(0, 128)}`);
  return appeal;
}

const decided = (appeal: AppealItem) => new DomainError('appeal_decided', `Appeal ${appeal.id} has already been decided`);

async function assertAdmin(deps: Pick<Deps, 'db' | 'config'>, principal: Principal): Promise<void> {
  await allow(deps, principal, 'registry.moderate', { kind: 'registry' });
}

function forAuthor(appeal: AppealItem): Appeal {
  return {
    id: appeal.id,
    status: appeal.status,
    kind: appeal.kind,
    slug: appeal.slug,
    ...(appeal.skillId === undefined ? {} : { skillId: appeal.skillId }),
    version: appeal.version,
    message: appeal.message,
    createdAt: appeal.createdAt,
    scan: appeal.scan,
    ...(appeal.decidedAt === undefined ? {} : { decidedAt: appeal.decidedAt }),
    ...(appeal.reason === undefined ? {} : { reason: appeal.reason }),
  };
}

function forAdmin(appeal: AppealItem): AdminAppeal {
  return {
    ...forAuthor(appeal),
    author: appeal.login,
    ...(appeal.owner === undefined ? {} : { owner: appeal.owner }),
    paid: appeal.paid,
    files: appeal.files.map(({ filename, size, sha256 }) => ({ filename, size, sha256 })),
  };
}
