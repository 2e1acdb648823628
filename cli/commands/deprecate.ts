import type { Skill } from '../../core/schemas.ts';
import { usage } from '../cli-error.ts';
import { apiKeyFor } from '../credentials.ts';
import { RegistryClient } from '../registry-client.ts';
import type { CommandIo } from '../ui.ts';
import { parseRequest } from '../version-spec.ts';

export interface DeprecateOptions {
  registry: string;
  slug: string;
  message?: string;
  /** Undo a deprecation instead. */
  undo: boolean;
}

/**
 * `skillpress deprecate <slug> --message <text>`: marks a skill deprecated. It stays installable;
 * its page shows the message, and install, update and list warn with it. `--undo` takes it back.
 * The author's API key is needed.
 */
export async function deprecate(options: DeprecateOptions, io: CommandIo): Promise<Skill> {
  const { slug, spec } = parseRequest(options.slug);
  if (spec !== 'latest' || options.slug.includes('@')) throw usage('deprecate takes a skill, not a version: skillpress deprecate <slug> --message <text>');
  if (options.undo === (options.message !== undefined)) {
    throw usage('say why with --message <text>, or take a deprecation back with --undo', 'e.g. skillpress deprecate pdf-tools --message "Use pdf-kit instead"');
  }
  const client = new RegistryClient(options.registry, io);
  const doc = await client.skill(slug);
  const key = await apiKeyFor(io.env, client.base);
  const skill = await client.setDeprecated(key, doc.id, options.undo ? null : options.message!);
  const { c } = io.ui;
  if (skill.deprecated !== undefined) io.ui.line(`${c.yellow('Deprecated')} ${c.bold(slug)}: ${skill.deprecated}`);
  else io.ui.line(`${c.green('No longer deprecated:')} ${c.bold(slug)}`);
  return skill;
}
