import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import { SKILL_FILE } from '../../core/filename.ts';
import { CATEGORY_PATTERN, isValidSlug, normaliseCategory, slugify } from '../../core/slug.ts';
import { CliError, usage } from '../cli-error.ts';
import type { CommandIo } from '../ui.ts';

export interface InitOptions {
  /** The skill's name, or a path whose last part is: its folder, created when missing. Absent: the current folder. */
  name?: string;
  description?: string;
  category?: string;
}

export interface InitResult {
  slug: string;
  /** The SKILL.md written, relative to the current folder. */
  file: string;
}

/**
 * `skillpress init [name]`: writes a `SKILL.md` that is a valid Agent Skill (its `name` the
 * folder's, as the specification asks), ready to fill in and publish. Never overwrites one.
 */
export async function init(options: InitOptions, io: CommandIo): Promise<InitResult> {
  const { ui } = io;
  const dir = resolve(io.cwd, options.name ?? '.');
  const slug = basename(dir);
  if (!isValidSlug(slug)) {
    const suggestion = slugify(slug);
    throw usage(
      `"${slug}" cannot name a skill: use lower-case letters, digits and single hyphens (at most 64)`,
      suggestion && suggestion !== slug
        ? `for example: skillpress init ${join(relative(io.cwd, resolve(dir, '..')), suggestion)}`
        : 'for example: skillpress init pdf-tools',
    );
  }
  const category = options.category === undefined ? undefined : normaliseCategory(options.category);
  if (category !== undefined && !CATEGORY_PATTERN.test(category)) throw usage('--category must be 1 to 40 letters, digits and hyphens, e.g. dev-tools');
  if (options.description !== undefined && !options.description.trim()) throw usage('--description must say something');

  const { skillTemplate } = await import('../skill-template.ts');
  const text = skillTemplate({ slug, ...(options.description ? { description: options.description.trim() } : {}), ...(category ? { category } : {}) });
  const file = join(dir, SKILL_FILE);
  const shown = relative(io.cwd, file) || SKILL_FILE;
  try {
    await mkdir(dir, { recursive: true });
    // 'wx': an existing SKILL.md, or a link in its place, is never written through.
    await writeFile(file, text, { flag: 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST')
      throw new CliError('folder_exists', `${shown} already exists; nothing was written`, {
        hint: 'edit it, or run skillpress init <name> for a new skill folder',
      });
    throw new CliError('io_error', `cannot write ${shown}: ${(error as Error).message}`);
  }
  const { c } = ui;
  const folder = relative(io.cwd, dir);
  ui.line(`${c.green('Created')} ${c.bold(shown)} ${c.dim(`(skill ${slug})`)}`);
  if (!options.description) ui.line(c.dim('Next: write its description (what it does, when to use it) and instructions.'));
  ui.line(c.dim(`Check it with skillpress scan${folder ? ` ${folder}` : ''}, publish it with skillpress publish${folder ? ` ${folder}` : ''}.`));
  return { slug, file: shown };
}
