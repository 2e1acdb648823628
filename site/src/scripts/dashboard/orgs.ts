import type { OwnSkill } from '#core/schemas';
import { formatTimestamp, utcDay } from '../../lib/format.ts';
import { fill, renderList } from '../fill.ts';
import { api, confirmed, messageOf } from './api.ts';

/**
 * Organisations on the dashboard: the switcher between one's own skills and an organisation's,
 * creating one, the invitations waiting for the signed-in user, and the selected organisation's
 * panel (members, roles, invitations and audit log for its owners; leaving for everyone).
 */

export type Role = 'owner' | 'maintainer' | 'member';
export interface MyOrg {
  login: string;
  name: string;
  role: Role;
}
interface Invitation {
  org: string;
  login: string;
  role: Role;
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
}
interface Member {
  login: string;
  role: Role;
  since: string;
}
interface AuditEntry {
  at: string;
  actor: string;
  action: string;
  target: string;
  details?: Record<string, unknown>;
}

/** What the rest of the dashboard hears: the organisation now shown (undefined: one's own skills), with its skills. */
export interface Shown {
  org?: MyOrg;
  skills: OwnSkill[];
}

export function wireOrganisations(root: HTMLElement, login: () => string, show: (shown: Shown) => Promise<void>) {
  const part = <T extends HTMLElement = HTMLElement>(role: string) => root.querySelector<T>(`[data-role="${role}"]`)!;
  const switcher = part<HTMLSelectElement>('owner-switch');
  const panel = part('org-panel');
  const panelStatus = part('org-panel-status');
  let orgs: MyOrg[] = [];
  let selected: MyOrg | undefined;
  let auditCursor: string | undefined;

  /** Reads the user's organisations and invitations; keeps the selection when it still stands. */
  const refresh = async () => {
    const [mine, invitations] = await Promise.all([
      api<{ orgs: MyOrg[] }>('GET', '/api/me/orgs'),
      api<{ invitations: Invitation[] }>('GET', '/api/me/invitations'),
    ]);
    orgs = mine.orgs;
    const keep = orgs.find((o) => o.login === selected?.login);
    switcher.replaceChildren(new Option('you', ''), ...orgs.map((o) => new Option(`${o.name} (${o.login}, ${o.role})`, o.login)));
    switcher.value = keep?.login ?? '';
    renderList(
      root,
      'my-invitations',
      invitations.invitations.map((i) => ({ ...i, expires: formatTimestamp(i.expiresAt) })),
    );
    part('invitations').hidden = invitations.invitations.length === 0;
    await select(keep);
  };

  const select = async (org: MyOrg | undefined) => {
    selected = org;
    panel.hidden = !org;
    if (!org) {
      await show({ skills: (await api<{ skills: OwnSkill[] }>('GET', '/api/me/skills')).skills });
      return;
    }
    const page = await api<{ skills: OwnSkill[] }>('GET', `/api/orgs/${encodeURIComponent(org.login)}`);
    fill(panel.querySelector('h2')!, { name: org.name });
    fill(panel.querySelector('p')!, { role: org.role, login: `/authors/${org.login}/`, href: `/authors/${encodeURIComponent(org.login)}/` });
    for (const el of panel.querySelectorAll<HTMLElement>('[data-owners-only]')) el.hidden = org.role !== 'owner';
    panelStatus.textContent = '';
    await Promise.all([
      show({ org, skills: page.skills }),
      showMembers(org),
      org.role === 'owner' ? Promise.all([showInvitations(org), showAudit(org, true)]) : undefined,
    ]);
  };

  const showMembers = async (org: MyOrg) => {
    const { members } = await api<{ members: Member[] }>('GET', `/api/orgs/${encodeURIComponent(org.login)}/members`);
    renderList(
      root,
      'members',
      members.map((m) => ({ ...m, since: utcDay(m.since) })),
    );
    for (const el of root.querySelectorAll<HTMLElement>('[data-list=members] [data-owners-only]')) el.hidden = org.role !== 'owner';
  };

  const showInvitations = async (org: MyOrg) => {
    const { invitations } = await api<{ invitations: Invitation[] }>('GET', `/api/orgs/${encodeURIComponent(org.login)}/invitations`);
    renderList(
      root,
      'org-invitations',
      invitations.map((i) => ({ ...i, expires: formatTimestamp(i.expiresAt) })),
    );
  };

  /** The newest page of the log (`fresh`), or the next older one. */
  const showAudit = async (org: MyOrg, fresh: boolean) => {
    const cursor = fresh ? undefined : auditCursor;
    const page = await api<{ entries: AuditEntry[]; nextCursor?: string }>(
      'GET',
      `/api/orgs/${encodeURIComponent(org.login)}/audit${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    auditCursor = page.nextCursor;
    const rows = page.entries.map((e) => ({ ...e, when: formatTimestamp(e.at), details: e.details ? detailsText(e.details) : '' }));
    if (fresh) renderList(root, 'audit', rows);
    else {
      const list = root.querySelector('[data-list=audit]')!;
      const kept = [...list.children];
      renderList(root, 'audit', rows);
      list.prepend(...kept);
    }
    root.querySelector<HTMLElement>('[data-action=older-audit]')!.hidden = !page.nextCursor;
  };

  /** Runs an organisation write, then shows what it changed. */
  const run = async (button: HTMLButtonElement | null, write: (org: MyOrg) => Promise<string>) => {
    if (!selected) return;
    const org = selected;
    if (button) button.disabled = true;
    try {
      panelStatus.textContent = await write(org);
      await select(org);
    } catch (error) {
      panelStatus.textContent = messageOf(error);
    } finally {
      if (button) button.disabled = false;
    }
  };

  switcher.addEventListener('change', () => void select(orgs.find((o) => o.login === switcher.value)).catch((e) => (panelStatus.textContent = messageOf(e))));

  part<HTMLFormElement>('org-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const value = (name: string) => (form.elements.namedItem(name) as HTMLInputElement).value.trim();
    try {
      const created = await api<MyOrg>('POST', '/api/orgs', { login: value('login'), name: value('name') });
      part('org-status').textContent = `Created ${created.login}; you are its owner.`;
      form.reset();
      selected = { login: created.login, name: created.name, role: 'owner' };
      await refresh();
    } catch (error) {
      part('org-status').textContent = messageOf(error);
    }
  });

  root.querySelector('[data-list=my-invitations]')!.addEventListener('click', async (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>('button[data-action]');
    if (!button) return;
    const accept = button.dataset.action === 'accept-invitation';
    button.disabled = true;
    try {
      await api('POST', `/api/orgs/${encodeURIComponent(button.value)}/invitations/${encodeURIComponent(login())}/${accept ? 'accept' : 'decline'}`);
      part('invitations-status').textContent = accept ? `You are a member of ${button.value} now.` : `Declined the invitation of ${button.value}.`;
      if (accept) selected = { login: button.value, name: button.value, role: 'member' };
      await refresh();
    } catch (error) {
      part('invitations-status').textContent = messageOf(error);
      button.disabled = false;
    }
  });

  part<HTMLFormElement>('invite-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const invitee = (form.elements.namedItem('login') as HTMLInputElement).value.trim();
    const role = (form.elements.namedItem('role') as HTMLSelectElement).value;
    void run(form.querySelector('button'), async (org) => {
      await api('POST', `/api/orgs/${encodeURIComponent(org.login)}/invitations`, { login: invitee, role });
      form.reset();
      return `Invited ${invitee} as ${role}; the invitation waits for them for 7 days.`;
    });
  });

  part<HTMLFormElement>('role-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const member = (form.elements.namedItem('login') as HTMLInputElement).value.trim();
    const role = (form.elements.namedItem('role') as HTMLSelectElement).value;
    void run(form.querySelector('button'), async (org) => {
      await api('PUT', `/api/orgs/${encodeURIComponent(org.login)}/members/${encodeURIComponent(member)}`, { role });
      form.reset();
      return `${member} is ${role === 'owner' ? 'an' : 'a'} ${role} now.`;
    });
  });

  panel.addEventListener('click', (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>('button[data-action]');
    if (!button) return;
    const action = button.dataset.action;
    if (action === 'remove-member' && confirmed(button, 'remove')) {
      void run(button, async (org) => {
        await api('DELETE', `/api/orgs/${encodeURIComponent(org.login)}/members/${encodeURIComponent(button.value)}`);
        return `Removed ${button.value}: their sessions and keys reach nothing of ${org.login} any more.`;
      });
    } else if (action === 'revoke-invitation' && confirmed(button, 'withdraw')) {
      void run(button, async (org) => {
        await api('DELETE', `/api/orgs/${encodeURIComponent(org.login)}/invitations/${encodeURIComponent(button.value)}`);
        return `Withdrew the invitation of ${button.value}.`;
      });
    } else if (action === 'older-audit' && selected) {
      void showAudit(selected, false).catch((e) => (panelStatus.textContent = messageOf(e)));
    } else if (action === 'leave-org' && selected && confirmed(button, 'leave')) {
      const org = selected;
      void (async () => {
        try {
          await api('DELETE', `/api/orgs/${encodeURIComponent(org.login)}/members/${encodeURIComponent(login())}`);
          part('org-status').textContent = `You left ${org.login}.`;
          selected = undefined;
          await refresh();
        } catch (error) {
          panelStatus.textContent = messageOf(error);
        }
      })();
    }
  });

  return { refresh, orgs: () => orgs, selected: () => selected };
}

/** `{from: "maintainer", to: "owner"}` → `from maintainer, to owner`: text, never markup. */
function detailsText(details: Record<string, unknown>): string {
  return Object.entries(details)
    .map(([key, value]) => `${key} ${Array.isArray(value) ? value.join(' ') : value === null ? 'none' : String(value)}`)
    .join(', ');
}
