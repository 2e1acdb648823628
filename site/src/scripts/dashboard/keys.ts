import { formatTimestamp } from '../../lib/format.ts';
import { fill, renderList } from '../fill.ts';
import { api, confirmed, messageOf } from './api.ts';

/** API keys: create (the key is shown once), list, revoke. */
interface KeyInfo {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export function wireKeys(root: HTMLElement): { refresh(): Promise<void> } {
  const part = <T extends HTMLElement = HTMLElement>(role: string) => root.querySelector<T>(`[data-role="${role}"]`)!;
  const form = part<HTMLFormElement>('key-form');
  const secret = part('new-key');
  const status = part('keys-status');

  const refresh = async () => {
    const { keys } = await api<{ keys: KeyInfo[] }>('GET', '/api/api-keys');
    renderList(
      root,
      'keys',
      keys.map((k) => ({ ...k, masked: `${k.prefix}…`, created: formatTimestamp(k.createdAt), lastUsed: formatTimestamp(k.lastUsedAt) })),
    );
    part('no-keys').hidden = keys.length > 0;
  };

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const input = form.elements.namedItem('name') as HTMLInputElement;
    const button = form.querySelector('button')!;
    button.disabled = true;
    try {
      const created = await api<{ key: string; name: string }>('POST', '/api/api-keys', { name: input.value.trim() });
      fill(secret, { key: created.key });
      secret.hidden = false;
      status.textContent = `Created the key “${created.name}”.`;
      form.reset();
      await refresh();
      secret.querySelector<HTMLButtonElement>('button[data-copy]')?.focus();
    } catch (error) {
      status.textContent = messageOf(error);
    } finally {
      button.disabled = false;
    }
  });

  secret.querySelector('[data-action=dismiss]')!.addEventListener('click', () => {
    // The key leaves the page: nothing can show it again.
    fill(secret, { key: '' });
    secret.hidden = true;
    form.querySelector('input')!.focus();
  });

  root.querySelector('[data-list=keys]')!.addEventListener('click', async (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>('button[data-action=revoke-key]');
    if (!button || !confirmed(button)) return;
    button.disabled = true;
    try {
      await api('DELETE', `/api/api-keys/${encodeURIComponent(button.value)}`);
      status.textContent = 'Key revoked; it stops working at once.';
      await refresh();
    } catch (error) {
      status.textContent = messageOf(error);
      button.disabled = false;
    }
  });

  return { refresh };
}
