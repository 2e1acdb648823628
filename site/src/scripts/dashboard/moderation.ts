import type { AdminReport } from '#core/moderation';
import { formatTimestamp } from '../../lib/format.ts';
import { FALLBACK_PAGE } from '../../lib/skill-links.ts';
import { renderList } from '../fill.ts';
import { adminGet, api, messageOf } from './api.ts';

/**
 * The admins' page of the dashboard (docs/api.md §7.10): every open report, with buttons to
 * quarantine the skill (upholding its reports) or release it (dismissing them). The panel stays
 * hidden for everyone the API does not take for an admin: it answers them 403.
 */
export function wireModeration(root: HTMLElement): { refresh(): Promise<void> } {
  const part = <T extends HTMLElement = HTMLElement>(role: string) => root.querySelector<T>(`[data-role="${role}"]`)!;
  const panel = part('admin');
  const status = part('admin-status');
  const reason = part<HTMLInputElement>('quarantine-reason');

  const refresh = async () => {
    const answer = await adminGet<{ reports: AdminReport[] }>('/api/admin/reports', panel);
    if (!answer) return;
    const { reports } = answer;
    renderList(
      panel,
      'admin-reports',
      reports.map((r) => ({
        ...r,
        details: r.details ?? '',
        standing: `${r.weight}: ${r.basis}`,
        href: `${FALLBACK_PAGE}?slug=${encodeURIComponent(r.slug)}`,
        reported: formatTimestamp(r.createdAt),
        state: r.quarantined ? 'quarantined' : 'listed',
        stateClass: r.quarantined ? 'badge quarantined' : 'badge',
      })),
    );
    part('no-open-reports').hidden = reports.length > 0;
  };

  panel.addEventListener('click', async (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>('button[data-action=quarantine], button[data-action=release]');
    if (!button) return;
    const path = `/api/admin/skills/${encodeURIComponent(button.value)}/quarantine`;
    const slug = button.closest('tr')?.querySelector('a')?.textContent ?? 'the skill';
    button.disabled = true;
    try {
      if (button.dataset.action === 'quarantine') {
        const given = reason.value.trim();
        if (!given) {
          status.textContent = 'Give a reason for the quarantine first.';
          reason.focus();
          return;
        }
        await api('POST', path, { reason: given });
        status.textContent = `${slug} is quarantined; its reports are upheld.`;
      } else {
        await api('DELETE', path);
        status.textContent = `${slug} is released; its reports are dismissed.`;
      }
      await refresh();
    } catch (error) {
      status.textContent = messageOf(error);
    } finally {
      button.disabled = false;
    }
  });

  return { refresh };
}
