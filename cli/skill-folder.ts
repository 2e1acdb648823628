import { isUtf8 } from 'node:buffer';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { WireFile } from '../core/bundle.ts';
import { limits } from '../core/limits.ts';
import { CliError } from './cli-error.ts';
import { FrontMatterError, parseFrontMatter, type YamlValue } from './front-matter.ts';
import { ALWAYS_SKIPPED, type IgnoreRule, isIgnored, parseIgnoreFile } from './ignore-rules.ts';
import { formatBytes } from './ui.ts';

/**
 * A skill folder as `publish` and `version` send it: the `SKILL.md` front matter (name,
 * description and the optional category, slug and dependencies) and every file the author would
 * commit. `.gitignore` and `.skillignore` files are honoured at every level; `.git`,
 * `node_modules` and the install folders `.agents` and `.skills` are never sent; links are
 * skipped rather than followed, so nothing outside the folder can leak into a publish. Binary
 * files travel as base64.
 */

export const SKILL_FILE = 'SKILL.md';
const IGNORE_FILES = ['.gitignore', '.skillignore'];

export interface SkillFolder {
  name: string;
  description: string;
  category?: string;
  slug?: string;
  dependencies: Record<string, string>;
  files: WireFile[];
  bytes: number;
  /** Paths left out because they are links or special files. */
  skipped: string[];
}

export async function readSkillFolder(dir: string): Promise<SkillFolder> {
  let source: string;
  try {
    source = await readFile(join(dir, SKILL_FILE), 'utf8');
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
  const meta = skillMetadata(source);
  const { files, skipped } = await collectFiles(dir);
  return { ...meta, ...encodeAll(files), skipped };
}

/** The publishing facts of a `SKILL.md`. Pure. */
export function skillMetadata(source: string): Pick<SkillFolder, 'name' | 'description' | 'category' | 'slug' | 'dependencies'> {
  let data: Record<string, YamlValue>;
  try {
    data = parseFrontMatter(source).data;
  } catch (error) {
    if (error instanceof FrontMatterError) throw new CliError('invalid_request', `${SKILL_FILE}: ${error.message}`);
    throw error;
  }
  const metadata = isMapping(data.metadata) ? data.metadata : {};
  const text = (key: string, value: YamlValue | undefined): string | undefined => {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw new CliError('invalid_request', `${SKILL_FILE}: "${key}" must be text`);
    return value.trim();
  };
  const name = text('name', data.name);
  const description = text('description', data.description);
  if (!name || !description) {
    throw new CliError('invalid_request', `${SKILL_FILE} front matter needs a name and a description`, {
      hint: '---\nname: pretty-json\ndescription: Formats JSON files.\n---',
    });
  }
  const dependencies = data.dependencies ?? {};
  if (!isMapping(dependencies) || Object.values(dependencies).some((v) => typeof v !== 'string')) {
    throw new CliError('invalid_request', `${SKILL_FILE}: "dependencies" must map skill slugs to version ranges, e.g. "pretty-json: ^1.0.0"`);
  }
  const category = text('category', data.category ?? metadata.category);
  const slug = text('slug', data.slug ?? metadata.slug);
  return { name, description, dependencies: dependencies as Record<string, string>, ...(category ? { category } : {}), ...(slug ? { slug } : {}) };
}

const isMapping = (value: YamlValue | undefined): value is Record<string, YamlValue> => value !== null && typeof value === 'object' && !Array.isArray(value);

interface RawFile {
  filename: string;
  bytes: Buffer;
}

async function collectFiles(root: string): Promise<{ files: RawFile[]; skipped: string[] }> {
  const files: RawFile[] = [];
  const skipped: string[] = [];
  const walk = async (dir: string, prefix: string, inherited: IgnoreRule[]) => {
    const entries = (await readdir(join(root, dir), { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    const rules = [...inherited];
    for (const name of IGNORE_FILES) {
      const text = await readFile(join(root, dir, name), 'utf8').catch(() => undefined);
      if (text !== undefined) rules.push(...parseIgnoreFile(text, dir));
    }
    for (const entry of entries) {
      const path = prefix + entry.name;
      if (entry.isDirectory()) {
        if (ALWAYS_SKIPPED.has(entry.name) || isIgnored(rules, path, true)) continue;
        await walk(path, `${path}/`, rules);
      } else if (isIgnored(rules, path, false)) {
      } else if (entry.isFile()) {
        files.push({ filename: path, bytes: await readFile(join(root, path)) });
        checkCount(files.length);
      } else {
        skipped.push(path);
      }
    }
  };
  await walk('', '', []);
  return { files, skipped };
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
  const wire = files.map(({ filename, bytes }): WireFile => {
    if (bytes.byteLength > limits.fileBytes) {
      throw new CliError('payload_too_large', `${filename} is ${formatBytes(bytes.byteLength)}; a file may be at most ${formatBytes(limits.fileBytes)}`);
    }
    total += bytes.byteLength;
    const text = isUtf8(bytes) && !bytes.includes(0);
    const file: WireFile = text ? { filename, content: bytes.toString('utf8') } : { filename, content: bytes.toString('base64'), encoding: 'base64' };
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
