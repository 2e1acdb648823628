import type { Skill } from '#core/schemas';
import { formatCount, formatTimestamp, installCommand } from '../../lib/format.ts';
import type { DayCounts } from '../../lib/chart-geometry.ts';
import { fill, renderList } from '../fill.ts';
import { api, confirmed, messageOf, writeRunner } from './api.ts';
import { drawChart } from './chart.ts';
import { wireLifecycle } from './lifecycle.ts';

/** The selected skill: install analytics, for paid skills its download tokens and grants, and its versions and deprecation. */
interface Analytics {
  total: number;
  last7d: number;
  last30d: number;
  bySource: { cli: number; web: number; api: number };
  daily: DayCounts[];
}

interface TokenInfo {
  id: string;
  createdAt: string;
  expiresAt: string;
  maxUses: number | null;
  uses: number;
  lastUsedAt: string | null;
}

interface GrantInfo {
  login: string;
  grantedAt: string;
}

/** `changed` hears of a skill the panel changed (yanked a version of, deprecated). */
export function wireSkillPanel(panel: HTMLElement, changed: (skill: Skill) => void): { open(skill: Skill, focus: boolean): Promise<void> } {
  const part = <T extends HTMLElement = HTMLElement>(role: string) => panel.querySelector<T>(`[data-role="${role}"]`)!;
  const lifecycle = wireLifecycle(part('lifecycle'), changed);
  const status = part('skill-status');
  const tokenSecret = part('new-token');
  let current: Skill | undefined;

  const open = async (skill: Skill, focus: boolean) => {
    current = skill;
    panel.hidden = false;
    fill(panel.querySelector('h2')!, { name: skill.name });
    part('free-access').hidden = skill.paid;
    part('paid-access').hidden = !skill.paid;
    tokenSecret.hidden = true;
    fill(tokenSecret, { token: '', command: '' });
    status.textContent = '';
    if (focus) panel.querySelector<HTMLElement>('h2')!.focus();
    try {
      await Promise.all([showAnalytics(skill), skill.paid ? showTokens(skill) : undefined, skill.paid ? showGrants(skill) : undefined, lifecycle.open(skill)]);
    } catch (error) {
      status.textContent = messageOf(error);
    }
  };

  const showAnalytics = async (skill: Skill) => {
    const a = await api<Analytics>('GET', `/api/analytics/${encodeURIComponent(skill.id)}`);
    if (current !== skill) return;
    const n = formatCount;
    fill(part('stats'), {
      total: n(a.total),
      last7d: n(a.last7d),
      last30d: n(a.last30d),
      cli: n(a.bySource.cli),
      web: n(a.bySource.web),
      api: n(a.bySource.api),
    });
    drawChart(part<HTMLElement>('chart') as unknown as SVGSVGElement, a.daily);
    renderList(
      panel,
      'daily',
      a.daily.map((d) => ({ ...d, total: d.cli + d.web + d.api })),
    );
  };

  const showTokens = async (skill: Skill) => {
    const { tokens } = await api<{ tokens: TokenInfo[] }>('GET', `/api/skills/${encodeURIComponent(skill.id)}/download-tokens`);
    if (current !== skill) return;
    renderList(
      panel,
      'tokens',
      tokens.map((t) => ({
        ...t,
        created: formatTimestamp(t.createdAt),
        expires: formatTimestamp(t.expiresAt),
        uses: t.maxUses === null ? String(t.uses) : `${t.uses} of ${t.maxUses}`,
        lastUsed: formatTimestamp(t.lastUsedAt),
      })),
    );
    part('no-tokens').hidden = tokens.length > 0;
  };

  const showGrants = async (skill: Skill) => {
    const { grants } = await api<{ grants: GrantInfo[] }>('GET', `/api/skills/${encodeURIComponent(skill.id)}/grants`);
    if (current !== skill) return;
    renderList(
      panel,
      'grants',
      grants.map((g) => ({ ...g, granted: formatTimestamp(g.grantedAt) })),
    );
    part('no-grants').hidden = grants.length > 0;
  };

  /** Runs a write for the current skill, reports it, and refreshes the lists it changed. */
  const act = writeRunner(status, () => current);

  part<HTMLFormElement>('token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const maxUses = String(data.get('maxUses') ?? '').trim();
    void act(form.querySelector('button'), async (skill) => {
      const body = { expiresInSeconds: Number(data.get('expiresInSeconds')), ...(maxUses ? { maxUses: Number(maxUses) } : {}) };
      const created = await api<{ token: string; expiresAt: string }>('POST', `/api/skills/${encodeURIComponent(skill.id)}/download-tokens`, body);
      fill(tokenSecret, { token: created.token, command: `${installCommand(skill.slug)} --token ${created.token}` });
      tokenSecret.hidden = false;
      form.reset();
      await showTokens(skill);
      tokenSecret.querySelector<HTMLButtonElement>('button[data-copy]')?.focus();
      return `Issued a token valid until ${formatTimestamp(created.expiresAt)}.`;
    });
  });

  tokenSecret.querySelector('[data-action=dismiss]')!.addEventListener('click', () => {
    fill(tokenSecret, { token: '', command: '' });
    tokenSecret.hidden = true;
  });

  part<HTMLFormElement>('grant-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const login = String(new FormData(form).get('login') ?? '').trim();
    void act(form.querySelector('button'), async (skill) => {
      await api('POST', `/api/skills/${encodeURIComponent(skill.id)}/grants`, { login });
      form.reset();
      await showGrants(skill);
      return `${login} can now install ${skill.name} while signed in.`;
    });
  });

  panel.addEventListener('click', (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>('button[data-action=revoke-token], button[data-action=revoke-grant]');
    if (!button || !confirmed(button)) return;
    const token = button.dataset.action === 'revoke-token';
    void act(button, async (skill) => {
      const path = `/api/skills/${encodeURIComponent(skill.id)}/${token ? 'download-tokens' : 'grants'}/${encodeURIComponent(button.value)}`;
      await api('DELETE', path);
      await (token ? showTokens(skill) : showGrants(skill));
      return token ? 'Token revoked; it stops working at once.' : 'Grant revoked.';
    });
  });

  return { open };
}
