import { installsOf } from '#core/public-installs';
import { installsLabel, installsTotal, weeklyInstallsLabel } from '../lib/format.ts';
import { weeklyRanks } from '../lib/skill-order.ts';
import { publicInstalls } from './public-installs.ts';

/**
 * The public install counts a built page shows are the build's; the file they come from is
 * refreshed every few minutes (docs/api.md §11.8), and installs alone start no build. So a page
 * with counts (`[data-installs-at]`: when the counts it shows were made) reads the file once
 * loaded (revalidated: a 304 while it has not changed), and puts newer numbers in place:
 * cards' labels, and a skill page's installs row. The orders of the lists stay the build's.
 */
const shown = [...document.querySelectorAll<HTMLElement>('[data-installs-at]')];
if (shown.length > 0) void refresh(shown);

async function refresh(elements: HTMLElement[]): Promise<void> {
  const doc = await publicInstalls();
  if (!doc) return;
  const made = Date.parse(doc.generatedAt);
  const ranks = weeklyRanks(doc);
  for (const el of elements) {
    const slug = el.dataset.installsOf;
    if (!slug || !(made > Date.parse(el.dataset.installsAt ?? ''))) continue;
    const counts = installsOf(doc, slug);
    const total = el.querySelector<HTMLElement>('[data-installs=total]');
    if (total) {
      total.textContent = installsTotal(counts);
      el.querySelector<HTMLElement>('[data-installs=recent]')!.textContent = weeklyInstallsLabel(counts, ranks.get(slug));
    } else el.textContent = installsLabel(counts);
    el.dataset.installsAt = doc.generatedAt;
  }
}
