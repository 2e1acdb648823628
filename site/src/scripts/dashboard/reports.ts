import type { Report } from '#core/moderation';
import type { OwnSkill } from '#core/schemas';
import { formatTimestamp } from '../../lib/format.ts';
import { fill, renderList } from '../fill.ts';
import { api } from './api.ts';

/**
 * The selected skill's standing, for its author: whether it is quarantined (and why), and every
 * report filed against it with its state. Reporters are not named to the author.
 */
export async function showSkillReports(panel: HTMLElement, skill: OwnSkill, stillCurrent: () => boolean): Promise<void> {
  const part = (role: string) => panel.querySelector<HTMLElement>(`[data-role="${role}"]`)!;
  const notice = part('quarantine-notice');
  notice.hidden = !skill.quarantine;
  if (skill.quarantine) fill(notice, { reason: skill.quarantine.reason, since: formatTimestamp(skill.quarantine.since) });
  const { reports } = await api<{ reports: Report[] }>('GET', `/api/skills/${encodeURIComponent(skill.id)}/reports`);
  if (!stillCurrent()) return;
  renderList(
    panel,
    'skill-reports',
    reports.map((r) => ({ ...r, details: r.details ?? '', reported: formatTimestamp(r.createdAt) })),
  );
  part('no-reports').hidden = reports.length > 0;
}
