import type { QuarantinedDocument, RegistryDocument } from '#core/registry-document';
import { installsOf } from '#core/public-installs';
import { SKILL_FILE } from '#core/filename';
import { skillSlugOfPath } from '#core/static-paths';
import { installsTotal, weeklyInstallsLabel } from '../lib/format.ts';
import { forAgent } from '../lib/install-agents.ts';
import { type SkillFacts, skillFacts } from '../lib/skill-facts.ts';
import { weeklyRanks } from '../lib/skill-order.ts';
import type { RenderedSkillFile } from '../lib/skill-file-rendering.ts';
import type { SkillMarkdown } from '../lib/skill-markdown.ts';
import { type SkillViewModel, skillViewModel, versionViewModel } from '../lib/skill-view-model.ts';
import { api, ApiError, messageOf } from './dashboard/api.ts';
import { fill, renderList } from './fill.ts';
import { publicInstalls } from './public-installs.ts';
import { fetchRegistry, fetchVersions, getJson } from './registry.ts';
import { wireReportForm } from './report-form.ts';

/**
 * A skill page in the browser. A built page is complete without this script; the script
 * refreshes it when the registry JSON is newer than the build, opens files in the viewer, and
 * lists every version on request. On the fallback page (a skill newer than the site build) it
 * renders the whole skill from the registry JSON, and its `SKILL.md` from the bundle.
 */
const article = document.querySelector<HTMLElement>('[data-skill-page]');
if (article) void start(article);

interface Bundle {
  files: { filename: string; content: string; encoding?: 'base64' }[];
}

/** Bundles are immutable: each is fetched once per page, for the viewer and the SKILL.md panel alike. */
const bundles = new Map<string, Promise<Bundle | undefined>>();
function bundleAt(path: string): Promise<Bundle | undefined> {
  if (!bundles.has(path))
    bundles.set(
      path,
      getJson<Bundle>(path).catch(() => undefined),
    );
  return bundles.get(path)!;
}

async function start(article: HTMLElement): Promise<void> {
  const built = article.dataset.slug;
  const slug = built ?? slugFromLocation();
  let model: SkillViewModel | undefined;
  wireViewer(article, () => model);
  wireAllVersions(article);
  wireReportForm(article);
  article.querySelector('[data-role=install-agent]')?.addEventListener('change', () => applyAgent(article));
  if (!slug) return fail(article, 'This address names no skill.');

  let doc: RegistryDocument | QuarantinedDocument | undefined;
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
  // A built page goes stale once its skill is quarantined: the registry's word wins.
  if ('status' in doc) return quarantined(article, doc);
  model = skillViewModel(doc, location.origin);
  // The install commands name this origin, whichever the build knew.
  fill(article.querySelector('[data-role=install]') ?? article, { install: model.install, installSkills: model.installSkills, suspicious: model.suspicious });
  applyAgent(article);
  if (!built || doc.updatedAt !== article.dataset.updated) {
    // The built SKILL.md (highlighted) stays unless the current version, so the file, changed.
    const builtVersion = built ? article.querySelector('[data-field=currentVersion]')?.textContent : undefined;
    render(article, model);
    applyAgent(article);
    const skillFile = model.currentVersion !== builtVersion ? showSkillFile(article, model) : undefined;
    // The fallback shows the skill once its SKILL.md and its installs are in too, so neither pushes anything down.
    if (!built) await Promise.all([skillFile?.catch(() => undefined), showInstalls(article, model.slug)]);
    article.removeAttribute('aria-busy');
  }
  if (model.forSale) await offerToBuy(article, model);
}

/**
 * The Buy button, for a signed-in visitor: it opens a Stripe Checkout for the skill and sends the
 * browser there; Stripe sends it back to /purchase/. A signed-out visitor is asked to sign in.
 */
async function offerToBuy(article: HTMLElement, model: SkillViewModel): Promise<void> {
  const button = article.querySelector<HTMLButtonElement>('[data-action=buy]')!;
  const status = article.querySelector<HTMLElement>('[data-role=buy-status]')!;
  const signedIn = await api('GET', '/api/me').then(
    () => true,
    () => false,
  );
  button.hidden = !signedIn;
  article.querySelector<HTMLElement>('[data-role=buy-sign-in]')!.hidden = signedIn;
  button.addEventListener('click', async () => {
    button.disabled = true;
    status.textContent = 'Opening the checkout…';
    try {
      const { url } = await api<{ url: string }>('POST', `/api/skills/${encodeURIComponent(model.id)}/checkout`);
      location.assign(url);
    } catch (error) {
      status.textContent = error instanceof ApiError && error.code === 'already_entitled' ? error.message : `Could not open the checkout: ${messageOf(error)}`;
      button.disabled = false;
    }
  });
}

function render(article: HTMLElement, model: SkillViewModel): void {
  fill(article, model);
  renderList(article, 'versions', model.versions);
  renderList(article, 'files', model.files, model.paid ? 'files-paid' : 'files');
  renderList(article, 'dependencies', model.dependencies);
  renderList(article, 'findings', model.findings);
  renderList(article, 'effects', model.effects);
  article.dataset.slug = model.slug;
  article.dataset.skillId = model.id;
  article.dataset.updated = model.updatedAt;
  document.title = `${model.name} · Skillpress`;
}

/**
 * The `SKILL.md` panel, rendered here as the build renders it (lib/skill-file-rendering.ts: the
 * Markdown read in a Worker, then sanitised with this page's DOM; code blocks are not highlighted
 * here). Both halves are loaded only by pages that render in the browser.
 */
async function showSkillFile(article: HTMLElement, model: SkillViewModel): Promise<void> {
  const panel = article.querySelector<HTMLElement>('[data-role=skill-file]')!;
  const body = panel.querySelector<HTMLElement>('[data-role=skill-file-body]')!;
  const bundle = model.paid || !model.bundle ? undefined : await bundleAt(model.bundle);
  const rendered = bundle ? await renderSkillFile(bundle.files) : undefined;
  renderList(panel, 'frontMatter', rendered?.frontMatter ?? []);
  panel.querySelector<HTMLElement>('[data-role=front-matter]')!.hidden = !rendered?.frontMatter.length;
  // The one place the site sets HTML: the sanitiser's output, never anything else.
  body.innerHTML = rendered?.html ?? '';
  panel.querySelector<HTMLElement>('[data-role=skill-file-truncated]')!.hidden = !rendered?.truncated;
  panel.hidden = !(rendered || model.paid);
  showFacts(article, skillFacts(rendered?.frontMatter ?? []));
}

/** The licence, compatibility and source rows, from the front matter just rendered. */
function showFacts(article: HTMLElement, facts: SkillFacts): void {
  for (const row of article.querySelectorAll<HTMLElement>('[data-fact-row]')) row.hidden = !facts[row.dataset.factRow as keyof SkillFacts];
  for (const el of article.querySelectorAll<HTMLElement>('[data-fact]')) {
    const key = el.dataset.fact as keyof SkillFacts;
    el.textContent = key === 'source' ? facts.sourceLabel : facts[key];
    if (key === 'source') setHref(el, facts.source);
  }
}

/**
 * The installs row of a skill newer than the build, from the public counts (the file the build
 * reads; a skill it does not list has none yet). Without the file the row says so with a dash.
 */
async function showInstalls(article: HTMLElement, slug: string): Promise<void> {
  const doc = await publicInstalls();
  if (!doc) return;
  const counts = installsOf(doc, slug);
  const part = (name: string) => article.querySelector<HTMLElement>(`[data-installs="${name}"]`)!;
  part('total').textContent = installsTotal(counts);
  part('recent').textContent = weeklyInstallsLabel(counts, weeklyRanks(doc).get(slug));
}

/** Both install commands for the agent chosen above them (none: where most agents read). */
function applyAgent(article: HTMLElement): void {
  const agent = article.querySelector<HTMLSelectElement>('[data-role=install-agent]')?.value ?? '';
  for (const code of article.querySelectorAll<HTMLElement>('#install-command, #install-skills-command'))
    code.textContent = forAgent(code.textContent ?? '', agent);
}

function setHref(el: HTMLElement, href: string): void {
  if (href) el.setAttribute('href', href);
  else el.removeAttribute('href');
}

/** The `SKILL.md` among a bundle's files, rendered (undefined without a text one). */
async function renderSkillFile(files: Bundle['files']): Promise<RenderedSkillFile | undefined> {
  const file = files.find((f) => f.filename === SKILL_FILE);
  if (!file || file.encoding === 'base64') return undefined;
  sanitiser ??= import('../lib/skill-html-sanitiser.ts').then(({ createSkillHtmlSanitiser }) => createSkillHtmlSanitiser(window));
  const [sanitise, read] = await Promise.all([sanitiser, readInWorker(file.content).catch(() => readOnPage(file.content))]);
  // The Worker's answer is only ever text: rows shown with textContent, HTML through the sanitiser.
  return {
    frontMatter: read.frontMatter.map(({ key, value }) => ({ key: String(key), value: String(value) })),
    html: sanitise(String(read.html)),
    truncated: read.truncated === true,
  };
}

let sanitiser: Promise<(html: string) => string> | undefined;

/**
 * Reads a `SKILL.md` (its front matter, its body as unsanitised HTML) in a Worker of its own:
 * marked and the YAML parser are most of the renderer's script (about 150 KB minified) and time,
 * which the page's main thread then never parses nor runs. Only DOMPurify, which needs the page's
 * DOM, runs on the page. Rejects when the Worker cannot start or fails.
 */
function readInWorker(source: string): Promise<SkillMarkdown> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./skill-markdown-worker.ts', import.meta.url), { type: 'module' });
    const done = () => worker.terminate();
    worker.addEventListener('message', (event: MessageEvent<SkillMarkdown>) => {
      done();
      resolve(event.data);
    });
    for (const type of ['error', 'messageerror'])
      worker.addEventListener(type, () => {
        done();
        reject(new Error(`the SKILL.md worker failed (${type})`));
      });
    worker.postMessage(source);
  });
}

/** The same reading on the page, for a browser that would not start the Worker. */
async function readOnPage(source: string): Promise<SkillMarkdown> {
  const { createSkillMarkdownRenderer } = await import('../lib/skill-markdown.ts');
  return createSkillMarkdownRenderer()(source);
}

function fail(article: HTMLElement, message: string): void {
  const error = article.querySelector<HTMLElement>('[data-role=error]')!;
  error.textContent = message;
  error.hidden = false;
  article.querySelector('h1')!.textContent = 'Skill not found';
  // The fallback's empty skeleton goes (a built page never fails: it keeps what it has).
  for (const el of article.querySelectorAll<HTMLElement>('.skill-layout, .lede, .crumbs')) el.hidden = true;
  article.removeAttribute('aria-busy');
  document.title = 'Skill not found · Skillpress';
}

/** Everything about the skill goes: a quarantined skill's page says only that it is. */
function quarantined(article: HTMLElement, doc: QuarantinedDocument): void {
  fail(article, `${doc.name} by ${doc.author} is quarantined: it was taken out of the registry after reports or a security scan, and cannot be installed.`);
  article.querySelector('h1')!.textContent = doc.name;
  for (const el of article.querySelectorAll<HTMLElement>('.skill-layout, .lede, .crumbs')) el.hidden = true;
  document.title = `${doc.name} (quarantined) · Skillpress`;
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
    const file = (await bundleAt(bundlePath))?.files.find((f) => f.filename === filename);
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
