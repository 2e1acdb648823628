import { ANALYTICS_DAYS, type InstallAnalytics, lastUtcDays, summariseInstalls } from '#core/install-analytics';
import type { User } from '#core/schemas';
import type { Deps } from '../platform/composition.ts';
import { readDownloads } from '../store/downloads.ts';
import { authoredSkill } from './authorship.ts';

/** The install analytics of a skill, for its author. */
export async function installAnalytics(
  { db, clock, downloads }: Pick<Deps, 'db' | 'clock' | 'downloads'>,
  user: User,
  skillId: string,
): Promise<InstallAnalytics> {
  const skill = await authoredSkill(db, skillId, user, 'read its analytics');
  // Counts this process holds (the local runtime's deliveries) are written first, so an author
  // reads their own installs. On AWS the deliver Lambda wrote them before it answered.
  await downloads.written();
  const now = clock();
  const days = lastUtcDays(now, ANALYTICS_DAYS);
  const { days: buckets, totals } = await readDownloads(db, skill.id, days[0]!, days.at(-1)!);
  return summariseInstalls(now, buckets, totals);
}
