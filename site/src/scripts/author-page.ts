import { installsOf } from '#core/public-installs';
import { authorLoginOfPath } from '#core/static-paths';
import { authorSummary } from '../lib/format.ts';
import { sortSkills } from '../lib/skill-order.ts';
import { row } from './fill.ts';
import { cardModel, fetchLiveCatalog } from './live-catalog.ts';

/**
 * An author page in the browser. A built page is complete without this script; the script
 * lists the author's skills again from the live catalog when they changed since the build (a new
 * skill, a new version). On the fallback page (an author newer than the build) it makes the whole
 * list.
 */
const root = document.querySelector<HTMLElement>('[data-author-page]');
if (root) void start(root);

async function start(root: HTMLElement): Promise<void> {
  const built = root.dataset.login;
  const login = built ?? loginFromLocation();
  if (!login) return fail(root, 'This address names no author.');
  const builtFrom = root.dataset.builtFrom ?? '';
  let catalog: Awaited<ReturnType<typeof fetchLiveCatalog>>;
  try {
    catalog = await fetchLiveCatalog();
  } catch {
    if (!built) fail(root, 'The author’s skills could not be loaded. Check your connection and reload the page.');
    return;
  }
  const skills = sortSkills(
    catalog.skills.filter((s) => s.author === login),
    'name',
  );
  if (built && skills.length === Number(root.dataset.count) && skills.every((s) => s.updatedAt <= builtFrom)) return;
  if (skills.length === 0) return fail(root, `${login} has no skills in the catalog.`);
  const { installs } = catalog;
  root.querySelector('[data-role=login]')!.textContent = login;
  root.querySelector<HTMLElement>('[data-role=organisation]')!.hidden = !skills.some((s) => s.owner?.type === 'org');
  root.querySelector('[data-role=summary]')!.textContent = authorSummary(
    skills.length,
    installs ? skills.reduce((n, s) => n + installsOf(installs, s.slug).total, 0) : undefined,
  );
  const template = root.querySelector<HTMLTemplateElement>('#skill-card')!;
  root.querySelector('#author-skills')!.replaceChildren(...skills.map((skill) => row(template, cardModel(skill, builtFrom, installs))));
  root.removeAttribute('aria-busy');
  document.title = `${login} · Skillpress`;
}

function fail(root: HTMLElement, message: string): void {
  const error = root.querySelector<HTMLElement>('[data-role=error]')!;
  error.textContent = message;
  error.hidden = false;
  root.querySelector('[data-role=login]')!.textContent = 'Author not found';
  root.removeAttribute('aria-busy');
}

/** `/authors/_/?login=<login>`, or the path itself when the CDN served this page in place of a missing one. */
function loginFromLocation(): string | undefined {
  const param = new URLSearchParams(location.search).get('login');
  if (param && /^[A-Za-z0-9-]{1,39}$/.test(param)) return param;
  const fromPath = authorLoginOfPath(location.pathname);
  return fromPath === '_' ? undefined : fromPath;
}
