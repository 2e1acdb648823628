import { join, resolve } from 'node:path';
import semver from 'semver';
import { SKILL_FILE } from '../../core/filename.ts';
import { DEFAULT_CATEGORY } from '../../core/slug.ts';
import { CliError } from '../cli-error.ts';
import { apiKeyFor } from '../credentials.ts';
import type { CommandIo } from '../ui.ts';
import { type AppealFiled, type PublishedSkill, RegistryClient } from '../registry-client.ts';
import { warnIfFlagged } from '../scan-findings.ts';
import { assertDescribed, readSkillFolder, type SkillFolder } from '../skill-folder.ts';
import { columns, formatBytes, plural, type Ui } from '../ui.ts';
import type { PublishBody } from '../../core/schemas.ts';
import { validated } from '../validated.ts';

export interface PublishOptions {
  registry: string;
  dir: string;
  category?: string;
  slug?: string;
  paid: boolean;
  changelog?: string;
  /** An organisation to publish into (the caller maintains or owns it). */
  org?: string;
  /** Seen and installed only by the organisation's members. */
  private?: boolean;
  /** Show what would be sent, send nothing. */
  dryRun: boolean;
  /** Send it as an appeal with this message, for an admin to review, instead of publishing it (docs/api.md §7.15). */
  appeal?: string;
}

export interface PublishedFile {
  filename: string;
  size: number;
  encoding: 'utf8' | 'base64';
}

export interface PublishResult {
  dryRun: boolean;
  slug: string;
  /** `--category`, else the SKILL.md's `metadata.category`, else the default (`general`). */
  category: string;
  /** The skill as the registry created it; null on a dry run or an appeal. */
  skill: PublishedSkill | null;
  /** The appeal filed instead, with --appeal. */
  appeal?: AppealFiled;
  files: PublishedFile[];
  bytes: number;
  /** What the SKILL.md front matter should fix (accepted as it is). */
  warnings: string[];
}

/**
 * `skillpress publish [dir]`: creates a skill at 1.0.0 from a folder. The `SKILL.md` front
 * matter names it (its `name` is the slug) and describes it, and the folder is checked as the
 * registry checks it before anything is sent; the display name is the body's first heading, the
 * category `--category`, else `metadata.category`, else `general` (said in the output, as every
 * new skill needs one); the files are the folder's, minus what
 * `.gitignore`/`.skillignore` exclude. Later versions of the same skill go through
 * `skillpress version`.
 */
export async function publish(options: PublishOptions, io: CommandIo): Promise<PublishResult> {
  const { ui } = io;
  const dir = resolve(io.cwd, options.dir);
  const folder = await readSkillFolder(dir, options.slug);
  assertDescribed(folder, options.dir);
  const category = options.category ?? folder.category ?? DEFAULT_CATEGORY;
  const body = await publishBody(folder, { ...options, category });
  const shownSlug = folder.slug;
  const files = describeFiles(folder);
  reportSkipped(ui, folder);
  reportWarnings(ui, folder.warnings);
  const categoryFrom = options.category ? '--category' : folder.category ? `${SKILL_FILE} metadata.category` : 'none given: the default';
  ui.line(ui.c.dim(`Category: ${category} (${categoryFrom})`));

  if (options.dryRun) {
    printFiles(ui, files);
    ui.line(ui.c.dim(`Dry run: ${shownSlug}@1.0.0 would be published with ${plural(files.length, 'file')} (${formatBytes(folder.bytes)}); nothing was sent.`));
    return { dryRun: true, slug: shownSlug, category, skill: null, files, bytes: folder.bytes, warnings: folder.warnings };
  }

  const client = new RegistryClient(options.registry, io);
  const key = await apiKeyFor(io.env, client.base);
  if (options.appeal !== undefined) {
    const appeal = await client.appeal(key, { message: options.appeal, publish: body });
    reportAppeal(ui, client.base, `${shownSlug}@1.0.0`, appeal);
    return { dryRun: false, slug: shownSlug, category, skill: null, appeal, files, bytes: folder.bytes, warnings: folder.warnings };
  }
  let skill: PublishedSkill;
  try {
    skill = await client.publish(key, body);
  } catch (error) {
    if (error instanceof CliError && error.code === 'slug_taken') throw await slugTakenAdvice(client, error, shownSlug, options.dir);
    throw withAppealHint(error, 'publish', options.dir);
  }
  const { c } = ui;
  ui.line(
    `${c.green('Published')} ${c.bold(skill.slug)}@${skill.currentVersion} ${c.dim(`(${plural(files.length, 'file')}, ${formatBytes(folder.bytes)}${skill.paid ? ', paid' : ''}${skill.visibility === 'private' ? ', private' : ''})`)} to ${client.base}${skill.owner.type === 'org' ? ` as ${skill.owner.login}` : ''}`,
  );
  ui.line(c.dim(`Install it with: skillpress install ${skill.slug}`));
  warnIfFlagged(ui, `${skill.slug}@${skill.currentVersion}`, skill.scan);
  const warnings = reportWarnings(ui, skill.warnings ?? [], folder.warnings);
  return { dryRun: false, slug: skill.slug, category, skill, files, bytes: folder.bytes, warnings: [...folder.warnings, ...warnings] };
}

/** After an appeal is filed: what happens next, and where to follow it. */
export function reportAppeal(ui: Ui, registry: string, what: string, appeal: AppealFiled): void {
  ui.line(`${ui.c.yellow('Appealed')} ${ui.c.bold(what)}: appeal ${appeal.id} waits for an admin's review; nothing is published until one approves it`);
  ui.line(ui.c.dim(`Follow it in the dashboard (${registry}/dashboard/) or at GET ${registry}/api/appeals`));
}

/**
 * A refused publish (`content_rejected`) says how to ask for a review: the same command with
 * `--appeal "<why the findings are mistaken>"`.
 */
export function withAppealHint(error: unknown, command: 'publish' | 'version', dir: string, version?: string): unknown {
  if (!(error instanceof CliError) || error.code !== 'content_rejected') return error;
  const args = [command, ...(dir === '.' ? [] : [dir]), ...(version ? [version] : [])].join(' ');
  return new CliError(error.code, error.message, {
    ...error.options,
    hint: `if the findings are mistaken, ask the registry's admins to review it: skillpress ${args} --appeal "<why>"`,
  });
}

/** The publish request for a folder, checked with the API's own schema. */
export function publishBody(
  folder: SkillFolder,
  options: Pick<PublishOptions, 'paid' | 'changelog' | 'org' | 'private'> & { category: string },
): Promise<PublishBody> {
  return validated('publish', {
    name: folder.name,
    description: folder.description,
    category: options.category,
    slug: folder.slug,
    paid: options.paid,
    files: folder.files,
    ...(options.changelog ? { changelog: options.changelog } : {}),
    dependencies: folder.dependencies,
    ...(options.org === undefined ? {} : { owner: options.org }),
    ...(options.private ? { visibility: 'private' } : {}),
  });
}

/**
 * Prints the warnings not among `shown` (the registry repeats those the local check gave) and
 * returns them.
 */
export function reportWarnings(ui: Ui, warnings: readonly string[], shown: readonly string[] = []): string[] {
  const fresh = warnings.filter((w) => !shown.includes(w));
  for (const warning of fresh) ui.warn(`${SKILL_FILE}: ${warning}`);
  return fresh;
}

export function describeFiles(folder: SkillFolder): PublishedFile[] {
  return folder.files.map((f) => ({
    filename: f.filename,
    size: f.encoding === 'base64' ? Buffer.from(f.content, 'base64').byteLength : Buffer.byteLength(f.content),
    encoding: f.encoding ?? 'utf8',
  }));
}

export function printFiles(ui: Ui, files: PublishedFile[]): void {
  for (const row of columns(files.map((f) => [`  ${f.filename}`, ui.c.dim(formatBytes(f.size)), f.encoding === 'base64' ? ui.c.dim('binary') : ''])))
    ui.line(row);
}

export function reportSkipped(ui: Ui, folder: SkillFolder): void {
  for (const path of folder.skipped) ui.warn(`${path} is a special file (a socket, pipe or device) and is not published`);
}

/**
 * A taken slug in the client's terms (the API's message names its own endpoint): the caller's own
 * skill wants a new version of it, anyone else's a new name.
 */
export async function slugTakenAdvice(client: RegistryClient, error: CliError, slug: string, dir: string): Promise<CliError> {
  const options = { status: error.options.status ?? 409 };
  const yours = typeof (error.options.details as { skillId?: unknown } | undefined)?.skillId === 'string';
  if (!yours) {
    return new CliError(error.code, `the name "${slug}" belongs to another skill in ${client.base}`, {
      ...options,
      hint: `publish under another name: change "name: ${slug}" in ${join(dir, SKILL_FILE)} (and the folder's name to match), then run skillpress publish again`,
    });
  }
  const current = await client.skill(slug).then(
    (doc) => doc.currentVersion,
    () => undefined,
  );
  const where = dir === '.' ? '' : `${dir} `;
  return new CliError(error.code, `you already publish ${slug}${current ? ` (at ${current})` : ''}: this folder would be a new version of it`, {
    ...options,
    hint: `skillpress version ${where}patch --changelog "what changed" (or minor, major, or a version such as ${current ? semver.inc(current, 'minor') : '1.1.0'})`,
  });
}
