/// <reference lib="dom" />
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { launchBrowser, type TestBrowser } from '../support/browser.ts';
import type { ServerProcess } from '../support/server-process.ts';
import { hasBuiltPage, ONE_BUILD, startSeededSite, until as untilReady } from '../support/site-browser.ts';
import { createKey, publish, signIn, skillMd } from '../support/site-fixture.ts';

/**
 * The home page's search (docs/search.md) in real headless Chromium against the runtime as
 * `npm start` runs it: as-you-type results from the static index with the matched words marked,
 * filters and order, "did you mean", the keyboard, a search opened by URL without layout shift,
 * and the same page on a 320-pixel phone.
 */
vi.setConfig({ testTimeout: 90_000 });
const eventually = <T>(probe: () => T | Promise<T>) => expect.poll(probe, { timeout: 15_000, interval: 100 });

const dataDir = mkdtempSync(join(tmpdir(), 'skillpress-search-site-'));
let server: ServerProcess;
let base: string;
let browser: TestBrowser;
let page: Page;

const SKILLS: [name: string, description: string, category: string, paid?: boolean][] = [
  ['Sheet Tools', 'Create and edit .xlsx spreadsheets with formulas and charts.', 'documents'],
  ['Deck Maker', 'Build slide decks and presentations from an outline.', 'documents'],
  ['PDF Kit', 'Fill PDF forms, and merge or split PDF files.', 'documents'],
  ['Ledger Sheets', 'Keep accounts in spreadsheets, for bookkeepers.', 'finance', true],
  ['Commit Notes', 'Turn git commits into release notes.', 'dev-tools'],
];

beforeAll(async () => {
  ({ server } = await startSeededSite({ DATA_DIR: dataDir, SKILLPRESS_SITE_DEBOUNCE_MS: ONE_BUILD, SKILLPRESS_PUBLISH_LIMIT: '100' }, async (seedBase) => {
    const key = await createKey(seedBase, await signIn(seedBase, 'alice'));
    for (const [name, description, category, paid] of SKILLS) {
      await publish(seedBase, key, {
        name,
        description,
        category,
        paid: paid ?? false,
        files: [{ filename: 'SKILL.md', content: skillMd(name, description) }],
      });
    }
  }));
  base = server.baseUrl;
  await untilReady(server, () => hasBuiltPage(base, 'commit-notes'), 240_000);
  browser = await launchBrowser();
  page = await browser.page();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const box = () => page.getByRole('searchbox', { name: 'Search skills' });
const titles = () => page.locator('#skill-list .card h3').allTextContents();

/** The page's cumulative layout shift (Chromium's layout-shift entries, not those right after input). */
function layoutShift(p: Page): Promise<number> {
  return p.evaluate(
    () =>
      new Promise<number>((resolve) => {
        let total = 0;
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[])
            if (!entry.hadRecentInput) total += entry.value;
        }).observe({ type: 'layout-shift', buffered: true });
        setTimeout(() => resolve(total), 500);
      }),
  );
}

describe('the search box', () => {
  it('finds skills as you type, by synonyms and word forms, with the matched words marked', async () => {
    await page.goto(`${base}/`);
    await box().fill('exce');
    await box().fill('excel');
    // The .xlsx skill first; the one that keeps accounts in spreadsheets matches too.
    await eventually(titles).toEqual(['Sheet Tools', 'Ledger Sheets']);
    await box().fill('merging pdfs');
    await eventually(titles).toEqual(['PDF Kit']);
    expect(await page.locator('#skill-list .card mark').allTextContents()).toEqual(expect.arrayContaining(['PDF', 'merge']));
    expect(new URL(page.url()).searchParams.get('q')).toBe('merging pdfs');
    await eventually(() => page.locator('#search-status').textContent()).toBe('1 skill matches.');
  });

  it('says when nothing matches, and offers the corrected query', async () => {
    await page.goto(`${base}/`);
    await box().fill('bake sourdough bread');
    await eventually(() => page.locator('#search-status').textContent()).toBe('No skill matches “bake sourdough bread”.');
    expect(await titles()).toEqual([]);
    await box().fill('spredsheets ');
    const suggestion = page.locator('#search-suggestion a');
    await eventually(() => suggestion.textContent()).toBe('spreadsheets');
    await page.screenshot({ path: 'test/artifacts/site-search.png' });
    await suggestion.click();
    await eventually(() => box().inputValue()).toBe('spreadsheets');
    await eventually(titles).toEqual(expect.arrayContaining(['Sheet Tools', 'Ledger Sheets']));
  });

  it('filters by category and price and orders by date, in the URL too', async () => {
    await page.goto(`${base}/`);
    await box().fill('spreadsheets');
    await eventually(titles).toEqual(expect.arrayContaining(['Sheet Tools', 'Ledger Sheets']));
    await page.getByLabel('Price').selectOption('paid');
    await eventually(titles).toEqual(['Ledger Sheets']);
    await page.getByLabel('Price').selectOption('');
    await page.getByLabel('Category').selectOption('documents');
    await eventually(titles).toEqual(['Sheet Tools']);
    expect(new URL(page.url()).searchParams.get('category')).toBe('documents');
    await box().fill('');
    await page.getByLabel('Order').selectOption('newest');
    await eventually(titles).toEqual(['PDF Kit', 'Deck Maker', 'Sheet Tools']);
  });

  it('is driven by the keyboard: arrows through the results, Enter opens one, Escape clears', async () => {
    await page.goto(`${base}/`);
    await box().focus();
    await page.keyboard.type('slides');
    await eventually(titles).toEqual(['Deck Maker']);
    await box().fill('spreadsheets');
    await eventually(titles).toEqual(expect.arrayContaining(['Sheet Tools', 'Ledger Sheets']));
    // Typing paused: the texts are searched too, and the list says so.
    await eventually(() => page.locator('#skill-list').getAttribute('data-results')).toBe('whole');
    const [first, second] = await titles();
    await page.keyboard.press('ArrowDown');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(first);
    await page.keyboard.press('ArrowDown');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(second);
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('q');
    await page.keyboard.press('Escape');
    expect(await box().inputValue()).toBe('');
    await eventually(() => page.locator('#list-heading').textContent()).toBe('Recently updated');
    await page.keyboard.type('commit notes');
    await eventually(titles).toEqual(['Commit Notes']);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${base}/skills/commit-notes/`);
  });

  it('opens a search from its URL without moving anything on the page', async () => {
    await page.goto(`${base}/?q=spreadsheets`);
    await eventually(titles).toEqual(expect.arrayContaining(['Sheet Tools', 'Ledger Sheets']));
    expect(await layoutShift(page)).toBeLessThan(0.1);
    await page.goto(`${base}/?q=spredsheets`);
    await eventually(() => page.locator('#search-suggestion a').textContent()).toBe('spreadsheets');
    expect(await layoutShift(page)).toBeLessThan(0.1);
    expect(browser.pageErrors).toEqual([]);
  });

  it('fits a 320-pixel phone: no sideways scrolling, controls big enough to tap', async () => {
    await page.setViewportSize({ width: 320, height: 640 });
    try {
      await page.goto(`${base}/?q=pdf`);
      await eventually(titles).toEqual(['PDF Kit']);
      // The search's own parts; the rest of the page is the site's.
      for (const part of ['form[data-search]', '#search-status', '#skill-list']) {
        const sides = await page.locator(part).evaluate((el) => ({ right: el.getBoundingClientRect().right, scroll: el.scrollWidth, width: el.clientWidth }));
        expect(sides.right, part).toBeLessThanOrEqual(320);
        expect(sides.scroll, part).toBeLessThanOrEqual(sides.width);
      }
      for (const control of await page.locator('form[data-search] select, form[data-search] input').all()) {
        const box = await control.boundingBox();
        expect(box!.height).toBeGreaterThanOrEqual(44);
        expect(box!.x + box!.width).toBeLessThanOrEqual(320);
      }
      await page.screenshot({ path: 'test/artifacts/site-search-320.png', fullPage: true });
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });
});
