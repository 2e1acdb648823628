import { isUtf8 } from 'node:buffer';
import { lstat, readdir, readFile, readlink, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { WireFile } from '../core/bundle.ts';
import { limits } from '../core/limits.ts';
import { SKILL_FILE } from '../core/filename.ts';
import { CliError } from './cli-error.ts';
import { ALWAYS_SKIPPED, type IgnoreRule, isIgnored, parseIgnoreFile } from './ignore-rules.ts';
import { formatBytes } from './ui.ts';

/**
 * A skill folder as `publish` and `version` send it: every file the author would commit, checked
 * as the registry checks them (a valid Agent Skill, docs/agent-skills.md: the same validator in
 * `core/`), and what the `SKILL.md` front matter says about publishing it. `.gitignore` and
 * `.skillignore` files are honoured at every level; `.git`, `node_modules` and the install
 * folders `.agents` and `.skills` are never sent. A link inside the folder is followed, as Git
 * and the agents that read the folder follow it: its target's content is sent under the link's
 * name. A link that leads outside the folder, or back into a folder it is in, is refused by name,
 * so nothing outside the folder can leak into a publish. Binary files travel as base64, and files
 * with an executable bit are sent as such.
 */

const IGNORE_FILES = ['.gitignore', '.skillignore'];

export interface SkillFolder {
  /** The front matter's `name`: the skill's slug. */
  slug: string;
  /** The display name: the first `# heading` of the SKILL.md body, else the slug. */
  name: string;
  description: string;
  /** From `metadata` (or, deprecated, the top level), normalised as the registry does. */
  category?: string;
  dependencies: Record<string, string>;
  files: WireFile[];
  bytes: number;
  /** Paths left out because they are special files (sockets, pipes, devices). */
  skipped: string[];
  /** What the front matter should fix: unknown keys, Skillpress keys at the top level. */
  warnings: string[];
}

/**
 * Reads and checks the folder. With `slug`, the front matter's name must be that slug (as the
 * registry requires of the skill it publishes to). Every problem comes back at once as
 * `invalid_skill`, with the registry's own `details.issues`.
 */
export async function readSkillFolder(dir: string, slug?: string): Promise<SkillFolder> {
  try {
    // The entry itself: a SKILL.md that is a link is read, or refused by name, with the other files.
    await lstat(join(dir, SKILL_FILE));
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new CliError(
      missing ? 'usage' : 'io_error',
      missing ? `${dir} has no ${SKILL_FILE}` : `cannot read ${join(dir, SKILL_FILE)}: ${(error as Error).message}`,
      {
        hint: missing ? `a skill folder starts with a ${SKILL_FILE} whose front matter gives its name and description` : undefined,
      },
    );
  }
  const { files, skipped } = await collectFiles(dir);
  // The Agent Skills check and its YAML parser are loaded only by the commands that read a
  // folder: an install never pays for them.
  const { skillMetadata } = await import('./skill-metadata.ts');
  return { ...skillMetadata(files, slug), ...encodeAll(files), skipped };
}

/** The description `skillpress init` writes when given none (cli/skill-template.ts). */
export const TEMPLATE_DESCRIPTION = 'Says what this skill does and when an agent should use it (replace this line).';

/** Publishing refuses a folder whose SKILL.md still has the description `init` wrote as a placeholder. */
export function assertDescribed(folder: SkillFolder, dir: string): void {
  if (folder.description.trim() !== TEMPLATE_DESCRIPTION) return;
  throw new CliError('invalid_skill', `${join(dir, SKILL_FILE)} still has the description skillpress init wrote`, {
    hint: 'say what the skill does and when an agent should use it, e.g. "Formats JSON files. Use when a JSON file is mentioned."',
  });
}

interface RawFile {
  filename: string;
  bytes: Buffer;
  executable: boolean;
}

async function collectFiles(root: string): Promise<{ files: RawFile[]; skipped: string[] }> {
  const files: RawFile[] = [];
  const skipped: string[] = [];
  const realRoot = await realpath(root);
  // `within` holds the real paths of the folders being walked: a link to one of them is a loop.
  const walk = async (dir: string, prefix: string, inherited: IgnoreRule[], within: string[]) => {
    const entries = (await readdir(join(root, dir), { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    const rules = [...inherited];
    for (const name of IGNORE_FILES) {
      const text = await readFile(join(root, dir, name), 'utf8').catch(() => undefined);
      if (text !== undefined) rules.push(...parseIgnoreFile(text, dir));
    }
    for (const entry of entries) {
      const path = prefix + entry.name;
      const full = join(root, path);
      // A link that would not be sent whatever it leads to (ignored, as Git would) is not looked at.
      if (entry.isSymbolicLink() && (ALWAYS_SKIPPED.has(entry.name) || (isIgnored(rules, path, true) && isIgnored(rules, path, false)))) continue;
      const target = entry.isSymbolicLink() ? await linkTarget(full, path, realRoot, within) : undefined;
      const isDirectory = target ? target.directory : entry.isDirectory();
      if (isDirectory) {
        if (ALWAYS_SKIPPED.has(entry.name) || isIgnored(rules, path, true)) continue;
        await walk(path, `${path}/`, rules, [...within, target?.real ?? (await realpath(full))]);
      } else if (isIgnored(rules, path, false)) {
      } else if (target ? target.file : entry.isFile()) {
        files.push({ filename: path, bytes: await readFile(full), executable: await isExecutable(full) });
        checkCount(files.length);
      } else {
        skipped.push(path);
      }
    }
  };
  await walk('', '', [], [realRoot]);
  return { files, skipped };
}

/**
 * What the link at `path` leads to, once it is known to stay inside the folder (`realRoot`) and
 * not to lead back into a folder being walked (`within`); else `invalid_skill` naming it.
 */
async function linkTarget(full: string, path: string, realRoot: string, within: string[]): Promise<{ real: string; directory: boolean; file: boolean }> {
  const refuse = (why: string) =>
    new CliError('invalid_skill', `${path} is a link ${why}, so it cannot be published`, {
      hint: `publish what the skill needs from inside its folder: copy the file in, or remove ${path}`,
    });
  let real: string;
  try {
    real = await realpath(full);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw refuse('that loops back on itself');
    if (code === 'ENOENT') throw refuse(`to ${await readlink(full).catch(() => 'a missing file')}, which does not exist`);
    throw new CliError('io_error', `cannot read ${path}: ${(error as Error).message}`);
  }
  const inside = relative(realRoot, real);
  if (inside === '..' || inside.startsWith(`..${sep}`) || inside === real) throw refuse(`to ${await readlink(full)}, outside the skill's folder`);
  if (within.includes(real)) throw refuse(`to ${await readlink(full)}, a folder it is in (a loop)`);
  const stats = await stat(real);
  return { real, directory: stats.isDirectory(), file: stats.isFile() };
}

/** Whether a file has an executable bit: Windows keeps none, so nothing there is sent as executable. */
async function isExecutable(path: string): Promise<boolean> {
  return process.platform !== 'win32' && ((await stat(path)).mode & 0o111) !== 0;
}

function checkCount(count: number): void {
  if (count > limits.filesPerVersion) {
    throw new CliError('payload_too_large', `more than ${limits.filesPerVersion} files to publish`, {
      hint: 'exclude build output and data with a .gitignore or .skillignore',
    });
  }
}

/** Text stays text; anything that is not UTF-8, or holds a NUL byte, travels as base64. */
function encodeAll(files: RawFile[]): { files: WireFile[]; bytes: number } {
  let total = 0;
  let body = 0;
  const wire = files.map(({ filename, bytes, executable }): WireFile => {
    if (bytes.byteLength > limits.fileBytes) {
      throw new CliError('payload_too_large', `${filename} is ${formatBytes(bytes.byteLength)}; a file may be at most ${formatBytes(limits.fileBytes)}`);
    }
    total += bytes.byteLength;
    const text = isUtf8(bytes) && !bytes.includes(0);
    const file: WireFile = text ? { filename, content: bytes.toString('utf8') } : { filename, content: bytes.toString('base64'), encoding: 'base64' };
    if (executable) file.executable = true;
    body += file.content.length + filename.length + 40;
    return file;
  });
  if (total > limits.versionBytes || body > limits.bodyBytes) {
    throw new CliError('payload_too_large', `the files add up to ${formatBytes(total)}; a version may hold at most ${formatBytes(limits.versionBytes)}`, {
      hint: 'exclude what the skill does not need with a .gitignore or .skillignore',
    });
  }
  return { files: wire, bytes: total };
}
