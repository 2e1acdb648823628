import type { AdminAppeal, AdminAppealDetail, Appeal } from '#core/appeals';
import { formatBytes, formatTimestamp } from '../../lib/format.ts';
import { renderList } from '../fill.ts';
import { adminGet, api, messageOf } from './api.ts';

/**
 * Appeals in the dashboard (docs/api.md §7.15): the signed-in author's appeals and their outcome
 * (shown once they have one), and for admins the queue of pending appeals, whose files and
 * findings they read before approving (the version is published as sent) or declining (with the
 * reason the author reads). The admins' panel shows only for an admin (GET /api/me's flag), and hides if the API answers 403.
 */
export function wireAppeals(root: HTMLElement): { refresh(admin: boolean): Promise<void> } {
  const part = <T extends HTMLElement = HTMLElement>(role: string) => root.querySelector<T>(`[data-role="${role}"]`)!;
  const mine = part('my-appeals');
  const panel = part('admin-appeals');
  const status = part('appeals-status');
  const review = part('appeal-review');
  const reason = part<HTMLInputElement>('decline-reason');
  let queue = new Map<string, AdminAppeal>();

  const refreshMine = async () => {
    const { appeals } = await api<{ appeals: Appeal[] }>('GET', '/api/appeals');
    mine.hidden = appeals.length === 0;
    renderList(
      mine,
      'my-appeals',
      appeals.map((a) => ({
        what: `${a.slug}@${a.version}`,
        status: a.status,
        statusClass: a.status === 'approved' ? 'badge clean' : a.status === 'declined' ? 'badge malicious' : 'badge suspicious',
        scan: scanSummary(a),
        message: a.message,
        answer: a.status === 'declined' ? (a.reason ?? '') : a.status === 'approved' ? 'Published' : 'Waiting for an admin',
        filed: formatTimestamp(a.createdAt),
      })),
    );
  };

  const refreshQueue = async () => {
    const answer = await adminGet<{ appeals: AdminAppeal[] }>('/api/admin/appeals', panel);
    if (!answer) return;
    const { appeals } = answer;
    queue = new Map(appeals.map((a) => [a.id, a]));
    renderList(
      panel,
      'admin-appeals',
      appeals.map((a) => ({
        id: a.id,
        what: `${a.kind === 'skill' ? 'new skill ' : ''}${a.slug}@${a.version}${a.owner ? ` (into ${a.owner})` : ''}${a.paid ? ', paid' : ''}`,
        author: a.author,
        message: a.message,
        scan: scanSummary(a),
        filed: formatTimestamp(a.createdAt),
      })),
    );
    part('no-appeals').hidden = appeals.length > 0;
  };

  const show = async (id: string) => {
    const appeal = await api<AdminAppealDetail>('GET', `/api/admin/appeals/${encodeURIComponent(id)}`);
    review.querySelector('[data-field=what]')!.textContent = `${appeal.slug}@${appeal.version}`;
    renderList(
      review,
      'appeal-findings',
      appeal.scan.findings.map((f) => ({ ...f, severityClass: `badge severity-${f.severity}`, location: `${f.file}:${f.line}` })),
    );
    renderList(
      review,
      'appeal-files',
      appeal.files.map((f) => ({
        filename: f.filename,
        size: formatBytes(f.size),
        content: f.encoding === 'utf8' ? f.content : `(binary, ${formatBytes(f.size)}, shown as base64)\n${f.content}`,
      })),
    );
    review.hidden = false;
    review.querySelector<HTMLElement>('h3')?.focus();
  };

  panel.addEventListener('click', async (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>('button[data-action$=-appeal]');
    const appeal = button && queue.get(button.value);
    if (!button || !appeal) return;
    const what = `${appeal.slug}@${appeal.version}`;
    button.disabled = true;
    try {
      if (button.dataset.action === 'read-appeal') {
        await show(appeal.id);
        return;
      }
      if (button.dataset.action === 'approve-appeal') {
        await api('POST', `/api/admin/appeals/${encodeURIComponent(appeal.id)}/approve`);
        status.textContent = `${what} is approved and published.`;
      } else {
        const given = reason.value.trim();
        if (!given) {
          status.textContent = 'Give a reason for the decline first.';
          reason.focus();
          return;
        }
        await api('POST', `/api/admin/appeals/${encodeURIComponent(appeal.id)}/decline`, { reason: given });
        status.textContent = `${what} is declined; its author is told why.`;
      }
      review.hidden = true;
      await refreshQueue();
    } catch (error) {
      status.textContent = messageOf(error);
    } finally {
      button.disabled = false;
    }
  });

  // The queue is asked for only by an admin: anyone else would only be refused.
  return {
    refresh: async (admin) => {
      panel.hidden = !admin;
      await Promise.all([refreshMine(), admin ? refreshQueue() : undefined]);
    },
  };
}

/** The verdict and the worst finding, in a few words. */
function scanSummary(appeal: Appeal): string {
  const { verdict, findings } = appeal.scan;
  const worst = findings.find((f) => f.severity === 'critical') ?? findings.find((f) => f.severity === 'high') ?? findings[0];
  return worst ? `${verdict}: ${worst.rule} at ${worst.file}:${worst.line}` : verdict;
}
