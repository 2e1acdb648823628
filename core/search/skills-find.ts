import { isSkillsCliAgent } from '../install-analytics.ts';
import { skillPagePath } from '../static-paths.ts';
import type { SearchAnswerDocument, SkillsFindAnswer } from './schemas.ts';

/**
 * `GET /api/search` for the `skills` CLI (docs/api.md §7.11). `SKILLS_API_URL=<origin> npx
 * skills find <q>` asks this path, which is ours, and reads another shape (skills.sh's), where
 * `id` would be taken for a slug. The two are told apart by what that client sends: Node's
 * `fetch`, with its user agent and `Accept: *\/*`. A Node script that wants our shape says so
 * with `Accept: application/json`.
 */
export function wantsSkillsFindShape(headers: { userAgent?: string; accept?: string }): boolean {
  return isSkillsCliAgent(headers.userAgent) && !(headers.accept ?? '').toLowerCase().includes('application/json');
}

/**
 * Our answer in the `skills` CLI's shape: only what `skills add <source>` installs without showing
 * a verdict, that is free skills standing as clean (docs/api.md §11.6), each with its own URL under
 * `origin` as its source; `owner` (its `--owner`) keeps one author's.
 */
export function skillsFindAnswer(answer: SearchAnswerDocument, origin: string, owner?: string): SkillsFindAnswer {
  const named = owner?.trim().toLowerCase();
  const skills = answer.skills
    .filter((entry) => !entry.paid && (entry.verdict ?? 'clean') === 'clean' && (!named || entry.author.toLowerCase() === named))
    .map((entry) => ({
      id: entry.slug,
      skillId: entry.slug,
      name: entry.slug,
      installs: entry.installs,
      source: `${origin}${skillPagePath(entry.slug).replace(/\/$/, '')}`,
    }));
  return { skills, count: skills.length };
}
