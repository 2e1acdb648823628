import { resolve } from 'node:path';
import semver from 'semver';
import type { Skill } from '../../core/schemas.ts';
import { slugify } from '../../core/slug.ts';
import { CliError, usage } from '../cli-error.ts';
import { apiKeyFor } from '../credentials.ts';
import type { CommandIo } from '../ui.ts';
import { type PublishedSkill, RegistryClient } from '../registry-client.ts';
import { warnIfFlagged } from '../scan-findings.ts';
import { readSkillFolder, type SkillFolder } from '../skill-folder.ts';
import { columns, formatBytes, plural, type Ui } from '../ui.ts';
import { validated } from '../validated.ts';

export interface PublishOptions {
  registry: string;
  dir: string;
  category?: string;
  slug?: string;
  paid: boolean;
  changelog?: string;
  /** Show what would be sent, send nothing. */
  dryRun: boolean;
}

export interface PublishedFile {
  filename: string;
  size: number;
  encoding: 'utf8' | 'base64';
}

export interface PublishResult {
  dryRun: boolean;
  slug: string;
  /** The skill as the registry created it; null on a dry run. */
  skill: Skill | null;
  files: PublishedFile[];
  bytes: number;
}

/**
 * `skillpress publish [dir]`: creates a skill at 1.0.0 from a folder. Name and description come
 * from the `SKILL.md` front matter, the category from `--category` (or the front matter); the
 * files are the folder's, minus what `.gitignore`/`.skillignore` exclude. Later versions of the
 * same skill go through `skillpress version`.
 */
export async function publish(options: PublishOptions, io: CommandIo): Promise<PublishResult> {
  const { ui } = io;
  const dir = resolve(io.cwd, options.dir);
  const folder = await readSkillFolder(dir);
  const category = options.category ?? folder.category;
  if (!category) throw usage('a category is needed', 'pass --category <label> (e.g. --category dev-tools) or add "category:" to the SKILL.md front matter');
  const slug = options.slug ?? folder.slug;
  const body = await validated('publish', {
    name: folder.name,
    description: folder.description,
    category,
    ...(slug ? { slug } : {}),
    paid: options.paid,
    files: folder.files,
    ...(options.changelog ? { changelog: options.changelog } : {}),
    dependencies: folder.dependencies,
  });
  const shownSlug = body.slug ?? slugify(body.name);
  const files = describeFiles(folder);
  reportSkipped(ui, folder);

  if (options.dryRun) {
    printFiles(ui, files);
    ui.line(ui.c.dim(`Dry run: ${shownSlug}@1.0.0 would be published with ${plural(files.length, 'file')} (${formatBytes(folder.bytes)}); nothing was sent.`));
    return { dryRun: true, slug: shownSlug, skill: null, files, bytes: folder.bytes };
  }

  const client = new RegistryClient(options.registry, io);
  const key = await apiKeyFor(io.env, client.base);
  let skill: PublishedSkill;
  try {
    skill = await client.publish(key, body);
  } catch (error) {
    if (error instanceof CliError && error.code === 'slug_taken') throw await slugTakenAdvice(client, error, shownSlug, options.dir);
    throw error;
  }
  const { c } = ui;
  ui.line(
    `${c.green('Published')} ${c.bold(skill.slug)}@${skill.currentVersion} ${c.dim(`(${plural(files.length, 'file')}, ${formatBytes(folder.bytes)}${skill.paid ? ', paid' : ''})`)} to ${client.base}`,
  );
  ui.line(c.dim(`Install it with: skillpress install ${skill.slug}`));
  warnIfFlagged(ui, `${skill.slug}@${skill.currentVersion}`, skill.scan);
  if (options.slug && !folder.slug) ui.line(c.dim(`Add "slug: ${skill.slug}" to the SKILL.md front matter so skillpress version finds this skill.`));
  return { dryRun: false, slug: skill.slug, skill, files, bytes: folder.bytes };
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
  for (const path of folder.skipped) ui.warn(`${path} is a link or special file and is not published`);
}

/** The slug exists: if it is the user's skill, what they want is a new version. */
async function slugTakenAdvice(client: RegistryClient, error: CliError, slug: string, dir: string): Promise<CliError> {
  const current = await client.skill(slug).then(
    (doc) => doc.currentVersion,
    () => undefined,
  );
  const next = current ? semver.inc(current, 'patch') : '1.0.1';
  const where = dir === '.' ? '' : `${dir} `;
  return new CliError(error.code, `${error.message}${current ? ` (${slug} is at ${current})` : ''}`, {
    ...error.options,
    hint: `if ${slug} is yours, publish a new version instead: skillpress version ${where}${next} --changelog "..."; otherwise choose another --slug`,
  });
}
