import { minorDigits, type Price } from '#core/price';
import type { OwnSkill, Skill } from '#core/schemas';
import { formatCount, formatPrice, formatTimestamp, installCommand, priceLabel } from '../../lib/format.ts';
import type { DayCounts } from '../../lib/chart-geometry.ts';
import { fill, renderList } from '../fill.ts';
import { api, confirmed, messageOf, writeRunner } from './api.ts';
import { drawChart } from './chart.ts';
import { wireLifecycle } from './lifecycle.ts';
import { wireTrustedPublishers } from './trusted-publishers.ts';
import type { MyOrg, Role } from './orgs.ts';
import { showSkillReports } from './reports.ts';

/** The selected skill: install analytics, for paid skills its download tokens and grants, and its versions and deprecation. */
interface Analytics {
  total: number;
  last7d: number;
  last30d: number;
  bySource: { cli: number; web: number; api: number };
  /** Which program made the installs (docs/api.md §10.2): our CLI, the skills CLI, ClawHub's CLIs, anything else. */
  byClient: { skillpress: number; skills: number; clawhub: number; other: number };
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

interface Sales {
  count: number;
  refunds: number;
  gross: Price[];
  net: Price[];
}

/** `[€10.00, $5.00]` → `€10.00 + $5.00`; nothing sold yet is `0`. */
const money = (totals: Price[]) => totals.map(formatPrice).join(' + ') || '0';

interface GrantInfo {
  login: string;
  grantedAt: string;
}

/**
 * What the panel may offer for a skill: `role` is the caller's in the organisation that owns it
 * (undefined: the caller's own skill, everything); `orgs` are where a skill may move;
 * `changedOwner` is told after a transfer.
 */
export interface PanelContext {
  role?: Role;
  orgs: MyOrg[];
  changedOwner: () => Promise<void>;
}

/** `changed` hears of a skill the panel changed (yanked a version of, deprecated, made public). */
export function wireSkillPanel(
  panel: HTMLElement,
  changed: (skill: Skill) => void,
): { open(skill: OwnSkill, focus: boolean, context: PanelContext): Promise<void> } {
  const part = <T extends HTMLElement = HTMLElement>(role: string) => panel.querySelector<T>(`[data-role="${role}"]`)!;
  const lifecycle = wireLifecycle(part('lifecycle'), changed);
  const publishers = wireTrustedPublishers(part('trusted-publishers'));
  const status = part('skill-status');
  const tokenSecret = part('new-token');
  let current: Skill | undefined;
  let context: PanelContext = { orgs: [], changedOwner: async () => {} };

  const open = async (skill: OwnSkill, focus: boolean, next: PanelContext) => {
    current = skill;
    context = next;
    // What the caller's role lets them do (the API refuses the rest all the same): owners and authors everything,
    // maintainers the versions and reports, members the analytics.
    const role = next.role;
    const runs = role === undefined || role === 'owner';
    const maintains = runs || role === 'maintainer';
    panel.hidden = false;
    fill(panel.querySelector('h2')!, { name: skill.name });
    part('free-access').hidden = skill.paid;
    part('paid-access').hidden = !skill.paid || !runs;
    part('lifecycle').hidden = !maintains;
    part('trusted-publishers').hidden = !maintains;
    part('skill-moderation').hidden = !maintains;
    showOwnership(skill);
    tokenSecret.hidden = true;
    fill(tokenSecret, { token: '', command: '' });
    status.textContent = '';
    if (focus) panel.querySelector<HTMLElement>('h2')!.focus();
    showPrice(skill);
    try {
      await Promise.all([
        showAnalytics(skill),
        skill.paid && runs ? showTokens(skill) : undefined,
        skill.paid && runs ? showGrants(skill) : undefined,
        skill.paid && runs ? showSales(skill) : undefined,
        maintains ? showSkillReports(panel, skill, () => current === skill) : undefined,
        maintains ? lifecycle.open(skill) : undefined,
        maintains ? publishers.open(skill) : undefined,
      ]);
    } catch (error) {
      status.textContent = messageOf(error);
    }
  };

  /** Who owns the skill and who sees it; for its owning side, making it public and moving it. */
  const showOwnership = (skill: Skill) => {
    const section = part('ownership');
    const isPrivate = skill.visibility === 'private';
    fill(section, {
      owner: skill.owner.type === 'org' ? `the organisation ${skill.owner.login}` : skill.owner.login,
      visibilityText: isPrivate ? 'private: only its members see and install it.' : 'public: anyone can see and install it.',
    });
    const runs = context.role === undefined || context.role === 'owner';
    part('make-public').hidden = !(isPrivate && runs);
    // From a user, into an organisation its author maintains; from an organisation, into another its owner also owns.
    const targets = context.orgs.filter((o) => o.login !== skill.owner.login && (context.role === undefined ? o.role !== 'member' : o.role === 'owner'));
    const select = part<HTMLSelectElement>('transfer-form').querySelector('select')!;
    select.replaceChildren(...targets.map((o) => new Option(`${o.name} (${o.login})`, o.login)));
    part('transfer-form').hidden = !runs || targets.length === 0;
  };

  panel.querySelector('[data-action=make-public]')!.addEventListener('click', (event) => {
    const button = event.currentTarget as HTMLButtonElement;
    if (!confirmed(button, 'make it public for good')) return;
    void act(button, async (skill) => {
      const updated = await api<Skill>('PATCH', `/api/skills/${encodeURIComponent(skill.id)}`, { visibility: 'public' });
      Object.assign(skill, { visibility: updated.visibility, updatedAt: updated.updatedAt });
      changed(updated);
      showOwnership(skill);
      return `${skill.name} is public: the registry, the catalog and the site list it after the next rebuild.`;
    });
  });

  part<HTMLFormElement>('transfer-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const to = (form.elements.namedItem('to') as HTMLSelectElement).value;
    const button = form.querySelector<HTMLButtonElement>('button')!;
    if (!to || !confirmed(button, 'transfer')) return;
    void act(button, async (skill) => {
      await api<Skill>('POST', `/api/skills/${encodeURIComponent(skill.id)}/transfer`, { to });
      await context.changedOwner();
      return `${skill.name} belongs to ${to} now; its slug stays ${skill.slug}.`;
    });
  });

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
    fill(part('clients'), {
      skillpress: n(a.byClient.skillpress),
      skills: n(a.byClient.skills),
      clawhub: n(a.byClient.clawhub),
      other: n(a.byClient.other),
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

  const showPrice = (skill: Skill) => {
    fill(part('price-now'), { price: skill.price ? priceLabel(skill) : 'not for sale' });
    const form = part<HTMLFormElement>('price-form');
    (form.elements.namedItem('amount') as HTMLInputElement).value = skill.price ? String(skill.price.amount / 10 ** minorDigits(skill.price.currency)) : '';
    if (skill.price) (form.elements.namedItem('currency') as HTMLInputElement).value = skill.price.currency;
  };

  const showSales = async (skill: Skill) => {
    const sales = await api<Sales>('GET', `/api/skills/${encodeURIComponent(skill.id)}/sales`);
    if (current !== skill) return;
    fill(part('sales'), { count: formatCount(sales.count), refunds: formatCount(sales.refunds), gross: money(sales.gross), net: money(sales.net) });
  };

  /** Sets (or with `null` removes) the price, and shows the skill as the server now has it. */
  const setPrice = async (skill: Skill, price: Price | null) => {
    const updated = await api<Skill>('PATCH', `/api/skills/${encodeURIComponent(skill.id)}`, { price });
    Object.assign(skill, { price: updated.price });
    if (!updated.price) delete skill.price;
    showPrice(skill);
    return updated.price ? `${skill.name} is on sale at ${formatPrice(updated.price)}.` : `${skill.name} is no longer for sale.`;
  };

  part<HTMLFormElement>('price-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const currency = String(data.get('currency') ?? '')
      .trim()
      .toUpperCase();
    // The form takes the amount as people write it (9.99); the API counts minor units (999).
    const amount = Math.round(Number(data.get('amount')) * 10 ** minorDigits(currency));
    void act(form.querySelector('button[type=submit]'), (skill) => setPrice(skill, { amount, currency }));
  });

  panel.querySelector('[data-action=remove-price]')!.addEventListener('click', (event) => {
    void act(event.currentTarget as HTMLButtonElement, (skill) => setPrice(skill, null));
  });

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
      fill(tokenSecret, { token: created.token, command: `${installCommand(skill.slug, location.origin)} --token ${created.token}` });
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
