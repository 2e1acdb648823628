/// <reference lib="dom" />
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { slugify } from '#core/slug';
import { launchBrowser, type TestBrowser } from '../support/browser.ts';
import { accountMadeDaysAgoIn, hasBuiltPage, ONE_BUILD, signInAs as signIntoDashboard, startSeededSite, until as untilReady } from '../support/site-browser.ts';
import { CLEAN_SKILL_MD, MALICIOUS_SKILL_MD, SUSPICIOUS_EXCERPT, SUSPICIOUS_SKILL_MD } from '../support/scan-samples.ts';
import { call, type ServerProcess, untilObservedAt } from '../support/server-process.ts';
import { renamedSkillMd } from '../support/skill-md.ts';
import { createKey, publish, type PublishedSkill, signIn } from '../support/site-fixture.ts';

/**
 * The scan and the reports on the site, in real headless Chromium against the local runtime as
 * `npm start` runs it (site built by the runtime): the findings panel of a skill page, built and
 * in the browser, the report button, the author's view of reports and quarantine, and the admins'
 * page with its quarantine and release buttons.
 */
vi.setConfig({ testTimeout: 90_000 });
const eventually = <T>(probe: () => T | Promise<T>) => expect.poll(probe, { timeout: 15_000, interval: 100 });

const dataDir = mkdtempSync(join(tmpdir(), 'skillpress-moderation-'));
let server: ServerProcess;
let base: string;
let browser: TestBrowser;
let page: Page;
let skills: Record<'flagged' | 'paid' | 'tidy' | 'target', PublishedSkill>;

/** The files of the skill `name` whose SKILL.md is the sample `text`, named by that skill's slug. */
const files = (name: string, text: string) => [{ filename: 'SKILL.md', content: renamedSkillMd(text, slugify(name)) }];

beforeAll(async () => {
  const env = {
    DATA_DIR: dataDir,
    SKILLPRESS_SITE_DEBOUNCE_MS: ONE_BUILD,
    SKILLPRESS_PUBLISH_LIMIT: '100',
    SKILLPRESS_VERSION_LIMIT: '100',
    SKILLPRESS_ADMINS: 'root',
  };
  // An established publisher: her account is older than a week (docs/api.md §7.15).
  await accountMadeDaysAgoIn(dataDir, 'alice', 8);
  ({ server, seeded: skills } = await startSeededSite(env, async (seedBase) => {
    const key = await createKey(seedBase, await signIn(seedBase, 'alice'));
    const skill = (name: string, text: string, paid = false) =>
      publish(seedBase, key, { name, description: `${name}, for the scan tests`, category: 'testing', paid, files: files(name, text) });
    // Clean skills first: alice's flagged ones are then published flagged, not held for review.
    const tidy = await skill('Tidy Notes', CLEAN_SKILL_MD);
    const target = await skill('Free Wallet Helper', CLEAN_SKILL_MD);
    const flagged = await skill('Quick Installer', SUSPICIOUS_SKILL_MD);
    const paid = await skill('Premium Installer', SUSPICIOUS_SKILL_MD, true);
    // Their shell blocks are run in the sandbox before they are the skills' default and have pages.
    for (const run of [flagged, paid]) expect(await untilObservedAt(seedBase, key, run.id)).toBe('cleared');
    return { flagged, paid, tidy, target };
  }));
  base = server.baseUrl;
  await until(async () => (await Promise.all(Object.values(skills).map((s) => hasBuiltPage(base, s.slug)))).every(Boolean), 240_000);
  browser = await launchBrowser();
  page = await browser.page();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function fetchText(path: string): Promise<string> {
  return (await fetch(base + path)).text();
}

const until = (ready: () => Promise<boolean>, timeoutMs: number) => untilReady(server, ready, timeoutMs);
const signInAs = (login: string) => signIntoDashboard(page, base, login);

const findingRows = (p: Page) =>
  p
    .locator('[data-list=findings] > li')
    .evaluateAll((rows) =>
      rows.map((row) => ['severity', 'rule', 'location', 'message'].map((field) => row.querySelector(`[data-field=${field}]`)?.textContent ?? '')),
    );

describe('the findings panel', () => {
  it('shows the verdict and each finding (rule, file, line, reason) on a built page, without JavaScript too', async () => {
    const html = await fetchText(`/skills/${skills.flagged.slug}/`);
    expect(html).toContain('pipe-to-shell');
    expect(html).toContain('SKILL.md:8');

    await page.goto(`${base}/skills/${skills.flagged.slug}/`);
    const panel = page.getByRole('region', { name: /Security scan/ });
    expect(await panel.locator('[data-field=scanVerdict]').textContent()).toBe('suspicious');
    expect(await panel.locator('[data-field=scanSummary]').textContent()).toMatch(/^Flagged as suspicious \(1 finding\)/);
    expect(await page.getByText('This version is flagged as suspicious').isVisible()).toBe(true);
    const rows = await findingRows(page);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.slice(0, 3)).toEqual(['high', 'pipe-to-shell', 'SKILL.md:8']);
    expect(rows[0]![3]).toContain(SUSPICIOUS_EXCERPT);
    await page.screenshot({ path: 'test/artifacts/site-findings.png', fullPage: true });
  });

  it('quotes no content of a paid skill, and says a clean skill is clean', async () => {
    await page.goto(`${base}/skills/${skills.paid.slug}/`);
    const rows = await findingRows(page);
    expect(rows.map((r) => r.slice(0, 3))).toEqual([['high', 'pipe-to-shell', 'SKILL.md:8']]);
    expect(rows[0]![3]).not.toContain('curl');
    expect(await page.locator('article').textContent()).not.toContain('get.example.com');

    await page.goto(`${base}/skills/${skills.tidy.slug}/`);
    expect(await page.locator('[data-field=scanVerdict]').textContent()).toBe('clean');
    expect(await page.locator('[data-field=scanSummary]').textContent()).toBe('No risky patterns found.');
    expect(await page.locator('[data-list=findings]').isVisible()).toBe(false);
    expect(await page.getByText('This version is flagged as suspicious').isVisible()).toBe(false);
  });

  it('renders the findings in the browser for a skill newer than the site build', async () => {
    const key = await createKey(base, await signIn(base, 'alice'), 'fresh');
    const fresh = await publish(base, key, {
      name: 'Fresh Installer',
      description: 'after the build',
      category: 'testing',
      files: files('Fresh Installer', SUSPICIOUS_SKILL_MD),
    });
    // Its shell block is run in the sandbox before it is its skill's default.
    expect(await untilObservedAt(base, key, fresh.id)).toBe('cleared');
    await until(async () => (await call(base, `/api/registry/${fresh.slug}`)).status === 200, 10_000);
    await page.goto(`${base}/skills/_/?slug=${fresh.slug}`);
    await eventually(() => page.locator('h1').textContent()).toBe('Fresh Installer');
    expect(await page.locator('[data-field=scanVerdict]').textContent()).toBe('suspicious');
    expect((await findingRows(page)).map((r) => r.slice(0, 3))).toEqual([['high', 'pipe-to-shell', 'SKILL.md:8']]);
  });
});

describe('what a skill does when run', () => {
  /** The registry's document of `slug` with its current version's behaviour and effects replaced, as the page reads it in the browser. */
  async function serveObserved(slug: string, observation: Record<string, unknown>): Promise<void> {
    const doc = await (await fetch(`${base}/api/registry/${slug}`)).json();
    const current = doc.versions.find((v: { version: string }) => v.version === doc.currentVersion);
    Object.assign(current, observation);
    // A document newer than the build: the page renders it in place.
    doc.updatedAt = new Date().toISOString();
    await page.unrouteAll();
    await page.route(`**/api/registry/${slug}`, (route) => route.fulfill({ json: doc }));
  }

  const effectRows = (p: Page) =>
    p
      .locator('[data-list=effects] > li')
      .evaluateAll((rows) => rows.map((row) => ['sentence', 'evidence'].map((field) => row.querySelector(`[data-field=${field}]`)?.textContent ?? '')));

  it('claims nothing while no effects are known, says "When run, this skill…" with each effect once they are, and that a pending version is being observed', async () => {
    // Every version is published with its effects: a skill of prose has none.
    await page.goto(`${base}/skills/${skills.tidy.slug}/`);
    const summary = page.locator('[data-field=behaviourSummary]');
    expect(await summary.textContent()).toBe('When run, this skill does nothing outside its own folder.');
    // A version stored before effects were known has none to show.
    await serveObserved(skills.tidy.slug, { behaviour: undefined, effects: undefined });
    await page.goto(`${base}/skills/${skills.tidy.slug}/`);
    await eventually(() => page.locator('[data-role=behaviour]').isVisible()).toBe(false);

    await serveObserved(skills.tidy.slug, {
      behaviour: 'cleared',
      effects: {
        reads: [{ class: 'cloud-credentials', reason: 'r', target: '~/.aws/credentials', evidence: { file: 'SKILL.md', line: 4 }, source: 'static' }],
        writes: [],
        network: [
          {
            class: 'host',
            reason: 'r',
            target: 'api.example.com',
            host: 'api.example.com',
            protocol: 'tls',
            evidence: { step: 'SKILL.md:9 (bash)', event: 'connect api.example.com:443', clock: 'now' },
            source: 'observed',
          },
        ],
        executes: [],
        asks: [],
      },
    });
    await page.goto(`${base}/skills/${skills.tidy.slug}/`);
    const panel = page.getByRole('region', { name: 'When run' });
    await eventually(() => panel.locator('[data-field=behaviourSummary]').textContent()).toBe('When run, this skill…');
    expect(await effectRows(page)).toEqual([
      ['reads your cloud credentials: ~/.aws/credentials', 'in the text: SKILL.md:4'],
      ['connects to api.example.com', 'observed: SKILL.md:9 (bash): connect api.example.com:443'],
    ]);

    await serveObserved(skills.tidy.slug, { behaviour: 'pending' });
    await page.goto(`${base}/skills/${skills.tidy.slug}/`);
    await eventually(() => panel.locator('[data-field=behaviourSummary]').textContent()).toBe(
      'This version is being observed: what it does when run is not known yet.',
    );
    expect(await page.locator('[data-list=effects]').isVisible()).toBe(false);
    await page.unrouteAll();
  });
});

describe('reports and quarantine', () => {
  it('asks a visitor to sign in before reporting', async () => {
    await browser.context.clearCookies();
    await page.goto(`${base}/skills/${skills.target.slug}/`);
    await page.getByRole('button', { name: 'Report this skill' }).click();
    await eventually(() => page.getByRole('link', { name: 'Sign in' }).isVisible()).toBe(true);
    expect(await page.locator('[data-role=report-form]').isVisible()).toBe(false);
  });

  it('lets a signed-in user report a skill once', async () => {
    // Not an admin (GET /api/me says so): his dashboard neither asks for the queue nor shows a review page.
    const asked: string[] = [];
    const listen = (request: { url(): string }) => asked.push(new URL(request.url()).pathname);
    page.on('request', listen);
    await signInAs('bob');
    page.off('request', listen);
    expect(asked).toContain('/api/me');
    expect(asked.filter((path) => path.startsWith('/api/admin/'))).toEqual([]);
    expect(await page.getByRole('heading', { name: 'Reports to review' }).isVisible()).toBe(false);
    expect((await call(base, '/api/admin/reports', { headers: { cookie: await signIn(base, 'bob') } })).status).toBe(403);
    await page.goto(`${base}/skills/${skills.target.slug}/`);
    await page.getByRole('button', { name: 'Report this skill' }).click();
    await page.getByLabel('Reason').selectOption('malware');
    await page.getByLabel('What did you see? (optional)').fill('It asks for my seed phrase.');
    await page.getByRole('button', { name: 'Send report' }).click();
    await eventually(() => page.locator('[data-role=report-status]').textContent()).toBe('Thank you: your report is with the admins.');

    await page.reload();
    await page.getByRole('button', { name: 'Report this skill' }).click();
    await page.getByRole('button', { name: 'Send report' }).click();
    await eventually(() => page.locator('[data-role=report-status]').textContent()).toBe('You have already reported this skill; the admins will look at it.');
  });

  it('gives admins a page of open reports whose buttons quarantine and release, and the skill page and dashboard follow', async () => {
    await signInAs('root');
    const admin = page.getByRole('region', { name: 'Reports to review' });
    await admin.waitFor();
    const row = admin.locator('[data-list=admin-reports] tr', { hasText: skills.target.slug });
    expect(await row.locator('td').allTextContents()).toEqual([
      'malware',
      'It asks for my seed phrase.',
      'bob',
      '0: account 0 days old',
      expect.stringMatching(/UTC$/),
      'listed',
      'Quarantine Release',
    ]);
    await admin.getByLabel('Reason given for a quarantine').fill('Phishes wallet seed phrases');
    await row.getByRole('button', { name: 'Quarantine' }).click();
    await eventually(() => admin.locator('[data-role=admin-status]').textContent()).toBe(`${skills.target.slug} is quarantined; its reports are upheld.`);
    // Upheld reports leave the queue.
    await eventually(() => admin.locator('[data-list=admin-reports] tr', { hasText: skills.target.slug }).count()).toBe(0);

    // The skill page, even as built, now says only that the skill is quarantined.
    await until(async () => (await call(base, `/api/registry/${skills.target.slug}`)).body?.status === 'quarantined', 10_000);
    await page.goto(`${base}/skills/${skills.target.slug}/`);
    await eventually(() => page.locator('[data-role=error]').textContent()).toMatch(/^Free Wallet Helper by alice is quarantined/);
    expect(await page.locator('.skill-layout').isVisible()).toBe(false);

    // Its author sees why, and the report.
    await signInAs('alice');
    const mine = page.locator('[data-list=skills] tr', { hasText: 'Free Wallet Helper' });
    // The table fills after the sign-in shows: wait for the row.
    await eventually(() => mine.locator('.badge.quarantined').isVisible()).toBe(true);
    await mine.getByRole('button', { name: 'Analytics and access' }).click();
    const notice = page.locator('[data-role=quarantine-notice]');
    await eventually(() => notice.isVisible()).toBe(true);
    expect(await notice.textContent()).toContain('Phishes wallet seed phrases');
    await eventually(() => page.locator('[data-list=skill-reports] td').allTextContents()).toEqual([
      expect.stringMatching(/UTC$/),
      'malware',
      'It asks for my seed phrase.',
      'upheld',
    ]);

    // A second report brings the skill back into the admins' queue, where Release lists it again.
    const carol = await signIn(base, 'carol');
    expect(
      (await call(base, `/api/skills/${skills.target.id}/reports`, { method: 'POST', body: { reason: 'spam' }, headers: { cookie: carol, origin: base } }))
        .status,
    ).toBe(201);
    await signInAs('root');
    const again = page.locator('[data-list=admin-reports] tr', { hasText: skills.target.slug });
    await eventually(() => again.locator('td').nth(5).textContent()).toBe('quarantined');
    await again.getByRole('button', { name: 'Release' }).click();
    await eventually(() => page.locator('[data-role=admin-status]').textContent()).toBe(`${skills.target.slug} is released; its reports are dismissed.`);
    await until(async () => (await call(base, `/api/registry/${skills.target.slug}`)).body?.currentVersion === '1.0.0', 10_000);
    await page.goto(`${base}/skills/${skills.target.slug}/`);
    await eventually(() => page.locator('.skill-layout').isVisible()).toBe(true);
    expect(await page.locator('h1').textContent()).toBe('Free Wallet Helper');

    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(browser.pageErrors).toEqual([]);
    expect(browser.cspViolations).toEqual([]);
  });
});

describe('appeals', () => {
  it('shows an author their appeal, and gives admins the files and findings to read with buttons that approve and decline', async () => {
    const key = await createKey(base, await signIn(base, 'alice'));
    const file = async (name: string) => {
      const res = await call(base, '/api/appeals', {
        method: 'POST',
        body: {
          message: `${name}: the encoded line is a fixture of our own detector`,
          publish: { name, description: 'appealed', category: 'testing', files: files(name, MALICIOUS_SKILL_MD) },
        },
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status).toBe(201);
      return res.body.id as string;
    };
    await file('Appealed Fixture');
    await file('Declined Fixture');

    await signInAs('alice');
    const mine = page.getByRole('region', { name: 'My appeals' });
    await mine.waitFor();
    const pending = mine.locator('[data-list=my-appeals] tr', { hasText: 'appealed-fixture@1.0.0' });
    expect(await pending.locator('td').first().textContent()).toBe('pending');
    expect(await pending.locator('td').nth(1).textContent()).toMatch(/^malicious: decode-to-shell at SKILL\.md:\d+$/);

    await signInAs('root');
    const admin = page.getByRole('region', { name: 'Appeals to review' });
    await admin.waitFor();
    const row = admin.locator('[data-list=admin-appeals] tr', { hasText: 'appealed-fixture@1.0.0' });
    expect(await row.locator('td').first().textContent()).toBe('alice');
    await row.getByRole('button', { name: 'Read files' }).click();
    const review = admin.locator('[data-role=appeal-review]');
    await eventually(() => review.isVisible()).toBe(true);
    expect(await review.locator('pre').first().textContent()).toContain('base64 -d | bash');
    expect(await review.locator('[data-list=appeal-findings] li', { hasText: 'decode-to-shell' }).count()).toBe(1);
    await row.getByRole('button', { name: 'Approve' }).click();
    await eventually(() => admin.locator('[data-role=appeals-status]').textContent()).toBe('appealed-fixture@1.0.0 is approved and published.');
    // Published as sent: its sample quotes the attack in a fence without a language, nothing an
    // agent would run, so it is cleared at once, as the admins reviewed it.
    const alices = await call(base, '/api/me/skills', { headers: { cookie: await signIn(base, 'alice') } });
    const appealed = alices.body.skills.find((s: { slug: string }) => s.slug === 'appealed-fixture');
    expect(await untilObservedAt(base, key, appealed.id)).toBe('cleared');

    await admin.getByLabel('Reason given for a decline').fill('It does run what it decodes');
    await admin.locator('[data-list=admin-appeals] tr', { hasText: 'declined-fixture@1.0.0' }).getByRole('button', { name: 'Decline' }).click();
    await eventually(() => admin.locator('[data-role=appeals-status]').textContent()).toBe('declined-fixture@1.0.0 is declined; its author is told why.');
    await eventually(() => admin.locator('[data-list=admin-appeals] tr').count()).toBe(0);

    await signInAs('alice');
    await eventually(() => mine.locator('[data-list=my-appeals] tr', { hasText: 'declined-fixture' }).locator('td').allTextContents()).toEqual([
      'declined',
      expect.stringMatching(/^malicious: /),
      expect.stringContaining('fixture of our own detector'),
      'It does run what it decodes',
      expect.stringMatching(/UTC$/),
    ]);
    expect(await mine.locator('[data-list=my-appeals] tr', { hasText: 'appealed-fixture' }).locator('td').first().textContent()).toBe('approved');
    expect(browser.pageErrors).toEqual([]);
    expect(browser.cspViolations).toEqual([]);
  });
});
