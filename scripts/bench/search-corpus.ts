import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readFrontMatter } from '#core/skill-front-matter';
import { benignRepoDirs, type GitSkill, readGitSkills } from './git-skills.ts';

/**
 * The catalog `npm run bench search` publishes: every skill of the repositories named by
 * SKILLPRESS_BENIGN_REPOS, as its author would publish it (name from its first heading, the
 * front matter's description, the repository's owner as author), and a synthetic catalog of any
 * size made by recombining their texts, for the figures at 10,000 skills.
 */
export interface CorpusSkill {
  repo: string;
  folder: string;
  author: string;
  body: {
    name: string;
    slug: string;
    description: string;
    category: string;
    files: { filename: string; content: string; encoding?: 'base64'; executable?: boolean }[];
  };
}

/** Categories by repository, as their authors would file them (a skill's own `metadata.category` wins). */
const CATEGORIES: Record<string, string> = {
  anthropics: 'documents',
  'vercel-labs': 'web',
  obra: 'workflow',
  openai: 'productivity',
  trailofbits: 'security',
  composiohq: 'integrations',
};

export function loadCorpus(): CorpusSkill[] | undefined {
  const dirs = benignRepoDirs();
  if (dirs.length === 0) return undefined;
  return dirs.flatMap((dir) => readGitSkills(dir).flatMap((skill) => corpusSkill(skill)));
}

/**
 * A stand-in corpus where the real one is not at hand: a skill for each section of this
 * repository's own documentation (its heading as the name, its first sentence as the
 * description, its text as the `SKILL.md` body), so recombined synthetic skills have the sizes
 * and vocabulary of real technical prose. For timings only: the judged queries need the real one.
 */
export function docsCorpus(dir = path.join(import.meta.dirname, '../../docs')): CorpusSkill[] {
  return (
    readdirSync(dir)
      // The scanner's page quotes attacks, which a publish refuses.
      .filter((name) => name.endsWith('.md') && name !== 'scanning.md')
      .sort()
      .flatMap((name) =>
        readFileSync(path.join(dir, name), 'utf8')
          .split(/^(?=#{2,3} )/m)
          .slice(1)
          .map((section, n) => {
            const heading = section.slice(0, section.indexOf('\n')).replace(/^#+\s*/, '');
            const text = section
              .slice(heading.length)
              .replace(/```[\s\S]*?```/g, '')
              .trim();
            const slug = `${name.replace(/\.md$/, '')}-${n}`;
            return {
              repo: 'docs',
              folder: slug,
              author: 'docs',
              body: {
                name: heading.slice(0, 100) || slug,
                slug,
                description: (text.split(/(?<=[.!?])\s+/)[0] ?? slug).slice(0, 400),
                category: 'docs',
                files: [{ filename: 'SKILL.md', content: `---\nname: ${slug}\ndescription: docs\n---\n${text}\n` }],
              },
            };
          }),
      )
  );
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function corpusSkill(skill: GitSkill): CorpusSkill[] {
  const skillMd = skill.files.find((f) => f.filename === 'SKILL.md');
  if (!skillMd) return [];
  const { data, body } = readFrontMatter(new TextDecoder().decode(skillMd.bytes));
  const author = skill.repo.split('+')[0]!.toLowerCase();
  const slug = typeof data?.name === 'string' ? data.name : skill.folder.split('/').at(-1)!;
  const heading = /^#\s+(.+)$/m.exec(body)?.[1]?.trim().replace(/[`*_]/g, '');
  const metadata = data?.metadata as Record<string, unknown> | undefined;
  const category = typeof metadata?.category === 'string' && /^[a-z0-9-]{1,40}$/.test(metadata.category) ? metadata.category : (CATEGORIES[author] ?? 'tools');
  return [
    {
      repo: skill.repo,
      folder: skill.folder,
      author,
      body: {
        name: (heading && heading.length <= 100 ? heading : slug).slice(0, 100),
        // As written in SKILL.md, which the slug must equal (an invalid one is refused, as it would be).
        slug,
        description: typeof data?.description === 'string' && data.description.trim() ? data.description.trim() : slug,
        category,
        files: skill.files.map((f) => {
          try {
            return { filename: f.filename, content: utf8.decode(f.bytes), ...(f.executable ? { executable: true } : {}) };
          } catch {
            return {
              filename: f.filename,
              content: Buffer.from(f.bytes).toString('base64'),
              encoding: 'base64' as const,
              ...(f.executable ? { executable: true } : {}),
            };
          }
        }),
      },
    },
  ];
}

/** A deterministic pseudo-random number in [0, 1) for a string (FNV-1a, then a mix). */
export function unitHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return (h >>> 0) / 2 ** 32;
}

/**
 * The listing and `SKILL.md` body of the `i`-th synthetic skill: a name of two words and a
 * description of sentences taken from different real skills, a body of paragraphs from others,
 * so sizes and vocabulary are those of real skills without any two being the same.
 */
export function syntheticListing(corpus: readonly CorpusSkill[], i: number): { name: string; description: string; category: string; body: string } {
  const pick = <T>(items: readonly T[], salt: string) => items[Math.floor(unitHash(`${i}:${salt}`) * items.length)]!;
  const words = corpus.flatMap((s) => s.body.name.split(/\s+/)).filter((w) => /^[A-Za-z]{4,}$/.test(w));
  const sentences = (s: CorpusSkill) => s.body.description.split(/(?<=[.!?])\s+/);
  const description = [pick(sentences(pick(corpus, 'a')), 'b'), pick(sentences(pick(corpus, 'c')), 'd')].join(' ').slice(0, 400);
  const paragraphs = (s: CorpusSkill) =>
    (s.body.files.find((f) => f.filename === 'SKILL.md')?.content ?? '').split(/\n{2,}/).filter((p) => !p.startsWith('---') && p.length > 40);
  const body = Array.from({ length: 6 }, (_, k) => {
    const found = paragraphs(pick(corpus, `p${k}`));
    return found.length > 0 ? pick(found, `q${k}`) : '';
  }).join('\n\n');
  return {
    name: `${pick(words, 'n1')} ${pick(words, 'n2')} ${i}`,
    description: description || 'A synthetic skill',
    category: pick(Object.values(CATEGORIES), 'cat'),
    body: `# Synthetic ${i}\n\n${body}\n`,
  };
}

/**
 * How many distinct clients install each skill, as a marketplace would see it: some repositories'
 * skills are far more installed than others', and within one, a few skills take most installs.
 */
export function seededInstalls(skill: CorpusSkill, slug: string): number {
  const prior: Record<string, number> = { anthropics: 1, obra: 0.8, 'vercel-labs': 0.6, openai: 0.5, trailofbits: 0.35, composiohq: 0.4 };
  const weight = skill.folder.startsWith('composio-skills/') ? 0.04 : (prior[skill.author] ?? 0.2);
  return Math.round(weight * 240 * unitHash(`installs:${slug}`) ** 3);
}
