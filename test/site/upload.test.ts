/// <reference lib="dom" />
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { launchBrowser, type TestBrowser } from '../support/browser.ts';
import { auditPage, problemsOf, useWidth } from '../support/page-audit.ts';
import { ONE_BUILD, signInAs as signIntoDashboard, startSeededSite, until as untilReady } from '../support/site-browser.ts';
import type { ServerProcess } from '../support/server-process.ts';

/**
 * The dashboard's web upload in real headless Chromium, against the local runtime as `npm start`
 * runs it: real skills (two of Anthropic's, copied into test/fixtures/upload with their licence)
 * picked as a folder and dropped as a `.zip`, the check's preview before anything is stored,
 * publishing through the API, the next version from the same folder, on a phone and a desktop.
 */
vi.setConfig({ testTimeout: 900_000 });
const eventually = <T>(probe: () => T | Promise<T>) => expect.poll(probe, { timeout: 15_000, interval: 100 });

const fixtures = fileURLToPath(new URL('../fixtures/upload/', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'skillpress-upload-'));
let server: ServerProcess;
let base: string;
let browser: TestBrowser;
let page: Page;

beforeAll(async () => {
  ({ server } = await startSeededSite(
    { DATA_DIR: dataDir, SKILLPRESS_SITE_DEBOUNCE_MS: ONE_BUILD, SKILLPRESS_PUBLISH_LIMIT: '100', SKILLPRESS_VERSION_LIMIT: '100' },
    async () => undefined,
  ));
  base = server.baseUrl;
  await untilReady(server, async () => (await (await fetch(`${base}/dashboard/`)).text()).includes('data-role="upload"'), 840_000);
  browser = await launchBrowser();
  page = await browser.page();
}, 900_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const upload = (p: Page) => p.locator('[data-role=upload]');
const status = (p: Page) => p.locator('[data-role=upload-status]').textContent();

/** The skills `login` has, from the API: what the dashboard's publish made. */
async function skillsOf(login: string): Promise<{ slug: string; currentVersion: string; paid: boolean; price?: { amount: number; currency: string } }[]> {
  const signIn = await fetch(`${base}/api/auth/dev-login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ login }),
  });
  const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
  return ((await (await fetch(`${base}/api/me/skills`, { headers: { cookie } })).json()) as { skills: never[] }).skills;
}

/** Drops `bytes` on the upload's zone as a file named `name`, as a drag from the desktop would. */
async function dropFile(p: Page, name: string, bytes: Uint8Array): Promise<void> {
  const dataTransfer = await p.evaluateHandle(
    ({ name, bytes }) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array(bytes)], name, { type: 'application/zip' }));
      return transfer;
    },
    { name, bytes: [...bytes] },
  );
  await p.locator('[data-role=upload-drop]').dispatchEvent('drop', { dataTransfer });
}

describe('the web upload', () => {
  it('picks a real skill folder on a phone, previews the check, publishes it, then its next version from the same folder', async () => {
    await useWidth(page, 375);
    await signIntoDashboard(page, base, 'ada');
    await page.getByLabel('A folder').setInputFiles(join(fixtures, 'webapp-testing'));

    await eventually(() => status(page)).toContain('Checked: nothing is stored yet');
    const preview = upload(page).locator('[data-role=upload-preview]');
    await preview.getByRole('heading', { name: 'Web Application Testing' }).waitFor();
    expect(await preview.locator('[data-field=slug]').textContent()).toBe('webapp-testing');
    expect(await preview.locator('[data-field=makes]').textContent()).toBe('a new skill at 1.0.0');
    expect(await preview.locator('[data-field=fileCount]').textContent()).toBe('6 files');
    expect(await preview.locator('[data-list=upload-files] li [data-field=filename]').allTextContents()).toContain('scripts/with_server.py');
    expect(['clean', 'suspicious']).toContain(await preview.locator('[data-field=verdict]').textContent());
    // Nothing is stored by the check.
    expect(await skillsOf('ada')).toEqual([]);
    // The preview and its form hold on a phone.
    expect(problemsOf('dashboard, upload preview', await auditPage(page))).toEqual([]);

    await upload(page).getByRole('button', { name: 'Publish' }).click();
    await eventually(() => status(page)).toBe('Published webapp-testing@1.0.0.');
    expect((await skillsOf('ada')).map((s) => [s.slug, s.currentVersion])).toEqual([['webapp-testing', '1.0.0']]);
    await eventually(() => page.locator('[data-list=skills] [data-field=name]').allTextContents()).toContain('Web Application Testing');

    // The same folder again is the skill's next version, with the patch bumped.
    await page.getByLabel('A folder').setInputFiles(join(fixtures, 'webapp-testing'));
    await eventually(() => preview.locator('[data-field=makes]').textContent()).toBe('a new version of your skill webapp-testing (now 1.0.0)');
    await eventually(() => upload(page).getByLabel('Version').inputValue()).toBe('1.0.1');
    await upload(page).getByLabel('Changelog (optional)').fill('Uploaded again from the dashboard');
    await upload(page).getByRole('button', { name: 'Publish' }).click();
    await eventually(() => status(page)).toBe('Published webapp-testing@1.0.1.');
    expect((await skillsOf('ada')).map((s) => [s.slug, s.currentVersion])).toEqual([['webapp-testing', '1.0.1']]);
  });

  it('takes a dropped .zip of a real skill (its folder inside) as a paid skill with a price, and shows a broken one at its lines', async () => {
    await useWidth(page, 1280);
    await signIntoDashboard(page, base, 'grace');
    const folder = join(fixtures, 'brand-guidelines');
    const zip = zipSync({
      'brand-guidelines/SKILL.md': readFileSync(join(folder, 'SKILL.md')),
      'brand-guidelines/LICENSE.txt': readFileSync(join(folder, 'LICENSE.txt')),
    });
    await dropFile(page, 'brand-guidelines.zip', zip);

    await eventually(() => status(page)).toContain('Checked: nothing is stored yet');
    const preview = upload(page).locator('[data-role=upload-preview]');
    await preview.getByRole('heading', { name: 'Anthropic Brand Styling' }).waitFor();
    expect(await preview.locator('[data-field=fileCount]').textContent()).toBe('2 files');
    await upload(page).getByLabel('Paid').check();
    await upload(page).getByLabel('Price').fill('9.99');
    await eventually(() => status(page)).toContain('Checked: nothing is stored yet');
    await upload(page).getByRole('button', { name: 'Publish' }).click();
    await eventually(() => status(page)).toBe('Published brand-guidelines@1.0.0.');
    expect(await skillsOf('grace')).toEqual([
      expect.objectContaining({ slug: 'brand-guidelines', currentVersion: '1.0.0', paid: true, price: { amount: 999, currency: 'EUR' } }),
    ]);

    // A folder whose SKILL.md is wrong: every problem against its line, and nothing to publish.
    const broken = zipSync({ 'SKILL.md': new TextEncoder().encode('---\nname: Brand Guidelines\nlicense: 3\n---\n# Broken\n') });
    await upload(page)
      .getByLabel('A .zip')
      .setInputFiles({ name: 'broken.zip', mimeType: 'application/zip', buffer: Buffer.from(broken) });
    await eventually(() => status(page)).toContain('fix the problems below');
    expect(await preview.locator('[data-list=upload-issues] [data-field=location]').allTextContents()).toEqual(['SKILL.md:2', 'SKILL.md:1', 'SKILL.md:3']);
    await eventually(() => upload(page).getByRole('button', { name: 'Publish' }).isDisabled()).toBe(true);
  });
});
