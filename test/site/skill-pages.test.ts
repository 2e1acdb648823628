/// <reference lib="dom" />
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { launchBrowser, type TestBrowser } from '../support/browser.ts';
import { PAID_BODY, publishSkillPageFixture, type SkillPageFixture } from '../support/skill-page-fixture.ts';
import { createKey, publish, signIn } from '../support/site-fixture.ts';
import { hasBuiltPage, ONE_BUILD, startSeededSite, until as untilReady } from '../support/site-browser.ts';
import { getFrom, type ServerProcess, untilObservedAt } from '../support/server-process.ts';

/**
 * What a skill page shows besides the registry's facts, in real headless Chromium against the
 * runtime `npm start` runs: the rendered `SKILL.md` (built, and in the browser for a skill newer
 * than the build), hostile Markdown kept inert on both paths, public install counts, the popular
 * and recent orders, and author pages.
 */
vi.setConfig({ testTimeout: 90_000 });
const eventually = <T>(probe: () => T | Promise<T>) => expect.poll(probe, { timeout: 15_000, interval: 100 });

const dataDir = mkdtempSync(join(tmpdir(), 'skillpress-skill-pages-'));
let server: ServerProcess;
let base: string;
let fixture: SkillPageFixture;
let browser: TestBrowser;
let page: Page;

beforeAll(async () => {
  ({ server, seeded: fixture } = await startSeededSite(
    // The public counts refreshed every 2 s instead of 5 minutes: pages built once show counts made later.
    {
      DATA_DIR: dataDir,
      SKILLPRESS_SITE_DEBOUNCE_MS: ONE_BUILD,
      SKILLPRESS_PUBLISH_LIMIT: '100',
      SKILLPRESS_VERSION_LIMIT: '100',
      SKILLPRESS_INSTALLS_INTERVAL_SECONDS: '2',
    },
    async (seedBase) => {
      const seeded = await publishSkillPageFixture(seedBase);
      // Published after the installs: the author page lists it with the others.
      await publish(seedBase, seeded.key, { name: 'After The Count', description: 'Published once the installs are in.', category: 'writing' });
      return seeded;
    },
  ));
  base = server.baseUrl;
  // One build, made after every install was counted: the pages show the counts of all of them.
  await untilReady(server, () => hasBuiltPage(base, fixture.last.slug), 240_000);
  browser = await launchBrowser();
  page = await browser.page();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The About panel's facts as shown: term → description, hidden rows left out. */
const facts = (p: Page) =>
  p.locator('.facts').evaluate((dl) => {
    const shown = [...dl.children].filter((el) => !(el as HTMLElement).hidden);
    const pairs = shown.flatMap((el, i) =>
      el.tagName === 'DT' && shown[i + 1]?.tagName === 'DD' ? [[el.textContent!.trim(), shown[i + 1]!.textContent!.trim().replace(/\s+/g, ' ')]] : [],
    );
    return Object.fromEntries(pairs) as Record<string, string>;
  });

/** The front matter table as [key, value] rows. */
const frontMatter = (p: Page) => p.locator('[data-role=front-matter] tr').evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent)));

describe('SKILL.md on a skill page', () => {
  it('is rendered at build time: the front matter as a table, the body as Markdown, code highlighted', async () => {
    await page.goto(`${base}/skills/${fixture.rich.slug}/`);
    const html = await (await fetch(`${base}/skills/${fixture.rich.slug}/`)).text();
    expect(html).toContain('<span class="hljs-'); // in the HTML as served, not made by a script
    expect(await frontMatter(page)).toEqual([
      ['name', 'pdf-tables'],
      ['description', 'Extracts the tables of PDF files into CSV.'],
      ['license', 'Apache-2.0'],
      ['compatibility', 'Needs pdftotext (poppler-utils) on the PATH.'],
      ['metadata.author', 'bob'],
      ['metadata.version', '1.2'],
      ['metadata.repository', 'https://github.com/bob/pdf-tables'],
    ]);
    const body = page.locator('[data-role=skill-file-body]');
    expect(await body.locator('h3, h4').allTextContents()).toEqual(['PDF Tables', 'Usage']);
    expect(await body.locator('strong').textContent()).toBe('CSV');
    expect(await body.locator('td').allTextContents()).toEqual(['--pages', 'which pages to read']);
    const code = body.locator('pre > code.hljs.language-bash');
    expect(await code.textContent()).toBe('pdftotext -layout "$1" - | ./scripts/extract.sh > tables.csv # one file per table\n');
    // Highlighted for real: the comment is drawn in another colour than the command.
    const colours = await code.evaluate((el) => ({
      comment: getComputedStyle(el.querySelector('.hljs-comment')!).color,
      code: getComputedStyle(el).color,
    }));
    expect(colours.comment).not.toBe(colours.code);
    await page.screenshot({ path: 'test/artifacts/skill-page-rendered.png', fullPage: true });
  });

  it('shows the licence, what it works with and its source up front, and tells crawlers and share previews what it is', async () => {
    await page.goto(`${base}/skills/${fixture.rich.slug}/`);
    expect(await facts(page)).toMatchObject({
      License: 'Apache-2.0',
      'Works with': 'Needs pdftotext (poppler-utils) on the PATH.',
      Source: 'github.com/bob/pdf-tables',
    });
    const source = page.locator('.facts').getByRole('link', { name: 'github.com/bob/pdf-tables' });
    expect([await source.getAttribute('href'), await source.getAttribute('rel')]).toEqual(['https://github.com/bob/pdf-tables', 'nofollow noopener']);

    const head = await page.evaluate(() => ({
      canonical: document.querySelector('link[rel=canonical]')?.getAttribute('href'),
      og: Object.fromEntries(
        [...document.querySelectorAll('meta[property^="og:"], meta[name^="twitter:"]')].map((m) => [
          m.getAttribute('property') ?? m.getAttribute('name'),
          m.getAttribute('content'),
        ]),
      ),
      jsonLd: JSON.parse(document.querySelector('script[type="application/ld+json"]')!.textContent!),
    }));
    expect(new URL(head.canonical!).pathname).toBe(`/skills/${fixture.rich.slug}/`);
    expect(head.og).toMatchObject({
      'og:title': 'PDF Tables · Skillpress',
      'og:description': 'Extracts the tables of PDF files into CSV.',
      'og:url': head.canonical,
      'og:type': 'website',
      'twitter:card': 'summary',
    });
    const app = head.jsonLd['@graph'].find((item: { '@type': string }) => item['@type'] === 'SoftwareApplication');
    expect(app).toMatchObject({
      name: 'PDF Tables',
      softwareVersion: '1.0.0',
      license: 'Apache-2.0',
      sameAs: 'https://github.com/bob/pdf-tables',
      author: { '@type': 'Person', name: 'bob' },
      offers: { '@type': 'Offer', price: '0' },
      url: head.canonical,
    });
    // The home page says how to search the site; pages not to index name no canonical address.
    await page.goto(`${base}/`);
    const site = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent())!)['@graph'][0];
    expect(site.potentialAction.target).toMatch(/\/\?q=\{search_term_string\}$/);
    await page.goto(`${base}/dashboard/`);
    expect(await page.locator('link[rel=canonical]').count()).toBe(0);
  });

  it('is rendered the same way in the browser for a skill newer than the build, code left plain', async () => {
    const carol = await createKey(base, await signIn(base, 'carol'));
    const fresh = await publish(base, carol, {
      name: 'Fresh Tables',
      description: 'Published after the site build.',
      category: 'writing',
      files: [{ filename: 'SKILL.md', content: '---\nname: fresh-tables\ndescription: New.\nlicense: MIT\n---\n# Fresh Tables\n\n```bash\necho fresh\n```\n' }],
    });
    // Its bash block is run in the sandbox before its SKILL.md is delivered by default.
    expect(await untilObservedAt(base, carol, fresh.id)).toBe('cleared');
    await untilReady(server, async () => (await fetch(`${base}/api/registry/${fresh.slug}`)).status === 200, 15_000);
    await page.goto(`${base}/skills/_/?slug=${fresh.slug}`);
    await eventually(() => page.locator('[data-role=skill-file-body] h3').textContent()).toBe('Fresh Tables');
    expect(await frontMatter(page)).toEqual([
      ['name', 'fresh-tables'],
      ['description', 'New.'],
      ['license', 'MIT'],
    ]);
    expect(await page.locator('[data-role=skill-file-body] pre > code.language-bash').textContent()).toBe('echo fresh\n');
    // Its licence from the front matter, and its installs row from the public counts (none yet).
    expect(await facts(page)).toMatchObject({ License: 'MIT', Installs: 'None yet' });
    expect(await facts(page)).not.toHaveProperty('Source');
    await page.screenshot({ path: 'test/artifacts/skill-page-fallback.png' });

    // Its author is new too: the author fallback lists carol's skills from the live catalog, which
    // the rebuild writes after the registry document (under load, seconds after).
    await untilReady(
      server,
      async () => ((await (await fetch(`${base}/.well-known/skills.json`)).json()) as { skills: { slug: string }[] }).skills.some((s) => s.slug === fresh.slug),
      30_000,
    );
    await page.goto(`${base}/authors/_/?login=carol`);
    await eventually(() => page.locator('#author-skills .card h3').allTextContents()).toEqual(['Fresh Tables']);
    expect(await page.locator('h1').textContent()).toBe('carol');
  });

  it('keeps hostile Markdown inert, built and in the browser: no script runs or is even attempted, no handler or javascript: link is left', async () => {
    for (const path of [`/skills/${fixture.hostile.slug}/`, `/skills/_/?slug=${fixture.hostile.slug}`]) {
      // Built, the page starts no Worker; in the browser the Markdown is read in one, and only its
      // HTML, sanitised on the page, is shown.
      const workers: string[] = [];
      const started = (worker: { url(): string }) => workers.push(new URL(worker.url()).pathname);
      page.on('worker', started);
      await page.goto(base + path);
      const body = page.locator('[data-role=skill-file-body]');
      await eventually(() => body.locator('h3').textContent()).toBe('Markdown probe');
      page.off('worker', started);
      expect(workers, path).toEqual(path.includes('?slug=') ? [expect.stringMatching(/^\/_astro\/skill-markdown-worker-[\w-]+\.js$/)] : []);
      // Do what a visitor would: hover, click what were the script links.
      await body.getByText('hover here').hover();
      for (const link of await body.locator('a:not([href])').all()) await link.click();
      const found = await body.evaluate((el) => ({
        pwned: (window as unknown as { __pwned?: string }).__pwned ?? null,
        scripts: el.querySelectorAll('script, iframe').length,
        handlers: [...el.querySelectorAll('*')].flatMap((e) => [...e.attributes].map((a) => a.name)).filter((name) => name.startsWith('on')),
        links: [...el.querySelectorAll('a')].map((a) => [a.textContent, a.getAttribute('href'), a.getAttribute('rel')]),
        images: [...el.querySelectorAll('img')].map((img) => img.getAttribute('src')),
      }));
      expect(found, path).toEqual({
        pwned: null,
        scripts: 0,
        handlers: [],
        links: [
          ['a javascript link', null, null],
          ['raw link', null, null],
          ['documentation', 'https://example.com/docs', 'nofollow noopener'],
        ],
        // Images are never loaded: the one whose source was a script is gone, with nothing to show.
        images: [],
      });
    }
    expect(browser.dialogs).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
    // Not even attempted: the Content-Security-Policy had nothing to block.
    expect(browser.cspViolations).toEqual([]);
  });

  it('never shows the body of a paid skill, only that it is for buyers', async () => {
    const html = await (await fetch(`${base}/skills/${fixture.paid.slug}/`)).text();
    expect(html).not.toContain(PAID_BODY);
    await page.goto(`${base}/skills/${fixture.paid.slug}/`);
    expect(await page.locator('[data-role=skill-file]').getByText('is for its buyers').isVisible()).toBe(true);
    expect(await page.locator('[data-role=skill-file-body]').innerHTML()).toBe('');
    expect(await page.locator('[data-role=front-matter]').isVisible()).toBe(false);
  });
});

describe('install counts, orders and authors', () => {
  it('shows public install counts on cards and on the skill page', async () => {
    await page.goto(`${base}/`);
    const card = page.locator('#skill-list .card', { hasText: 'PDF Tables' });
    expect(await card.locator('.installs').textContent()).toBe('3 installs, 3 in 30 days');
    expect(await page.locator('#skill-list .card', { hasText: 'Secret Recipe' }).locator('.installs').textContent()).toBe('No installs yet');
    await page.goto(`${base}/skills/${fixture.rich.slug}/`);
    // Second of all skills that week (CSV Joiner has 5), as skills.sh ranks its pages.
    expect(await facts(page)).toMatchObject({ Installs: '3 (3 this week, #2 of all skills; 3 in 30 days)' });
  });

  it('shows counts refreshed after the build in place, without a new build', async () => {
    // Last Word was published after every install the build counted; two clients install it now.
    for (const from of ['127.0.8.1', '127.0.8.2']) expect(await getFrom(base, `/api/deliver/${fixture.last.id}?source=cli`, from)).toBe(200);
    await untilReady(
      server,
      async () => (await (await fetch(`${base}/.well-known/skills-installs.json`)).json()).skills[fixture.last.slug]?.total === 2,
      30_000,
    );
    const built = await (await fetch(`${base}/skills/${fixture.last.slug}/`)).text();
    expect(built).toContain('None yet'); // the page as built still says what the build knew
    await page.goto(`${base}/skills/${fixture.last.slug}/`);
    await eventually(() => facts(page)).toMatchObject({ Installs: '2 (2 this week, #3 of all skills; 2 in 30 days)' });
    await page.goto(`${base}/`);
    await eventually(() => page.locator('#skill-list .card', { hasText: 'Last Word' }).locator('.installs').textContent()).toBe('2 installs, 2 in 30 days');
  });

  it('orders the home page by popularity and by last update, and hides the popular list while searching', async () => {
    await page.goto(`${base}/`);
    expect(await page.locator('#popular-list .card h3').allTextContents()).toEqual(['CSV Joiner', 'PDF Tables', 'Markdown Probe']);
    await page.screenshot({ path: 'test/artifacts/home-popular.png' });
    // (Skills the set-up and earlier tests published last may come first.)
    const recent = (await page.locator('#skill-list .card h3').allTextContents()).filter((name) => !['Fresh Tables', 'After The Count'].includes(name));
    expect(recent.slice(0, 2)).toEqual(['Last Word', 'CSV Joiner']);
    await page.getByRole('searchbox', { name: 'Search skills' }).fill('csv');
    await eventually(() => page.locator('#skill-list .card h3').allTextContents()).toEqual(expect.arrayContaining(['CSV Joiner', 'PDF Tables']));
    expect(await page.locator('[data-role=popular]').isVisible()).toBe(false);
    // Search results carry the counts too, from the same public file.
    expect(await page.locator('#skill-list .card', { hasText: 'CSV Joiner' }).locator('.installs').textContent()).toBe('5 installs, 5 in 30 days');
  });

  it('offers each order of a category as its own static page', async () => {
    const names = async (path: string) => {
      await page.goto(base + path);
      return page.locator('.cards .card h3').allTextContents();
    };
    expect(await names('/categories/data/')).toEqual(['CSV Joiner', 'PDF Tables', 'Secret Recipe']);
    expect(await names('/categories/data/popular/')).toEqual(['CSV Joiner', 'PDF Tables', 'Secret Recipe']);
    expect(await page.locator('.orders [aria-current=page]').textContent()).toBe('Popular');
    expect(await names('/categories/data/recent/')).toEqual(['CSV Joiner', 'Secret Recipe', 'PDF Tables']);
    await page.getByRole('link', { name: 'Name' }).click();
    await page.waitForURL(`${base}/categories/data/`);
  });

  it('lists an author’s skills on their page, linked from the skill page and from cards', async () => {
    await page.goto(`${base}/skills/${fixture.rich.slug}/`);
    await page.locator('.facts').getByRole('link', { name: 'bob', exact: true }).click();
    await page.waitForURL(`${base}/authors/bob/`);
    expect(await page.locator('h1').textContent()).toBe('bob');
    expect(await page.locator('#author-skills .card h3').allTextContents()).toEqual(fixture.bobs);
    expect(await page.locator('[data-role=summary]').textContent()).toBe('2 skills, 8 installs in all');

    await page.goto(`${base}/categories/data/`);
    await page.locator('.card', { hasText: 'Secret Recipe' }).getByRole('link', { name: 'alice' }).click();
    await page.waitForURL(`${base}/authors/alice/`);
    expect(await page.locator('#author-skills .card h3').allTextContents()).toEqual(['After The Count', 'Last Word', 'Markdown Probe', 'Secret Recipe']);
    expect(browser.cspViolations).toEqual([]);
  });
});
