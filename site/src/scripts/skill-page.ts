import type { RegistryDocument } from '#core/registry-document';
import { skillSlugOfPath } from '#core/static-paths';
import { type SkillViewModel, skillViewModel, versionViewModel } from '../lib/skill-view-model.ts';
import { fill, renderList } from './fill.ts';
import { fetchRegistry, fetchVersions, getJson } from './registry.ts';

/**
 * A skill page in the browser. A built page is complete without this script; the script
 * refreshes it when the registry JSON is newer than the build, opens files in the viewer, and
 * lists every version on request. On the fallback page (a skill newer than the site build) it
 * renders the whole skill from the registry JSON.
 */
const article = document.querySelector<HTMLElement>('[data-skill-page]');
if (article) void start(article);

interface Bundle {
  files: { filename: string; content: string; encoding?: 'base64' }[];
}

async function start(article: HTMLElement): Promise<void> {
  const built = article.dataset.slug;
  const slug = built ?? slugFromLocation();
  let model: SkillViewModel | undefined;
  wireViewer(article, () => model);
  wireAllVersions(article);
  if (!slug) return fail(article, 'This address names no skill.');

  let doc: RegistryDocument | undefined;
  try {
    doc = await fetchRegistry(slug);
  } catch {
    if (!built) fail(article, 'The skill could not be loaded. Check your connection and reload the page.');
    return;
  }
  if (!doc) {
    if (!built) fail(article, `There is no skill “${slug}”.`);
    return;
  }
  model = skillViewModel(doc);
  if (built && doc.updatedAt === article.dataset.updated) return;
  render(article, model);
}

function render(article: HTMLElement, model: SkillViewModel): void {
  fill(article, model);
  renderList(article, 'versions', model.versions);
  renderList(article, 'files', model.files, model.paid ? 'files-paid' : 'files');
  renderList(article, 'dependencies', model.dependencies);
  article.dataset.slug = model.slug;
  article.dataset.updated = model.updatedAt;
  article.removeAttribute('aria-busy');
  document.title = `${model.name} · Skillpress`;
}

function fail(article: HTMLElement, message: string): void {
  const error = article.querySelector<HTMLElement>('[data-role=error]')!;
  error.textContent = message;
  error.hidden = false;
  article.querySelector('h1')!.textContent = 'Skill not found';
  article.removeAttribute('aria-busy');
  document.title = 'Skill not found · Skillpress';
}

/** `/skills/_/?slug=<slug>`, or the path itself when the CDN served this page in place of a missing one. */
function slugFromLocation(): string | undefined {
  const param = new URLSearchParams(location.search).get('slug');
  if (param && /^[a-z0-9-]{1,64}$/.test(param)) return param;
  const fromPath = skillSlugOfPath(location.pathname);
  return fromPath === '_' ? undefined : fromPath;
}

function wireViewer(article: HTMLElement, current: () => SkillViewModel | undefined): void {
  const viewer = article.querySelector<HTMLElement>('[data-role=viewer]')!;
  const name = viewer.querySelector<HTMLElement>('[data-role=viewer-name]')!;
  const content = viewer.querySelector<HTMLElement>('[data-role=viewer-content]')!;
  const bundles = new Map<string, Promise<Bundle | undefined>>();
  article.querySelector('[data-list=files]')!.addEventListener('click', async (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>('button');
    if (!button) return;
    const bundlePath = current()?.bundle ?? article.querySelector<HTMLAnchorElement>('a[data-href=bundle]')?.getAttribute('href');
    if (!bundlePath) return;
    const filename = button.textContent?.trim() ?? '';
    for (const other of article.querySelectorAll('[data-list=files] button')) other.setAttribute('aria-pressed', String(other === button));
    viewer.hidden = false;
    name.textContent = filename;
    content.textContent = 'Loading…';
    if (!bundles.has(bundlePath))
      bundles.set(
        bundlePath,
        getJson<Bundle>(bundlePath).catch(() => undefined),
      );
    const file = (await bundles.get(bundlePath))?.files.find((f) => f.filename === filename);
    if (!file) content.textContent = 'This file could not be loaded.';
    else if (file.encoding === 'base64') content.textContent = `Binary file (${Math.floor((file.content.length * 3) / 4)} bytes); install the skill to get it.`;
    else content.textContent = file.content;
  });
}

function wireAllVersions(article: HTMLElement): void {
  const button = article.querySelector<HTMLButtonElement>('[data-action=all-versions]');
  button?.addEventListener('click', async () => {
    const slug = article.dataset.slug;
    if (!slug) return;
    button.disabled = true;
    try {
      const doc = await fetchVersions(slug);
      if (!doc) throw new Error('no versions document');
      const items = doc.versions.map((v) => versionViewModel(v, doc.currentVersion));
      renderList(article, 'versions', items);
      button.parentElement!.hidden = true;
    } catch {
      button.disabled = false;
      button.textContent = 'Could not load the versions; try again';
    }
  });
}
