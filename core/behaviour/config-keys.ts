import type { ConfigFormat } from '../effects/sensitive-classes.ts';

/**
 * The keys a write changed in a configuration file: both versions read as flat `dotted.key →
 * value` maps (JSON objects by their paths, git and INI files by `section.subsection.key`, npm's
 * `key=value` lines, SSH's `Keyword value` lines by their `Host` block), and the keys that are new or hold another value returned. A file that does
 * not parse has no keys: the write is then judged by its path alone.
 */

function flattenJson(value: unknown, prefix: string, out: Map<string, string>): void {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value)) flattenJson(inner, prefix ? `${prefix}.${key}` : key, out);
  } else if (prefix) out.set(prefix, JSON.stringify(value));
}

function ini(text: string, quotedSubsections: boolean): Map<string, string> {
  const out = new Map<string, string>();
  let section = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[\s*([^\]\s"]+)(?:\s+"(.*)")?\s*\]$/.exec(line);
    if (header) {
      section = quotedSubsections && header[2] !== undefined ? `${header[1]}.${header[2]}` : header[1]!;
      continue;
    }
    const [key, ...value] = line.split('=');
    out.set(section ? `${section}.${key!.trim()}` : key!.trim(), value.join('=').trim());
  }
  return out;
}

/**
 * SSH's client configuration: `Keyword value` (or `Keyword=value`) lines, keywords in any case;
 * a `Host` or `Match` line opens a block whose keys are `host.<patterns>.<keyword>`. A `Match`
 * line that runs a command to decide is itself the key `match.exec`.
 */
function sshConfig(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let block = '';
  for (const raw of text.split(/\r?\n/)) {
    const m = /^\s*([A-Za-z]+)(?:\s*=\s*|\s+)(.*?)\s*$/.exec(raw);
    if (!m || raw.trim().startsWith('#')) continue;
    const keyword = m[1]!.toLowerCase();
    const value = m[2]!;
    if (keyword === 'host' || keyword === 'match') {
      block = `${keyword}.${value}`;
      if (keyword === 'match' && /(?:^|\s)exec(?:\s|$)/i.test(value)) out.set('match.exec', value);
      continue;
    }
    out.set(block ? `${block}.${keyword}` : keyword, value);
  }
  return out;
}

function keysOf(format: ConfigFormat, text: string): Map<string, string> {
  if (format === 'ssh-config') return sshConfig(text);
  if (format === 'json') {
    const out = new Map<string, string>();
    try {
      flattenJson(JSON.parse(text || '{}'), '', out);
    } catch {
      return out;
    }
    return out;
  }
  return ini(text, format === 'git-config');
}

/** The keys of `after` that `before` lacks or held another value for. */
export function changedKeys(format: ConfigFormat, before: string, after: string): string[] {
  const old = keysOf(format, before);
  return [...keysOf(format, after)].filter(([key, value]) => old.get(key) !== value).map(([key]) => key);
}
