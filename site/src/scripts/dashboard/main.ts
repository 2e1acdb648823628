import type { OwnSkill, User } from '#core/schemas';
import { priceLabel, utcDay } from '../../lib/format.ts';
import { skillHref } from '../../lib/skill-links.ts';
import { fill, renderList } from '../fill.ts';
import { api, ApiError, messageOf } from './api.ts';
import { wireAppeals } from './appeals.ts';
import { wireImports } from './imports.ts';
import { wireKeys } from './keys.ts';
import { type Shown, wireOrganisations } from './orgs.ts';
import { wirePurchases } from './purchases.ts';
import { wireModeration } from './moderation.ts';
import { wireSkillPanel } from './skill-panel.ts';
import { wireUpload } from './upload.ts';

/**
 * The dashboard: who is signed in decides what shows. Signed out: GitHub sign-in, and the dev
 * sign-in form when the server has it on. Signed in: my skills or an organisation's (the
 * switcher), the organisation's members, invitations and log, the selected skill's analytics,
 * paid access, price and sales, versions (yank) and deprecation, visibility and transfer, my
 * purchases, my appeals, my GitHub imports, and API keys; for admins, the reports and appeals to review.
 */
const root = document.getElementById('dashboard');
if (root) void start(root);

async function start(root: HTMLElement): Promise<void> {
  const part = <T extends HTMLElement = HTMLElement>(role: string) => root.querySelector<T>(`[data-role="${role}"]`)!;
  const signedOut = part('signed-out');
  const signedIn = part('signed-in');
  const builtFrom = root.dataset.builtFrom ?? '';
  let byId = new Map<string, OwnSkill>();
  // A skill the panel changed (a yank, a deprecation) keeps what only the list knows: its quarantine.
  const panel = wireSkillPanel(part('skill-panel'), (skill) => {
    const quarantine = byId.get(skill.id)?.quarantine;
    byId.set(skill.id, { ...skill, ...(quarantine ? { quarantine } : {}) });
  });
  const keys = wireKeys(root);
  const purchases = wirePurchases(root);
  const moderation = wireModeration(root);
  const appeals = wireAppeals(root);
  const imports = wireImports(root);
  let login = '';
  let shown: Shown = { skills: [] };
  const orgs = wireOrganisations(
    root,
    () => login,
    (now) => showSkills(now),
  );
  const upload = wireUpload(root, { orgs: () => orgs.orgs(), published: () => orgs.refresh() });

  const show = async () => {
    let user: User | undefined;
    let admin = false;
    try {
      ({ user, admin } = await api<{ user: User; admin: boolean }>('GET', '/api/me'));
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) part('signin-error').textContent = messageOf(error);
    }
    // Filled while hidden, then shown whole: lists arriving one at a time would push down what
    // is below them (the page moved by 0.8 of a phone's screen as they came in).
    try {
      if (!user) {
        const methods = await api<{ devLogin: boolean }>('GET', '/api/auth/methods').catch(() => ({ devLogin: false }));
        part('dev-login').hidden = !methods.devLogin;
      } else {
        login = user.login;
        fill(signedIn.querySelector('.dash-head')!, { login: user.login });
        // The reports are asked for only by an admin: anyone else would only be refused.
        await Promise.all([
          orgs.refresh(),
          keys.refresh(),
          purchases.refresh(),
          admin ? moderation.refresh() : undefined,
          appeals.refresh(admin),
          imports.refresh(),
        ]);
      }
    } finally {
      part('loading').hidden = true;
      root.removeAttribute('aria-busy');
      signedOut.hidden = Boolean(user);
      signedIn.hidden = !user;
    }
  };

  /** The skills of the owner the switcher shows: one's own, or an organisation's (private ones too, for its members). */
  const showSkills = async (now: Shown) => {
    shown = now;
    const { skills } = now;
    part('skills-heading').textContent = now.org ? `Skills of ${now.org.name}` : 'My skills';
    renderList(
      root,
      'skills',
      skills.map((s) => ({
        ...s,
        href: skillHref(s, builtFrom),
        price: priceLabel(s),
        priceClass: `badge ${s.paid ? 'paid' : 'free'}`,
        updated: utcDay(s.updatedAt),
        quarantined: s.quarantine !== undefined,
        private: s.visibility === 'private',
      })),
    );
    part('no-skills').hidden = skills.length > 0 || now.org !== undefined;
    part('no-org-skills').hidden = skills.length > 0 || now.org === undefined;
    fill(part('no-org-skills'), { org: now.org?.login ?? '' });
    part('skills-table').hidden = skills.length === 0;
    byId = new Map(skills.map((s) => [s.id, s]));
    keys.reach(orgs.orgs(), skills);
    upload.refresh();
    // The first skill's numbers are what an author most often comes for.
    if (skills[0]) {
      root.querySelector('[data-list=skills] tr')?.setAttribute('aria-current', 'true');
      await panel.open(skills[0], false, context());
    } else part('skill-panel').hidden = true;
  };

  /** What the skill panel may offer: the caller's role in the organisation shown (none: their own skill), and where a skill may move. */
  const context = () => ({ role: shown.org?.role, orgs: orgs.orgs(), changedOwner: () => orgs.refresh() });

  root.querySelector('[data-list=skills]')!.addEventListener('click', (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>('button[data-action=select-skill]');
    const skill = button && byId.get(button.value);
    if (!skill) return;
    for (const row of root.querySelectorAll('[data-list=skills] tr')) row.setAttribute('aria-current', String(row.contains(button)));
    void panel.open(skill, true, context());
  });

  part<HTMLFormElement>('dev-login').addEventListener('submit', async (event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const login = (form.elements.namedItem('login') as HTMLInputElement).value.trim();
    try {
      await api('POST', '/api/auth/dev-login', { login });
      part('signin-error').textContent = '';
      await show();
    } catch (error) {
      part('signin-error').textContent = messageOf(error);
    }
  });

  root.querySelector('[data-action=logout]')!.addEventListener('click', async () => {
    await api('POST', '/api/auth/logout').catch(() => undefined);
    location.reload();
  });

  await show();
}
