/**
 * `.gitignore`-style exclusion rules for `skillpress publish`, so a folder publishes what its
 * author would commit. Semantics follow gitignore(5): blank lines and `#` comments are skipped,
 * `!` re-includes, a trailing `/` matches only folders, a pattern with a `/` before its end is
 * anchored to the folder of its ignore file, otherwise it matches a name at any depth; `*`, `?`,
 * `[...]` and `**` work as in git. The last matching rule wins. A file inside an excluded folder
 * stays excluded (the walker never descends into it), as in git. Pure: no file system access.
 */

export interface IgnoreRule {
  /** The folder of the ignore file that holds the rule, relative to the root ('' for the root). */
  base: string;
  negate: boolean;
  dirOnly: boolean;
  regex: RegExp;
  pattern: string;
}

export { ALWAYS_SKIPPED } from '../core/skill-folders.ts';

export function parseIgnoreFile(text: string, base = ''): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const rawLine of text.split(/\r?\n/)) {
    let line = rawLine.replace(/(?<!\\)\s+$/, '');
    if (line === '' || line.startsWith('#')) continue;
    let negate = false;
    if (line.startsWith('!')) {
      negate = true;
      line = line.slice(1);
    } else if (line.startsWith('\\!') || line.startsWith('\\#')) {
      line = line.slice(1);
    }
    let dirOnly = false;
    if (line.endsWith('/') && !line.endsWith('\\/')) {
      dirOnly = true;
      line = line.replace(/\/+$/, '');
    }
    if (line === '') continue;
    const anchored = line.includes('/');
    const body = line.startsWith('/') ? line.slice(1) : line;
    const prefix = anchored || body.startsWith('**/') ? '^' : '^(?:.*/)?';
    rules.push({ base, negate, dirOnly, regex: new RegExp(`${prefix}${globToRegex(body)}$`), pattern: rawLine.trim() });
  }
  return rules;
}

/**
 * Whether `path` (relative to the publish root, `/`-separated) is excluded by `rules`. Rules of
 * deeper ignore files come later in the list, so they override their parents' rules.
 */
export function isIgnored(rules: readonly IgnoreRule[], path: string, isDir: boolean): boolean {
  let ignored = false;
  for (const rule of rules) {
    if (rule.dirOnly && !isDir) continue;
    if (rule.base !== '' && !path.startsWith(`${rule.base}/`)) continue;
    const relative = rule.base === '' ? path : path.slice(rule.base.length + 1);
    if (rule.regex.test(relative)) ignored = !rule.negate;
  }
  return ignored;
}

function globToRegex(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const atStart = i === 0 || glob[i - 1] === '/';
        const atEnd = i + 2 === glob.length || glob[i + 2] === '/';
        if (atStart && atEnd) {
          if (i + 2 === glob.length)
            out += '.*'; // `a/**` — everything inside a
          else out += '(?:.*/)?'; // `**/b` or `a/**/b` — zero or more folders
          i += 2; // skip the second * and the following /
          continue;
        }
      }
      out += '[^/]*';
      while (glob[i + 1] === '*') i++;
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close < 0) {
        out += '\\[';
        continue;
      }
      let cls = glob.slice(i + 1, close);
      if (cls.startsWith('!')) cls = `^${cls.slice(1)}`;
      out += `[${cls.replace(/\\/g, '\\\\')}]`;
      i = close;
    } else if (c === '\\' && i + 1 < glob.length) {
      out += escapeRegex(glob[++i]!);
    } else {
      out += escapeRegex(c);
    }
  }
  return out;
}

const escapeRegex = (c: string) => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
