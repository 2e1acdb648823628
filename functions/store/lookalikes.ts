import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '#core/map-limit';
import { isPublicListing, ownerIdentity } from '#core/policy';
import { type ImitationCandidate, imitationKeys } from '#core/slug-imitation';
import { type Db, getItems } from './db.ts';
import { distinctInstallTotals } from './downloads.ts';
import { lookalikeKey, skillKey } from './keys.ts';
import { getSkill, toSkillItem } from './skills.ts';

/**
 * The lookalike index of popular skills, so the imitation check (core/slug-imitation.ts) reads a
 * bounded number of items instead of every skill. One item per lookalike key,
 * `LOOKALIKE#<key>`, holds the set of ids of the skills with at least 100 installs whose slugs
 * (or display names: `name:<skeleton>`) have that key. Any two lookalike slugs share a key, and
 * two names that read the same share theirs, so a new skill's candidates are the union of the
 * sets under its own keys (at most 66 of them: one BatchGetItem), and their META and install
 * totals (distinct installs, docs/api.md §10.2) are two more, read at once, all of them. Installs only grow, so entries are only ever added: when a skill's total
 * crosses the threshold (the install counter), and by the full rebuild, which adds whatever a
 * failed write left out.
 */

/** Adds `skillId` under each of `keys` (all of its slug's and name's keys by default); idempotent. */
export async function indexLookalikes(db: Db, skill: { id: string; slug: string; name: string }, keys = imitationKeys(skill.slug, skill.name)): Promise<void> {
  const skillId = skill.id;
  await mapLimit(keys, 8, (key) =>
    db.doc.send(
      new UpdateCommand({
        TableName: db.table,
        Key: lookalikeKey(key),
        UpdateExpression: 'ADD skills :id',
        ExpressionAttributeValues: { ':id': new Set([skillId]) },
      }),
    ),
  );
}

/** Indexes a skill that just reached the threshold, by id (the install counter knows no slug). */
export async function indexPopularSkill(db: Db, skillId: string): Promise<void> {
  const skill = await getSkill(db, skillId);
  if (skill && isPublicListing(skill)) await indexLookalikes(db, skill);
}

/**
 * The indexed skills that share a lookalike key with a new skill's `slug` or `name`, with their
 * authors and installs: a superset of the lookalikes, for `imitatedSkill` to sift.
 */
export async function lookalikeCandidates(db: Db, slug: string, name: string): Promise<ImitationCandidate[]> {
  const entries = await getItems(db, imitationKeys(slug, name).map(lookalikeKey));
  const ids = new Set<string>();
  for (const entry of entries) for (const id of idsOf(entry)) ids.add(id);
  // Every one is weighed: a cut would let whoever fills a name's keys with entries of their own
  // hide the popular skill behind them. Each entry is a skill with 100 distinct installs, so the
  // set stays small unless someone pays for every entry; its reads go 100 keys to a batch.
  const chosen = [...ids];
  if (chosen.length === 0) return [];
  const [items, totals] = await Promise.all([getItems(db, chosen.map(skillKey)), distinctInstallTotals(db, chosen)]);
  // A private skill is nobody else's business: it is never a slug a new one may be told it imitates.
  return items
    .map(toSkillItem)
    .filter(isPublicListing)
    .map((skill) => ({ slug: skill.slug, name: skill.name, author: ownerIdentity(skill), installs: totals.get(skill.id) ?? 0 }));
}

/** The skill ids an index item holds (a DynamoDB string set reads as a Set). */
export function idsOf(item: Record<string, unknown>): string[] {
  const skills = item.skills;
  return skills instanceof Set ? [...skills].filter((id): id is string => typeof id === 'string') : [];
}
