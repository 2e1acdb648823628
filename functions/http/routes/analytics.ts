import { ANALYTICS_DAYS, lastUtcDays, summariseInstalls } from '#core/install-analytics';
import { authoredSkill } from '../../services/authorship.ts';
import { requireSession } from '../auth.ts';
import type { RouteGroup } from '../env.ts';
import { readDownloads } from '../../store/downloads.ts';

/** Install analytics for the author's dashboard: a session only, the author only (DESIGN.md §4). */
export const analyticsRoutes: RouteGroup = (app) => {
  app.get('/api/analytics/:skillId', async (c) => {
    const { user } = await requireSession(c);
    const { db, clock } = c.var.deps;
    const skill = await authoredSkill(db, c.req.param('skillId'), user, 'read its analytics');
    // Counts this process holds (the local runtime's deliveries) are written first, so an author
    // reads their own installs. On AWS the deliver Lambda wrote them before it answered.
    await c.var.deps.downloads.written();
    const now = clock();
    const days = lastUtcDays(now, ANALYTICS_DAYS);
    const { days: buckets, totals } = await readDownloads(db, skill.id, days[0]!, days.at(-1)!);
    return c.json(summariseInstalls(now, buckets, totals));
  });
};
