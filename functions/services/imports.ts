import { createHmac, timingSafeEqual } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { bundleIntegrity, type FileBytes, toWireFile } from '#core/bundle';
import { DomainError, isDomainError, notFound, payloadTooLarge, unauthenticated } from '#core/errors';
import { SKILL_FILE } from '#core/filename';
import { limits } from '#core/limits';
import { mapLimit } from '#core/map-limit';
import { folderFiles, isLink, suggestedVersion, type TreeEntry } from '#core/repo-import';
import { type ImportBody, type ImportFolder, type ImportResult, type ImportView, publishBodySchema, versionBodySchema } from '#core/schemas';
import { skillFolderPaths } from '#core/skill-folders';
import { validate } from '#core/validate';
import type { VersionSource } from '#core/version-source';
import type { Deps } from '../platform/composition.ts';
import { readSecret } from '../platform/secrets-manager.ts';
import { newId } from '../platform/secrets.ts';
import { type ImportItem, getImport, listImportsOf, putImport, recordSync } from '../store/imports.ts';
import { getOrg } from '../store/orgs.ts';
import { findSkillIdBySlug, getSkill, getVersion } from '../store/skills.ts';
import { returnSlot, type SlotTaken, takeSlot } from '../store/rate-limit.ts';
import { getUser } from '../store/users.ts';
import { allow, allowSkill, type Principal, rolesIn } from './authorization.ts';
import { GitHubRepos, type Repository } from './github-repos.ts';
import { FIRST_VERSION, publishSkill, publishVersion } from './publishing.ts';
import { rateWindow } from './rate-windows.ts';

/**
 * GitHub imports (docs/api.md §7.16): a repository's skill folders, read at a commit through
 * GitHub's REST API, each published through the publishing service as a publish from the API
 * would be (conformance, scan, rate limits, who may publish where): a new skill, a new version
 * where the files changed, nothing where they did not. An import is kept: its webhook (a push to
 * the tracked ref) and "sync now" import again. Only the repository's owner may import it.
 *
 * The webhook's secret is HMAC-SHA256 of the import's id under the server's import key, so the
 * table holds nothing a webhook could be forged with; it is shown once, in the answer that
 * created the import, and never logged.
 */

/** Blobs read from GitHub at once. */
const BLOB_READS = 8;

/**
 * `POST /api/imports`: imports `body.repo` and keeps the import. The same repository, ref, folder
 * and organisation imported again by the same user is that import synced (`created: false`).
 */
export async function createImport(deps: Deps, principal: Principal, body: ImportBody, origin: string): Promise<{ result: ImportResult; created: boolean }> {
  const key = await importKey(deps);
  const { user } = principal;
  await allow(deps, principal, 'account.import_repo', { kind: 'account', userId: user.id });
  let orgLogin: string | undefined;
  if (body.org !== undefined) {
    const org = await getOrg(deps.db, body.org);
    if (!org) throw notFound(`No organisation ${body.org}`);
    await allow(deps, principal, 'org.create_skill', { kind: 'org', login: org.login }, rolesIn(org, user.id));
    orgLogin = org.login;
  }
  const github = await GitHubRepos.open(deps.config.github, deps.config.region);
  const repository = await ownedRepository(github, principal, body.repo);
  const ref = body.ref ?? repository.defaultBranch;
  const path = body.path ?? '';
  const existing = (await listImportsOf(deps.db, user.id)).find(
    (i) => i.repo.toLowerCase() === repository.fullName.toLowerCase() && i.ref === ref && i.path === path && (i.org ?? '') === (orgLogin ?? ''),
  );
  const item: ImportItem = existing ?? {
    id: newId(),
    userId: user.id,
    repo: repository.fullName,
    ref,
    path,
    ...(orgLogin === undefined ? {} : { org: orgLogin }),
    createdAt: deps.clock().toISOString(),
  };
  // Everything GitHub can refuse is read before the import is kept: a failed import leaves none.
  const read = await readSkillFolders(github, item);
  if (!existing) await putImport(deps.db, item);
  const result = await publishFolders(deps, principal, item, read, origin);
  return { result: existing ? result : { ...result, webhookSecret: webhookSecret(key, item.id) }, created: !existing };
}

/** `GET /api/imports`: the caller's imports, oldest first. */
export async function importsOf(deps: Deps, principal: Principal, origin: string): Promise<ImportView[]> {
  await allow(deps, principal, 'account.import_repo', { kind: 'account', userId: principal.user.id });
  return (await listImportsOf(deps.db, principal.user.id)).map((item) => view(item, origin));
}

/** `POST /api/imports/{id}/sync`: imports the tracked ref again, now. Someone else's import is as unknown as a missing one. */
export async function syncImport(deps: Deps, principal: Principal, id: string, origin: string): Promise<ImportResult> {
  await allow(deps, principal, 'account.import_repo', { kind: 'account', userId: principal.user.id });
  const item = await getImport(deps.db, id);
  if (!item || item.userId !== principal.user.id) throw notFound(`No import ${id}`);
  return sync(deps, principal, item, origin);
}

/** What a webhook delivery did: synced the import, or nothing (another event or another ref). */
export type WebhookOutcome = { synced: ImportResult } | { ignored: string };

/**
 * `POST /api/imports/{id}/webhook`: a delivery from GitHub, verified by `X-Hub-Signature-256`
 * (HMAC-SHA256 of the exact body with the import's secret) before anything is read. A push to the
 * tracked ref syncs the import as the user who made it; a ping, another event or another ref
 * changes nothing.
 */
export async function receiveImportWebhook(
  deps: Deps,
  id: string,
  payload: Uint8Array,
  headers: { signature?: string; event?: string },
  origin: string,
): Promise<WebhookOutcome> {
  const key = await importKey(deps);
  if (!signatureMatches(webhookSecret(key, id), payload, headers.signature)) throw unauthenticated('X-Hub-Signature-256 is missing or does not match the body');
  const item = await getImport(deps.db, id);
  if (!item) throw notFound(`No import ${id}`);
  if (headers.event !== 'push') return { ignored: `a ${headers.event ?? 'unnamed'} event` };
  const pushed = pushedRef(payload);
  if (pushed === undefined || !tracks(item.ref, pushed)) return { ignored: `a push to ${pushed ?? 'no ref'}, not ${item.ref}` };
  const user = await getUser(deps.db, item.userId);
  if (!user) throw notFound(`No import ${id}`);
  // The webhook publishes for the user who made the import, as a key that may publish would.
  const principal: Principal = {
    user: { id: user.id, login: user.login },
    credential: { kind: 'api-key', scopes: ['publish'] },
  };
  return { synced: await sync(deps, principal, item, origin) };
}

async function sync(deps: Deps, principal: Principal, item: ImportItem, origin: string): Promise<ImportResult> {
  const github = await GitHubRepos.open(deps.config.github, deps.config.region);
  await ownedRepository(github, principal, item.repo);
  return publishFolders(deps, principal, item, await readSkillFolders(github, item), origin);
}

/** The repository, when the caller owns it: 403 `not_repo_owner` otherwise, a public repository included. */
async function ownedRepository(github: GitHubRepos, principal: Principal, repo: string): Promise<Repository> {
  const repository = await github.repository(repo);
  if (await github.ownsRepository(principal.user, repository)) return repository;
  const why = principal.user.id.startsWith('gh:') ? '' : ' (sign in with GitHub: only a GitHub account can own a repository)';
  throw new DomainError('not_repo_owner', `Only ${repository.fullName}'s owner, or a member of the organisation that owns it, may import it${why}`);
}

/** A skill folder as read at the commit: its files, or why it cannot be published. */
type ReadFolder = { path: string; files: FileBytes[] } | { path: string; refused: DomainError };

interface ReadRepository {
  commit: string;
  folders: ReadFolder[];
}

/** The commit the import's ref names now, and each skill folder's files there. */
async function readSkillFolders(github: GitHubRepos, item: ImportItem): Promise<ReadRepository> {
  const commit = await github.commitOf(item.repo, item.ref);
  const prefix = item.path === '' ? '' : `${item.path}/`;
  const tree = (await github.tree(item.repo, commit)).filter((e) => prefix === '' || e.path.startsWith(prefix));
  const relative = (path: string) => path.slice(prefix.length);
  const paths = skillFolderPaths(tree.filter((e) => e.type === 'blob').map((e) => relative(e.path)));
  if (paths.length === 0)
    throw new DomainError('invalid_skill', `${item.repo}@${item.ref}${item.path ? ` ${item.path}` : ''} has no skill folder (a folder with a ${SKILL_FILE})`);
  if (paths.length > limits.importFolders)
    throw payloadTooLarge(`${item.repo} has ${paths.length} skill folders; an import takes at most ${limits.importFolders}: import a folder of it with path`);
  const entries: TreeEntry[] = tree.map((e) => ({ ...e, path: relative(e.path) }));
  const links = new Map<string, string>();
  await mapLimit(
    entries.filter(isLink),
    BLOB_READS,
    async (link) => void links.set(link.path, Buffer.from(await github.blob(item.repo, link.sha)).toString('utf8')),
  );
  const folders: ReadFolder[] = [];
  for (const folder of paths) {
    const where = item.path && folder ? `${item.path}/${folder}` : item.path || folder;
    const planned = folderFiles(entries, folder, links);
    if ('refusedLinks' in planned) {
      folders.push({
        path: where,
        refused: new DomainError(
          'invalid_skill',
          `Links that point outside the skill folder, or to nothing, cannot be published: ${planned.refusedLinks.join(', ')}`,
          {
            issues: planned.refusedLinks.map((file) => ({ file, message: 'a link pointing outside the skill folder' })),
          },
        ),
      });
      continue;
    }
    const tooLarge = planned.files.find((f) => f.size > limits.fileBytes);
    if (planned.files.length > limits.filesPerVersion || tooLarge) {
      const message = tooLarge
        ? `${tooLarge.filename} is over ${limits.fileBytes} bytes`
        : `At most ${limits.filesPerVersion} files per version; got ${planned.files.length}`;
      folders.push({ path: where, refused: payloadTooLarge(message) });
      continue;
    }
    const files = await mapLimit(planned.files, BLOB_READS, async (f): Promise<FileBytes> => {
      const bytes = await github.blob(item.repo, f.sha);
      // Text stays text, as the CLI sends it; anything else travels as base64.
      const encoding = isUtf8(bytes) && !bytes.includes(0) ? 'utf8' : 'base64';
      return { filename: f.filename, bytes, encoding, ...(f.executable ? { executable: true } : {}) };
    });
    folders.push({ path: where, files });
  }
  return { commit, folders };
}

/**
 * Publishes each folder in path order; one refused never stops the others. The import is one
 * request against each rate limit (docs/api.md §6.4), as `publish --all` is one run: it takes one
 * slot of the new-skills window before its first new skill and one of the versions window before
 * its first version, and gives back a slot no folder was published with. A repository of more
 * skills than a minute allows is imported in one step, and its 100 folders bound what one slot buys.
 */
async function publishFolders(deps: Deps, principal: Principal, item: ImportItem, read: ReadRepository, origin: string): Promise<ImportResult> {
  const outcomes: ImportFolder[] = [];
  const slots = new Map<'publish' | 'version', SlotTaken>();
  const slotFor = async (action: 'publish' | 'version') => {
    if (!slots.has(action)) slots.set(action, await takeSlot(deps.db, principal.user.id, deps.clock(), rateWindow(deps.config, action)));
  };
  for (const folder of read.folders) {
    if ('refused' in folder) {
      outcomes.push(refused(folder.path, undefined, folder.refused));
      continue;
    }
    const source: VersionSource = { repo: item.repo, commit: read.commit, path: folder.path };
    outcomes.push(await publishFolder(deps, principal, item, folder.files, source, slotFor));
  }
  for (const [action, slot] of slots) {
    const outcome = action === 'publish' ? 'published' : 'versioned';
    if (!outcomes.some((o) => o.outcome === outcome)) await returnSlot(deps.db, principal.user.id, slot.stamp, rateWindow(deps.config, action));
  }
  const lastSync = { at: deps.clock().toISOString(), commit: read.commit };
  await recordSync(deps.db, item.id, lastSync);
  return { ...view({ ...item, lastSync }, origin), commit: read.commit, folders: outcomes };
}

/** Publishes one folder; `slotFor` takes the import's slot of a rate window before its first publish of that kind. */
async function publishFolder(
  deps: Deps,
  principal: Principal,
  item: ImportItem,
  files: FileBytes[],
  source: VersionSource,
  slotFor: (action: 'publish' | 'version') => Promise<void>,
): Promise<ImportFolder> {
  // The conformance check and its YAML parser are loaded on first use, as publishing loads them.
  const { checkSkillConformance } = await import('#core/skill-conformance');
  const conformance = checkSkillConformance(files);
  const slug = typeof conformance.frontMatter?.name === 'string' ? conformance.frontMatter.name : undefined;
  try {
    if (conformance.issues.length > 0 || slug === undefined) {
      const [first] = conformance.issues;
      throw new DomainError('invalid_skill', `The files are not a valid Agent Skill: ${first ? `${first.file}: ${first.message}` : 'no name'}`, {
        issues: conformance.issues,
      });
    }
    const wire = files.map(toWireFile);
    const existing = await findSkillIdBySlug(deps.db, slug);
    if (!existing) {
      const { listingFromSkillFile } = await import('#core/skill-listing');
      const { headingName, readFrontMatter } = await import('#core/skill-front-matter');
      const { readSkillpressKeys } = await import('#core/skillpress-metadata');
      const listing = listingFromSkillFile(wire);
      const skillFile = wire.find((f) => f.filename === SKILL_FILE)!;
      const body = validate(publishBodySchema, {
        name: headingName(readFrontMatter(skillFile.content).body) ?? slug,
        description: listing.description ?? conformance.description,
        category: listing.category,
        slug,
        files: wire,
        dependencies: readSkillpressKeys(conformance.frontMatter!).dependencies,
        ...(item.org === undefined ? {} : { owner: item.org }),
      });
      await slotFor('publish');
      await publishSkill(deps, principal, body, FIRST_VERSION, undefined, source);
      return { path: source.path, slug, outcome: 'published', version: FIRST_VERSION };
    }
    const { skill } = await allowSkill(deps, principal, await getSkill(deps.db, existing), existing, 'skill.publish_version');
    const current = await getVersion(deps.db, skill.id, skill.currentVersion);
    if (current?.integrity === bundleIntegrity(files)) return { path: source.path, slug, outcome: 'unchanged', version: skill.currentVersion };
    const version = suggestedVersion(skill.currentVersion, conformance.frontMatter?.metadata);
    const { readSkillpressKeys } = await import('#core/skillpress-metadata');
    const body = validate(versionBodySchema, { version, files: wire, dependencies: readSkillpressKeys(conformance.frontMatter!).dependencies });
    await slotFor('version');
    await publishVersion(deps, principal, skill.id, body, undefined, source);
    return { path: source.path, slug, outcome: 'versioned', version };
  } catch (error) {
    if (isDomainError(error)) return refused(source.path, slug, error);
    throw error;
  }
}

const refused = (path: string, slug: string | undefined, error: DomainError): ImportFolder => ({
  path,
  ...(slug === undefined ? {} : { slug }),
  outcome: 'refused',
  error: { code: error.code, message: error.message },
});

function view(item: ImportItem, origin: string): ImportView {
  return {
    id: item.id,
    repo: item.repo,
    ref: item.ref,
    path: item.path,
    ...(item.org === undefined ? {} : { org: item.org }),
    createdAt: item.createdAt,
    webhookUrl: `${origin}/api/imports/${encodeURIComponent(item.id)}/webhook`,
    ...(item.lastSync ? { lastSync: item.lastSync } : {}),
  };
}

/** The server's import key: without one no webhook could be verified, so imports are off (503). */
async function importKey(deps: Deps): Promise<string> {
  const key = await readSecret(deps.config.github.importKey, deps.config.region);
  if (!key) throw new DomainError('imports_unavailable', 'GitHub imports are not set up on this registry');
  return key;
}

/** The import's webhook secret: derived, never stored. */
function webhookSecret(key: string, id: string): string {
  return createHmac('sha256', key).update(`skillpress-import-webhook:${id}`).digest('base64url');
}

/** Whether `header` is `sha256=<hex>` of the body under `secret`, compared in constant time. */
function signatureMatches(secret: string, payload: Uint8Array, header: string | undefined): boolean {
  const given = /^sha256=([0-9a-f]{64})$/i.exec(header?.trim() ?? '')?.[1];
  if (given === undefined) return false;
  const expected = createHmac('sha256', secret).update(payload).digest();
  return timingSafeEqual(expected, Buffer.from(given, 'hex'));
}

/** The `ref` of a push event's body, or undefined for a body that is not one. */
function pushedRef(payload: Uint8Array): string | undefined {
  try {
    const ref = (JSON.parse(Buffer.from(payload).toString('utf8')) as { ref?: unknown } | null)?.ref;
    return typeof ref === 'string' ? ref : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a push to `pushed` (`refs/heads/main`) moves the tracked `ref` (`main`, `refs/heads/main`, a tag). */
function tracks(ref: string, pushed: string): boolean {
  return pushed === ref || pushed === `refs/heads/${ref}` || pushed === `refs/tags/${ref}`;
}
