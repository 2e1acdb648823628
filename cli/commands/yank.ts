import semver from 'semver';
import { usage } from '../cli-error.ts';
import { apiKeyFor } from '../credentials.ts';
import { RegistryClient, type VersionYank } from '../registry-client.ts';
import type { CommandIo } from '../ui.ts';
import { parseRequest } from '../version-spec.ts';

export interface YankOptions {
  registry: string;
  /** `slug@version`, an exact version. */
  target: string;
  reason?: string;
  /** Undo a yank instead. */
  undo: boolean;
}

export type YankResult = VersionYank & { slug: string };

/**
 * `skillpress yank <slug>@<version> [--reason <text>]`: withdraws a version. Nobody gets it from
 * a range or as the latest any more; installs whose lockfile pins it keep working. `--undo`
 * takes the yank back. The author's API key is needed.
 */
export async function yank(options: YankOptions, io: CommandIo): Promise<YankResult> {
  const { slug, spec } = parseRequest(options.target);
  if (semver.valid(spec) !== spec) throw usage(`name one version to yank: ${slug}@<version>, e.g. ${slug}@1.2.0`);
  if (options.undo && options.reason !== undefined) throw usage('--reason goes with a yank, not with --undo');
  const client = new RegistryClient(options.registry, io);
  const doc = await client.skill(slug);
  const key = await apiKeyFor(io.env, client.base);
  const answer = await client.setYanked(key, doc.id, spec, options.undo ? false : options.reason === undefined ? {} : { reason: options.reason });
  const { c } = io.ui;
  const current = c.dim(`; ${slug}@${answer.currentVersion} is the current version`);
  if (answer.yanked) {
    io.ui.line(`${c.yellow('Yanked')} ${c.bold(slug)}@${answer.version}${answer.yankReason ? ` (${answer.yankReason})` : ''}${current}`);
    io.ui.line(c.dim(`Installs that pin ${answer.version} keep working; undo with skillpress yank ${slug}@${answer.version} --undo`));
  } else {
    io.ui.line(`${c.green('Restored')} ${c.bold(slug)}@${answer.version}${current}`);
  }
  return { slug, ...answer };
}
