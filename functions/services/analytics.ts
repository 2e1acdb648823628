import { ANALYTICS_DAYS, type InstallAnalytics, lastUtcDays, summariseInstalls } from '#core/install-analytics';
import type { Deps } from '../platform/composition.ts';
import { readDownloads } from '../store/downloads.ts';
import { type Principal, skillFor } from './authorization.ts';

/** The install analytics of a skill, for its author. */
export async function installAnalytics(
  { db, clock, downloads, config }: Pick<Deps, 'db' | 'clock' | 'downloads' | 'config'>,
  principal: Principal,
  skillId: string,
): Promise<InstallAnalytics> {
  const { skill } = await skillFor({ db, config }, principal, skillId, 'skill.read_analytics');
  // Counts this process holds (the local runtime's deliveries) are written first, so an author
  // reads their own installs. On AWS the deliver Lambda wrote them before it answered.
  await downloads.written();
  const now = clock();
  const days = lastUtcDays(now, ANALYTICS_DAYS);
  const { days: buckets, totals } = await readDownloads(db, skill.id, days[0]!, days.at(-1)!);
  return summariseInstalls(now, buckets, totals);
}
