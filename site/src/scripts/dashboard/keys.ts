import type { OwnSkill } from '#core/schemas';
import { formatTimestamp } from '../../lib/format.ts';
import { fill, renderList } from '../fill.ts';
import { api, confirmed, keepFocus, messageOf } from './api.ts';
import type { MyOrg } from './orgs.ts';

/**
 * API keys: create (the key is shown once), list with what each may do, reach and until when,
 * revoke. A key is best given only what it needs: some scopes, one organisation or one skill, an
 * expiry.
 */
interface KeyInfo {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  scopes: string[];
  org: string | null;
  skills: string[] | null;
  expiresAt: string | null;
}

const ALL_SCOPES = ['publish', 'manage', 'read'];

export function wireKeys(root: HTMLElement): { refresh(): Promise<void>; reach(orgs: MyOrg[], skills: OwnSkill[]): void } {
  const part = <T extends HTMLElement = HTMLElement>(role: string) => root.querySelector<T>(`[data-role="${role}"]`)!;
  const form = part<HTMLFormElement>('key-form');
  const reachSelect = part<HTMLSelectElement>('key-reach');
  const secret = part('new-key');
  const status = part('keys-status');
  /** Skill names by id, for the list: a key narrowed to skills names them. */
  const skillNames = new Map<string, string>();

  const refresh = async () => {
    const { keys } = await api<{ keys: KeyInfo[] }>('GET', '/api/api-keys');
    const now = Date.now();
    renderList(
      root,
      'keys',
      keys.map((k) => {
        const expired = k.expiresAt !== null && Date.parse(k.expiresAt) <= now;
        return {
          ...k,
          masked: `${k.prefix}…`,
          scopes: k.scopes.length === ALL_SCOPES.length ? 'everything' : k.scopes.join(', '),
          reach: k.org ? `organisation ${k.org}` : k.skills ? k.skills.map((id) => skillNames.get(id) ?? id).join(', ') : 'all you may',
          expires: k.expiresAt === null ? 'never' : expired ? `expired ${formatTimestamp(k.expiresAt)}` : formatTimestamp(k.expiresAt),
          expiryClass: expired ? 'badge yanked' : '',
          created: formatTimestamp(k.createdAt),
          lastUsed: formatTimestamp(k.lastUsedAt),
        };
      }),
    );
    part('no-keys').hidden = keys.length > 0;
  };

  /** What a new key may be narrowed to: the user's organisations, and the skills shown above. */
  const reach = (orgs: MyOrg[], skills: OwnSkill[]) => {
    for (const s of skills) skillNames.set(s.id, s.name);
    const chosen = reachSelect.value;
    reachSelect.replaceChildren(
      new Option('everything you may do', ''),
      ...orgs.map((o) => new Option(`the organisation ${o.login} only`, `org:${o.login}`)),
      ...skills.map((s) => new Option(`the skill ${s.slug} only`, `skill:${s.id}`)),
    );
    if ([...reachSelect.options].some((o) => o.value === chosen)) reachSelect.value = chosen;
  };

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const input = form.elements.namedItem('name') as HTMLInputElement;
    const scopes = [...form.querySelectorAll<HTMLInputElement>('input[name=scope]:checked')].map((box) => box.value);
    const [kind, target] = reachSelect.value.split(/:(.*)/s);
    const days = (form.elements.namedItem('expiresInDays') as HTMLSelectElement).value;
    if (scopes.length === 0) {
      status.textContent = 'Choose at least one thing the key may do.';
      return;
    }
    const body = {
      name: input.value.trim(),
      ...(scopes.length < ALL_SCOPES.length ? { scopes } : {}),
      ...(kind === 'org' ? { org: target } : kind === 'skill' ? { skills: [target] } : {}),
      ...(days ? { expiresInDays: Number(days) } : {}),
    };
    const button = form.querySelector<HTMLButtonElement>('button[type=submit]')!;
    button.disabled = true;
    try {
      const created = await api<{ key: string; name: string }>('POST', '/api/api-keys', body);
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
      keepFocus(button, status);
    } catch (error) {
      status.textContent = messageOf(error);
      button.disabled = false;
    }
  });

  return { refresh, reach };
}
