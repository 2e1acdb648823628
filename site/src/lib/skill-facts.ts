import type { FrontMatterRow } from './skill-markdown.ts';

/**
 * What a skill page shows up front from its `SKILL.md` front matter, as its peers do: the licence
 * and the compatibility the Agent Skills spec names, and the source repository, from whichever
 * of the usual keys an author used (a repository before a source, before a homepage). Only an http(s) address is a
 * link; anything else is left out rather than shown as one.
 */
export interface SkillFacts {
  license: string;
  compatibility: string;
  /** The source's address, or '' when the front matter names none. */
  source: string;
  /** The address as shown: host and path, without the scheme. */
  sourceLabel: string;
}

const SOURCE_KEYS = ['metadata.repository', 'repository', 'metadata.source', 'source', 'metadata.homepage', 'homepage', 'metadata.url', 'url'];
const MAX_SHOWN = 200;

export function skillFacts(frontMatter: readonly FrontMatterRow[]): SkillFacts {
  const value = (key: string) => frontMatter.find((row) => row.key.toLowerCase() === key)?.value.trim() ?? '';
  const source = SOURCE_KEYS.map(value).map(webAddress).find(Boolean) ?? '';
  return {
    license: value('license').slice(0, MAX_SHOWN),
    compatibility: value('compatibility').slice(0, MAX_SHOWN),
    source,
    sourceLabel: source.replace(/^https?:\/\//, '').replace(/\/$/, ''),
  };
}

function webAddress(text: string): string {
  if (!/^https?:\/\//i.test(text)) return '';
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : '';
  } catch {
    return '';
  }
}
