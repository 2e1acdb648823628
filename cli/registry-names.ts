import { isAbsolute, relative, resolve, sep } from 'node:path';
import { isValidSlug } from '../core/slug.ts';
import { CliError } from './cli-error.ts';

/**
 * Names a registry gives the client — the slugs of dependencies, the slug of a document — become
 * URLs and folder names, so a registry that lies (a compromised or a foreign one) could otherwise
 * make an install write anywhere: `{"../../evil":"*"}` is two folders up. Every slug is held to
 * the server's own rule (`core/slug.ts`), and every install folder must lie inside the project,
 * all before anything is written; a failure is `unsafe_path` (exit 3, like a tampered download).
 */

const unsafePath = (message: string) => new CliError('unsafe_path', message);

/**
 * A slug that will become a folder name or part of a registry URL, refused unless the server
 * itself could have accepted it; `context` says where it came from ("x@1.0.0 depends on").
 */
export function registrySlug(slug: unknown, context: string): string {
  if (typeof slug !== 'string' || !isValidSlug(slug)) {
    throw unsafePath(`${context} ${JSON.stringify(slug)?.slice(0, 80)}, which is not a valid skill slug; refusing it as a folder or a registry path`);
  }
  return slug;
}

/**
 * A registry's `dependencies` (slug → range), checked whole, as a map without a prototype: a
 * dependency named `constructor` is a skill like any other, and `__proto__` is refused, never
 * silently lost.
 */
export function registryDependencies(value: unknown, who: string): Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new CliError('bad_response', `${who}: the registry's dependencies are not a map of slugs to version ranges`);
  }
  const dependencies: Record<string, string> = Object.create(null);
  for (const [slug, range] of Object.entries(value)) {
    registrySlug(slug, `${who} depends on`);
    if (typeof range !== 'string') throw new CliError('bad_response', `${who}: the version range of its dependency ${slug} is not text`);
    dependencies[slug] = range;
  }
  return dependencies;
}

/**
 * Why `path`, an install folder relative to the project and `/`-separated, could lead anywhere
 * but into the project, or null. Only ways out count: a folder named like a Windows device
 * (`aux` is a valid slug) is a matter for the file system, which `core/filename.ts` refuses
 * in file names but which is no escape.
 */
export function installPathProblem(path: string): string | null {
  if (path === '') return 'is empty';
  if (path.startsWith('/') || /^[a-zA-Z]:/.test(path)) return 'is absolute';
  if (path.includes('\\')) return 'uses \\ (only / separates folders)';
  if (/[\u0000-\u001f\u007f-\u009f]/.test(path)) return 'contains control characters';
  const segment = path.split('/').find((s) => s === '' || s === '.' || s === '..');
  if (segment !== undefined) return segment === '' ? 'has an empty segment' : `has a ${segment} segment`;
  // Git's own folder runs hooks on the next commit; case folds on macOS and Windows.
  if (path.split('/').some((s) => s.toLowerCase() === '.git')) return "lies inside .git, git's own folder";
  return null;
}

/**
 * The absolute install folder of `path` (relative to the project, `/`-separated), refused unless
 * it lies strictly inside `cwd`. Callers built `path` from checked slugs and a checked root; this
 * guards the join itself, so no future path can escape either.
 */
export function installFolder(cwd: string, path: string): string {
  const folder = resolve(cwd, ...path.split('/'));
  const inside = relative(cwd, folder);
  if (installPathProblem(path) || inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
    throw unsafePath(`refusing to install into ${JSON.stringify(path.slice(0, 120))}: it is not a folder inside the project (${cwd})`);
  }
  return folder;
}
