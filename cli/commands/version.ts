import { resolve } from 'node:path';
import { assertStrictVersion } from '../../core/semver-order.ts';
import { CliError } from '../cli-error.ts';
import { apiKeyFor } from '../credentials.ts';
import type { CommandIo } from '../ui.ts';
import { type AppealFiled, RegistryClient, type VersionCreated } from '../registry-client.ts';
import { warnIfFlagged } from '../scan-findings.ts';
import { assertDescribed, readSkillFolder, type SkillFolder } from '../skill-folder.ts';
import { oidcPublishToken } from '../oidc.ts';
import { formatBytes, plural } from '../ui.ts';
import { type Bump, bumped, isBump, standingOf } from '../publish-plan.ts';
import { fromDomainError, validated } from '../validated.ts';
import { describeFiles, printFiles, type PublishedFile, reportAppeal, reportSkipped, reportWarnings, withAppealHint } from './publish.ts';

export interface VersionOptions {
  registry: string;
  dir: string;
  /** A version, or patch, minor or major: the registry's newest version bumped. */
  version: string | Bump;
  changelog?: string;
  slug?: string;
  dryRun: boolean;
  /** Publish with the CI's OIDC token (a trusted publisher), not a stored key (cli/oidc.ts). */
  oidc?: boolean;
  /** Send it as an appeal with this message, for an admin to review, instead of publishing it (docs/api.md §7.15). */
  appeal?: string;
}

export interface VersionResult {
  dryRun: boolean;
  slug: string;
  version: string;
  /** The registry's answer; null on a dry run or an appeal. */
  created: VersionCreated | null;
  /** The appeal filed instead, with --appeal. */
  appeal?: AppealFiled;
  files: PublishedFile[];
  /** What the SKILL.md front matter should fix (accepted as it is). */
  warnings: string[];
}

/**
 * `skillpress version [dir] <semver|patch|minor|major> --changelog <text>`: publishes the
 * folder's files as a new version of the skill its `SKILL.md` names (`--slug`, when given, must be
 * that name), checked as the registry checks them before anything is sent. A bump counts from
 * the highest version the registry has (yanked ones too: their numbers are taken). Versions are
 * immutable.
 */
export async function version(options: VersionOptions, io: CommandIo): Promise<VersionResult> {
  const { ui } = io;
  const { c } = ui;
  const bump = isBump(options.version) ? options.version : undefined;
  if (!bump) {
    try {
      assertStrictVersion(options.version);
    } catch (error) {
      const problem = fromDomainError(error);
      if (!(problem instanceof CliError)) throw problem;
      throw new CliError(problem.code, problem.message, {
        ...problem.options,
        hint: 'name a version such as 1.2.3, or patch, minor or major to bump the newest one',
      });
    }
  }
  const folder = await readSkillFolder(resolve(io.cwd, options.dir), options.slug);
  assertDescribed(folder, options.dir);
  const slug = folder.slug;
  const client = new RegistryClient(options.registry, io);
  const next = bump ? await bumpedVersion(client, folder, bump, options.dir) : options.version;
  const body = await validated('version', {
    version: next,
    ...(options.changelog ? { changelog: options.changelog } : {}),
    files: folder.files,
    dependencies: folder.dependencies,
  });
  const files = describeFiles(folder);
  reportSkipped(ui, folder);
  reportWarnings(ui, folder.warnings);
  if (!options.changelog) ui.warn('no --changelog: people updating will see no notes for this version');

  if (options.dryRun) {
    printFiles(ui, files);
    ui.line(c.dim(`Dry run: ${slug}@${next} would be published with ${plural(files.length, 'file')} (${formatBytes(folder.bytes)}); nothing was sent.`));
    return { dryRun: true, slug, version: next, created: null, files, warnings: folder.warnings };
  }

  const doc = await client.skill(slug).catch(notPublishedYet(client, slug));
  const key = options.oidc ? await publishTokenFor(io, client, slug) : await apiKeyFor(io.env, client.base);
  if (options.appeal !== undefined) {
    const appeal = await client.appeal(key, { message: options.appeal, skillId: doc.id, version: body });
    reportAppeal(ui, client.base, `${slug}@${options.version}`, appeal);
    return { dryRun: false, slug, version: options.version, created: null, appeal, files, warnings: folder.warnings };
  }
  const created = await client.createVersion(key, doc.id, body).catch((error: unknown) => {
    if (error instanceof CliError && error.code === 'version_exists') {
      throw new CliError(error.code, error.message, { ...error.options, hint: 'versions are immutable: publish a higher one' });
    }
    throw withAppealHint(error, 'version', options.dir, options.version);
  });
  ui.line(`${c.green('Published')} ${c.bold(slug)}@${created.version} ${c.dim(`(${plural(files.length, 'file')}, ${formatBytes(folder.bytes)})`)}`);
  if (created.currentVersion !== created.version) {
    ui.line(
      c.dim(
        `${created.currentVersion} stays the current version (${created.version} is lower or a prerelease); install it with skillpress install ${slug}@${created.version}`,
      ),
    );
  }
  if (options.oidc) ui.line(c.dim("published with this run's OIDC token; the registry records the run as its provenance"));
  warnIfFlagged(ui, `${slug}@${created.version}`, created.scan);
  const warnings = reportWarnings(ui, created.warnings ?? [], folder.warnings);
  return { dryRun: false, slug, version: created.version, created, files, warnings: [...folder.warnings, ...warnings] };
}

/** A publish token for `slug` from the CI's OIDC token; a skill that does not trust this workflow is told so before anything is sent. */
async function publishTokenFor(io: CommandIo, client: RegistryClient, slug: string): Promise<string> {
  const { token, skills } = await oidcPublishToken(io, client);
  if (!skills.includes(slug))
    throw new CliError('forbidden', `${slug} does not trust this workflow (it may publish ${skills.join(', ')})`, {
      hint: `add this repository and workflow as a trusted publisher of ${slug} in the dashboard`,
    });
  return token;
}

/** The registry's newest version of the folder's skill, bumped; says so when it is unchanged. */
async function bumpedVersion(client: RegistryClient, folder: SkillFolder, bump: Bump, dir: string): Promise<string> {
  const standing = await standingOf(client, folder);
  if (standing.state === 'new') throw notPublishedYet(client, folder.slug)(new CliError('not_found', ''));
  if (standing.state === 'being-observed')
    throw new CliError('being_observed', `${folder.slug}'s first version is being run in the registry's sandbox: its next version is numbered once that ends`, {
      hint: 'it takes seconds: try again shortly',
    });
  const next = bumped(standing.newest, bump);
  if (standing.state === 'unchanged') {
    throw new CliError('usage', `${folder.slug}@${standing.newest} already has exactly these files; ${next} would publish them again`, {
      hint: `change the skill first; to publish the same files anyway, name the version: skillpress version ${dir === '.' ? '' : `${dir} `}${next}`,
    });
  }
  return next;
}

const notPublishedYet =
  (client: RegistryClient, slug: string) =>
  (error: unknown): never => {
    if (error instanceof CliError && error.code === 'not_found') {
      throw new CliError('not_found', `${slug} is not published in ${client.base} yet`, { status: 404, hint: 'publish it first: skillpress publish' });
    }
    throw error;
  };
