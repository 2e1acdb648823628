import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { SKILL_FILE } from '../../core/filename.ts';
import { mapLimit } from '../../core/map-limit.ts';
import { DEFAULT_CATEGORY } from '../../core/slug.ts';
import type { PublishBody, VersionBody } from '../../core/schemas.ts';
import { SKILL_FOLDER_DEPTH, searchesFolder } from '../../core/skill-folders.ts';
import { CliError, usage } from '../cli-error.ts';
import { apiKeyFor } from '../credentials.ts';
import { type Bump, bumped, type Standing, standingOf } from '../publish-plan.ts';
import { RegistryClient } from '../registry-client.ts';
import { warnIfFlagged } from '../scan-findings.ts';
import { assertDescribed, readSkillFolder, type SkillFolder } from '../skill-folder.ts';
import { columns, type CommandIo, formatBytes, plural, type Ui } from '../ui.ts';
import { validated } from '../validated.ts';
import { publishBody, reportSkipped, reportWarnings, slugTakenAdvice } from './publish.ts';

export interface PublishAllOptions {
  registry: string;
  dir: string;
  /** For new skills whose SKILL.md names none (else {@link DEFAULT_CATEGORY}). */
  category?: string;
  /** How a changed skill's new version follows its newest one. */
  bump: Bump;
  changelog?: string;
  /** New skills go into this organisation. */
  org?: string;
  private?: boolean;
  dryRun: boolean;
}

export interface PublishAllEntry {
  slug: string;
  /** The skill's folder, relative to the current one. */
  dir: string;
  /**
   * `publish`: a new skill at 1.0.0; `version`: a new version of a changed one; `unchanged`:
   * nothing to send; `observing`: nothing to send yet, its first version (published moments ago)
   * being run in the registry's sandbox, which must end before a next version is numbered.
   */
  action: 'publish' | 'version' | 'unchanged' | 'observing';
  /** The version published (or that would be), or the newest for an unchanged skill; absent while observed. */
  version?: string;
  /** The newest version before, for `version`. */
  from?: string;
  /** A new skill's category: its SKILL.md's, else `--category`, else the default. */
  category?: string;
  files: number;
  bytes: number;
  /** Whether the registry took it: false on a dry run, for an unchanged skill and on a failure. */
  published: boolean;
  error?: { code: string; message: string; hint?: string };
}

export interface PublishAllResult {
  dryRun: boolean;
  skills: PublishAllEntry[];
}

/** What `publish --all` does with a folder of each standing. */
const ACTION: Record<Standing['state'], PublishAllEntry['action']> = {
  new: 'publish',
  changed: 'version',
  unchanged: 'unchanged',
  'being-observed': 'observing',
};

interface Planned {
  folder: SkillFolder;
  dir: string;
  standing: Standing;
  /** What is sent: a new skill's publish, or a changed one's version (checked with the API's schemas). */
  request?: { publish: PublishBody } | { version: VersionBody };
  entry: PublishAllEntry;
}

/**
 * How long a `429` may ask to wait before the run stops waiting: the publish limits' windows are
 * a minute, so a longer wait is not one a run should sit through unannounced.
 */
const MAX_WAIT_SECONDS = 300;
/** How many times in a row one skill may be refused for the rate limit before the run gives up on it. */
const MAX_WAITS = 10;

/**
 * `skillpress publish --all [dir]` (alias `sync`): every skill folder under `dir` (a folder with a
 * `SKILL.md`; its own subfolders are its files) that is not in the registry yet is published at
 * 1.0.0, and every one whose files differ from its newest version gets a new version, that
 * version bumped (`--bump`, patch by default); identical ones are left alone, so running it again
 * sends nothing. Every folder is read and checked before anything is sent, and one that cannot
 * be published stops the run there; skills that others depend on go first. A new skill's category
 * is its SKILL.md's, else `--category`, else `general`. When the registry's rate limit refuses a
 * publish (`429`), the run waits out its `Retry-After` and goes on, so it ends only when every
 * folder is published or unchanged (it returns), or some could not be (it throws, saying which).
 */
export async function publishAll(options: PublishAllOptions, io: CommandIo): Promise<PublishAllResult> {
  const { ui } = io;
  const { c } = ui;
  const root = resolve(io.cwd, options.dir);
  const dirs = await skillFolders(root);
  if (dirs.length === 0) throw usage(`no skill folder under ${options.dir}`, `a skill folder holds a ${SKILL_FILE}; start one with skillpress init <name>`);
  const shown = (dir: string) => relative(io.cwd, dir) || '.';

  const problems: Record<string, string> = {};
  const folders: { dir: string; folder: SkillFolder }[] = [];
  for (const dir of dirs) {
    try {
      const folder = await readSkillFolder(dir);
      assertDescribed(folder, shown(dir));
      folders.push({ dir, folder });
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      problems[shown(dir)] = problemText(error);
    }
  }
  const bySlug = new Map<string, string>();
  for (const { dir, folder } of folders) {
    const other = bySlug.get(folder.slug);
    if (other !== undefined) problems[shown(dir)] = `names ${folder.slug}, as ${shown(other)} does`;
    else bySlug.set(folder.slug, dir);
  }
  refuseProblems(problems, dirs.length);

  const client = new RegistryClient(options.registry, io);
  const planned: Planned[] = await mapLimit(folders, 4, async ({ dir, folder }) => {
    const standing = await standingOf(client, folder);
    const category = standing.state === 'new' ? (folder.category ?? options.category ?? DEFAULT_CATEGORY) : undefined;
    const entry: PublishAllEntry = {
      slug: folder.slug,
      dir: shown(dir),
      action: ACTION[standing.state],
      ...(standing.state === 'being-observed'
        ? {}
        : { version: standing.state === 'new' ? '1.0.0' : standing.state === 'changed' ? bumped(standing.newest, options.bump) : standing.newest }),
      ...(standing.state === 'changed' ? { from: standing.newest } : {}),
      ...(category ? { category } : {}),
      files: folder.files.length,
      bytes: folder.bytes,
      published: false,
    };
    let request: Planned['request'];
    try {
      // Checked now, as the registry will check it, so a dry run finds what the real run would be refused.
      if (category)
        request = { publish: await publishBody(folder, { paid: false, changelog: options.changelog, org: options.org, private: options.private, category }) };
      else if (standing.state === 'changed') request = { version: await versionBody(folder, entry.version!, options.changelog) };
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      problems[shown(dir)] = problemText(error);
    }
    return { folder, dir, standing, ...(request ? { request } : {}), entry };
  });
  refuseProblems(problems, dirs.length);

  const ordered = dependenciesFirst(planned);
  const rows = ordered.map(({ folder, entry }) => [
    `  ${entry.action === 'unchanged' || entry.action === 'observing' ? c.dim('=') : c.green(entry.action === 'publish' ? '+' : '↑')} ${c.bold(entry.slug)}`,
    entry.action === 'publish'
      ? `${entry.version} (new, in ${entry.category}${folder.category ? '' : options.category ? ', from --category' : ', the default'})`
      : entry.action === 'version'
        ? `${entry.from} → ${entry.version}`
        : entry.action === 'observing'
          ? c.dim("published, its first version being run in the registry's sandbox: left alone")
          : c.dim(`${entry.version} unchanged`),
    c.dim(`${entry.dir} · ${plural(entry.files, 'file')}, ${formatBytes(entry.bytes)}`),
  ]);
  for (const row of columns(rows)) ui.line(row);
  const sending = ordered.filter((p) => p.entry.action === 'publish' || p.entry.action === 'version');
  for (const { folder } of sending) for (const warning of folder.warnings) ui.warn(`${folder.slug}: ${SKILL_FILE}: ${warning}`);
  const unchanged = ordered.filter((p) => p.entry.action === 'unchanged').length;
  const observing = ordered.filter((p) => p.entry.action === 'observing').length;
  const leftAlone = `${unchanged} unchanged${observing ? `, ${observing} being observed` : ''}`;
  const tally = `${plural(sending.length, 'skill')} to publish, ${leftAlone}`;
  if (options.dryRun) {
    ui.line(c.dim(`Dry run: ${tally}; nothing was sent.`));
    return { dryRun: true, skills: ordered.map((p) => p.entry) };
  }
  if (sending.length === 0) {
    ui.line(
      c.dim(
        observing
          ? `Nothing to publish: ${leftAlone} (run it again once the registry's sandbox has cleared them to compare their files).`
          : `Nothing to publish: every skill is as its newest version (${plural(ordered.length, 'skill')}).`,
      ),
    );
    return { dryRun: false, skills: ordered.map((p) => p.entry) };
  }

  const key = await apiKeyFor(io.env, client.base);
  for (const { folder, dir, standing, request, entry } of sending) {
    try {
      reportSkipped(ui, folder);
      if (request && 'publish' in request) {
        const skill = await waitingOutRateLimit(ui, folder.slug, () => client.publish(key, request.publish)).catch(async (error: unknown) => {
          if (error instanceof CliError && error.code === 'slug_taken') throw await slugTakenAdvice(client, error, folder.slug, shown(dir));
          throw error;
        });
        warnIfFlagged(ui, `${skill.slug}@${skill.currentVersion}`, skill.scan);
        reportWarnings(ui, skill.warnings ?? [], folder.warnings);
      } else if (request && standing.state === 'changed') {
        const created = await waitingOutRateLimit(ui, folder.slug, () => client.createVersion(key, standing.id, request.version)).catch((error: unknown) => {
          if (error instanceof CliError && error.code === 'forbidden') {
            throw new CliError(error.code, error.message, {
              ...error.options,
              hint: `if ${folder.slug} is not yours, publish yours under another name: change "name: ${folder.slug}" in ${join(shown(dir), SKILL_FILE)}`,
            });
          }
          throw error;
        });
        warnIfFlagged(ui, `${folder.slug}@${created.version}`, created.scan);
        reportWarnings(ui, created.warnings ?? [], folder.warnings);
      }
      entry.published = true;
      ui.line(`${c.green('Published')} ${c.bold(folder.slug)}@${entry.version}${entry.category ? c.dim(` in ${entry.category}`) : ''}`);
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      entry.error = { code: String(error.code), message: error.message, ...(error.options.hint ? { hint: error.options.hint } : {}) };
      ui.warn(`${folder.slug} was not published: ${error.code}`);
    }
  }
  const failed = sending.filter((p) => p.entry.error);
  if (failed.length > 0) {
    const first = failed[0]!.entry.error!;
    throw new CliError(
      first.code,
      `${plural(failed.length, 'skill')} of ${sending.length} could not be published; ${sending.length - failed.length} published, ${leftAlone}`,
      {
        details: Object.fromEntries(
          failed.map(({ entry: { slug, error } }) => [slug, `${error!.code}: ${error!.message}${error!.hint ? ` (${error!.hint})` : ''}`]),
        ),
        hint: 'see to them and run it again: what is published now is left alone',
      },
    );
  }
  if (!options.changelog) ui.warn('no --changelog: people updating will see no notes for these versions');
  ui.line(c.dim(`${plural(sending.length, 'skill')} published, ${leftAlone}.`));
  return { dryRun: false, skills: ordered.map((p) => p.entry) };
}

/** A changed skill's next version, checked with the API's own schema. */
function versionBody(folder: SkillFolder, version: string, changelog: string | undefined): Promise<VersionBody> {
  return validated('version', { version, ...(changelog ? { changelog } : {}), files: folder.files, dependencies: folder.dependencies });
}

/**
 * `send`, again after each `429` once its `Retry-After` has passed (a countdown on a terminal, a
 * line otherwise), so a run larger than the registry's rate limit finishes instead of failing
 * half-way. Gives up, with the registry's error, on a wait longer than {@link MAX_WAIT_SECONDS}
 * or after {@link MAX_WAITS} refusals in a row.
 */
async function waitingOutRateLimit<T>(ui: Ui, slug: string, send: () => Promise<T>): Promise<T> {
  for (let waits = 0; ; waits++) {
    try {
      return await send();
    } catch (error) {
      if (!(error instanceof CliError) || error.options.status !== 429 || waits >= MAX_WAITS) throw error;
      // Without a Retry-After (a gateway's own 429), a few seconds: such limits are per second.
      const seconds = error.options.retryAfter ?? 5;
      if (seconds > MAX_WAIT_SECONDS) throw error;
      await countdown(ui, seconds, slug);
    }
  }
}

async function countdown(ui: Ui, seconds: number, slug: string): Promise<void> {
  const why = 'the registry limits how fast an account publishes';
  if (!ui.interactive) ui.line(`Rate limited (${why}): waiting ${seconds} s, then publishing ${slug}`);
  for (let left = seconds; left > 0; left--) {
    ui.progress(`Rate limited (${why}): publishing ${slug} in ${left} s…`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  ui.endProgress();
}

/**
 * The skill folders under `root`, in path order: `root` itself when it holds a SKILL.md (a file, or
 * a link that reading the folder follows). Links to folders are not walked into. Which folders are
 * searched, and how deep, is the rule the GitHub import reads a repository's tree with
 * (core/skill-folders.ts).
 */
async function skillFolders(root: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (depth === 0) throw new CliError('usage', `cannot read ${dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      return;
    }
    if (entries.some((e) => e.name === SKILL_FILE && (e.isFile() || e.isSymbolicLink()))) {
      found.push(dir);
      return;
    }
    if (depth === SKILL_FOLDER_DEPTH) return;
    const subfolders = entries.filter((e) => e.isDirectory() && searchesFolder(e.name)).map((e) => e.name);
    for (const name of subfolders.sort()) await walk(join(dir, name), depth + 1);
  };
  await walk(root, 0);
  return found;
}

/** Skills before those that depend on them (a dependency published in the same run must exist first); otherwise in path order. */
function dependenciesFirst(planned: Planned[]): Planned[] {
  const bySlug = new Map(planned.map((p) => [p.folder.slug, p]));
  const ordered: Planned[] = [];
  const placed = new Set<string>();
  const visiting = new Set<string>();
  const place = (p: Planned) => {
    if (placed.has(p.folder.slug) || visiting.has(p.folder.slug)) return;
    visiting.add(p.folder.slug);
    for (const dep of Object.keys(p.folder.dependencies).sort()) {
      const needed = bySlug.get(dep);
      if (needed) place(needed);
    }
    visiting.delete(p.folder.slug);
    placed.add(p.folder.slug);
    ordered.push(p);
  };
  for (const p of planned) place(p);
  return ordered;
}

function problemText(error: CliError): string {
  const issues = (error.options.details as { issues?: { file?: string; message?: string }[] } | undefined)?.issues;
  const first =
    Array.isArray(issues) && issues[0]
      ? ` (${issues[0].file ? `${issues[0].file}: ` : ''}${issues[0].message ?? ''}${issues.length > 1 ? `, and ${issues.length - 1} more` : ''})`
      : '';
  return `${error.code}: ${error.message}${first}`;
}

function refuseProblems(problems: Record<string, string>, total: number): void {
  const count = Object.keys(problems).length;
  if (count === 0) return;
  throw new CliError(
    'invalid_skill',
    `${plural(count, 'skill folder')} of ${total} cannot be published as ${count === 1 ? 'it is' : 'they are'}; nothing was sent`,
    {
      details: problems,
      hint: 'fix them (skillpress publish --dry-run <folder> shows one in full), then run it again',
    },
  );
}
