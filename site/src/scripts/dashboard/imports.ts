import type { ImportFolder, ImportResult, ImportView } from '#core/schemas';
import { formatTimestamp } from '../../lib/format.ts';
import { fill, renderList } from '../fill.ts';
import { api, messageOf } from './api.ts';

/**
 * GitHub imports in the dashboard (docs/api.md §7.16): import a repository one owns, see one's
 * imports and "sync now" one of them. What each skill folder came to is listed under the form;
 * the webhook's URL and secret show once, after the import that created it.
 */
export function wireImports(root: HTMLElement): { refresh(): Promise<void> } {
  const part = <T extends HTMLElement = HTMLElement>(role: string) => root.querySelector<T>(`[data-role="${role}"]`)!;
  const panel = part('imports');
  const form = part<HTMLFormElement>('import-form');
  const status = part('imports-status');
  const webhook = part('import-webhook');
  const folders = part('import-folders');

  const refresh = async () => {
    const { imports } = await api<{ imports: ImportView[] }>('GET', '/api/imports');
    renderList(
      panel,
      'imports',
      imports.map((i) => ({
        id: i.id,
        repo: i.repo,
        ref: i.ref,
        path: i.path || '(all of it)',
        lastSync: i.lastSync ? `${i.lastSync.commit.slice(0, 7)}, ${formatTimestamp(i.lastSync.at)}` : 'never',
      })),
    );
    part('imports-table').hidden = imports.length === 0;
  };

  /** What an import or a sync did, folder by folder, and in one sentence. */
  const report = (result: ImportResult) => {
    const count = (outcome: ImportFolder['outcome']) => result.folders.filter((f) => f.outcome === outcome).length;
    status.textContent =
      `${result.repo}@${result.commit.slice(0, 7)}: ${count('published')} published, ${count('versioned')} new versions, ` +
      `${count('unchanged')} unchanged, ${count('refused')} refused.`;
    renderList(
      panel,
      'import-folders',
      result.folders.map((f) => ({
        path: f.path || '(the root)',
        outcome: f.outcome,
        outcomeClass: f.outcome === 'refused' ? 'badge malicious' : f.outcome === 'unchanged' ? 'badge' : 'badge clean',
        detail: f.error ? `${f.error.code}: ${f.error.message}` : `${f.slug ?? ''}@${f.version ?? ''}`,
      })),
    );
    folders.hidden = result.folders.length === 0;
  };

  /**
   * Runs an import or a sync from `button` (disabled meanwhile), saying `busy` until it answers:
   * what it did, and the webhook's secret when the answer carries one (a new import's, once).
   */
  const run = async (button: HTMLButtonElement, busy: string, send: () => Promise<ImportResult>) => {
    button.disabled = true;
    status.textContent = busy;
    try {
      const result = await send();
      report(result);
      webhook.hidden = result.webhookSecret === undefined;
      fill(webhook, { webhookUrl: result.webhookUrl, webhookSecret: result.webhookSecret ?? '' });
      await refresh();
    } catch (error) {
      status.textContent = messageOf(error);
    } finally {
      button.disabled = false;
    }
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const field = (name: string) => (form.elements.namedItem(name) as HTMLInputElement).value.trim();
    void run(form.querySelector('button')!, `Importing ${field('repo')}…`, () =>
      api<ImportResult>('POST', '/api/imports', {
        repo: field('repo'),
        ...(field('ref') ? { ref: field('ref') } : {}),
        ...(field('path') ? { path: field('path') } : {}),
      }),
    );
  });

  panel.addEventListener('click', (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>('button[data-action=sync-import]');
    if (button) void run(button, 'Syncing…', () => api<ImportResult>('POST', `/api/imports/${encodeURIComponent(button.value)}/sync`));
  });

  return { refresh };
}
