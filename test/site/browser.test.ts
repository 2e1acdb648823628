/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { launchBrowser, type TestBrowser } from '../support/browser.ts';
import { auditPage, problemsOf, useWidth, WIDTHS } from '../support/page-audit.ts';
import { type FakeGitHub, fakeGitHubEnv, startFakeGitHub } from '#scripts/local/fake-github';
import { type FakeStripe, fakeStripeEnv, startFakeStripe } from '../support/fake-stripe.ts';
import { GitRepo } from '../support/git-repo.ts';
import { hasBuiltPage, ONE_BUILD, signInAs as signIntoDashboard, startSeededSite, until as untilReady } from '../support/site-browser.ts';
import { call, type ServerProcess } from '../support/server-process.ts';
import { addVersion, publish, publishFixture, type SiteFixture, skillMd, XSS_DESCRIPTION, XSS_NAME, XSS_SKILL_MD } from '../support/site-fixture.ts';

/**
 * The catalog site and the dashboard in real headless Chromium, against the local runtime
 * started as `npm start` starts it: the site is built by the runtime, once, from what the fixture
 * published through its API, and served by its CDN at `/`; what the tests write afterwards shows
 * through the pages' refresh from the registry (each build costs about ten seconds of CPU).
 */
// A browser on a busy 2-core machine: give pages time rather than fail on a slow second.
vi.setConfig({ testTimeout: 90_000 });
const eventually = <T>(probe: () => T | Promise<T>) => expect.poll(probe, { timeout: 15_000, interval: 100 });

const dataDir = mkdtempSync(join(tmpdir(), 'skillpress-site-'));
let server: ServerProcess;
let base: string;
let fixture: SiteFixture;
/** A skill the seed published at 1.0.0 and 1.1.0, yanked 1.0.0 of and deprecated: the build shows both. */
let legacy: { id: string; slug: string; name: string };
const LEGACY_DESCRIPTION = 'Lints shell scripts the old way.';
const legacyFiles = () => [{ filename: 'SKILL.md', content: skillMd('Legacy Linter', LEGACY_DESCRIPTION) }];
let browser: TestBrowser;
let page: Page;
let stripe: FakeStripe;
let github: FakeGitHub;

beforeAll(async () => {
  stripe = await startFakeStripe();
  github = await startFakeGitHub();
  let seeded: { fixture: SiteFixture; legacy: typeof legacy };
  ({ server, seeded } = await startSeededSite(
    {
      DATA_DIR: dataDir,
      SKILLPRESS_SITE_DEBOUNCE_MS: ONE_BUILD,
      SKILLPRESS_PUBLISH_LIMIT: '100',
      SKILLPRESS_VERSION_LIMIT: '100',
      ...fakeStripeEnv(stripe),
      ...fakeGitHubEnv(github),
    },
    async (seedBase) => {
      const published = await publishFixture(seedBase);
      const auth = { authorization: `Bearer ${published.key}` };
      const old = await publish(seedBase, published.key, { name: 'Legacy Linter', description: LEGACY_DESCRIPTION, category: 'ops', files: legacyFiles() });
      await addVersion(seedBase, published.key, old.id, '1.1.0', 'Faster', legacyFiles());
      const yank = await call(seedBase, `/api/skills/${old.id}/versions/1.0.0/yank`, {
        method: 'POST',
        body: { reason: 'Deleted files outside the project' },
        headers: auth,
      });
      const deprecate = await call(seedBase, `/api/skills/${old.id}/deprecate`, {
        method: 'POST',
        body: { message: 'Use shellcheck directly' },
        headers: auth,
      });
      expect([yank.status, deprecate.status]).toEqual([200, 200]);
      return { fixture: published, legacy: old };
    },
  ));
  ({ fixture, legacy } = seeded);
  base = server.baseUrl;
  // The runtime's first site build has the whole fixture; wait until every skill has its page.
  await until(async () => {
    const built = await Promise.all([...Object.values(fixture.skills), legacy].map((s) => hasBuiltPage(base, s.slug)));
    return built.every(Boolean) && (await fetchText(`/skills/${fixture.skills.pretty.slug}/`)).includes('2.0.0');
  }, 240_000);
  browser = await launchBrowser();
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  page = await browser.page();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await stripe?.close();
  await github?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A dev sign-in's session cookie, for calls a test makes as that user beside the browser. */
async function sessionOf(login: string): Promise<string> {
  const res = await fetch(`${base}/api/auth/dev-login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ login }),
  });
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

async function fetchText(path: string): Promise<string> {
  return (await fetch(base + path)).text();
}

const until = (ready: () => Promise<boolean>, timeoutMs: number) => untilReady(server, ready, timeoutMs);
const signInAs = (login: string) => signIntoDashboard(page, base, login);

/** The page's cumulative layout shift so far (Chromium's layout-shift entries). */
function layoutShift(p: Page): Promise<number> {
  return p.evaluate(
    () =>
      new Promise<number>((resolve) => {
        let total = 0;
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[])
            if (!entry.hadRecentInput) total += entry.value;
        }).observe({ type: 'layout-shift', buffered: true });
        setTimeout(() => resolve(total), 300);
      }),
  );
}

describe('the catalog', () => {
  it('finds a skill with the instant search and links to its page', async () => {
    // The cards' live counts and the search's results share one read of the public install counts.
    const countsRead: string[] = [];
    const listen = (request: { url(): string }) => {
      if (new URL(request.url()).pathname === '/.well-known/skills-installs.json') countsRead.push(request.url());
    };
    page.on('request', listen);
    await page.goto(`${base}/`);
    await page.getByRole('searchbox', { name: 'Search skills' }).fill('json');
    const results = page.locator('#skill-list .card');
    await eventually(() => results.locator('h3').allTextContents()).toEqual(['Pretty JSON']);
    await eventually(() => page.locator('#search-status').textContent()).toBe('1 skill matches.');
    expect(new URL(page.url()).searchParams.get('q')).toBe('json');
    await eventually(() => results.locator('[data-field=installs]').first().textContent()).toMatch(/install/);
    page.off('request', listen);
    expect(countsRead).toHaveLength(1);

    await page.getByRole('searchbox', { name: 'Search skills' }).fill('explain postgresql');
    await eventually(() => results.locator('h3').allTextContents()).toEqual(['SQL Explainer']);
    await page.getByRole('searchbox', { name: 'Search skills' }).fill('no such thing anywhere');
    await eventually(() => page.locator('#search-status').textContent()).toBe('No skill matches “no such thing anywhere”.');

    await page.getByRole('searchbox', { name: 'Search skills' }).fill('pretty');
    await page.getByRole('link', { name: 'Pretty JSON' }).click();
    await page.waitForURL(`${base}/skills/${fixture.skills.pretty.slug}/`);
    expect(await page.locator('h1').textContent()).toBe('Pretty JSON');
  });

  it('shows a skill page with its versions, changelogs, install command and files', async () => {
    await page.goto(`${base}/skills/${fixture.skills.pretty.slug}/`);
    const versions = page.locator('[data-list=versions] > li');
    expect(await versions.locator('[data-field=version]').allTextContents()).toEqual(['2.0.0', '1.1.0', '1.0.0']);
    expect(await versions.locator('.changelog').allTextContents()).toEqual([
      'Breaking: requires jq 1.7.\nAdds --check to fail on unformatted files.',
      'Sorts keys by default.',
      'First release',
    ]);
    expect(await versions.nth(0).getByText('current').isVisible()).toBe(true);
    expect(await versions.nth(1).getByText('current').isVisible()).toBe(false);
    // Commands that work pasted into a fresh shell: our CLI from this registry, and the skills CLI.
    // (A page built before the port was known names it once its script has run.)
    await eventually(() => page.locator('#install-command').textContent()).toBe(`npx -y ${base}/cli/skillpress.tgz install pretty-json`);
    expect(await page.locator('#install-skills-command').textContent()).toBe(`npx skills add ${base}/skills/pretty-json`);
    expect(await page.locator('.facts').textContent()).toMatch(/Author\s+alice\s+Version\s+2\.0\.0\s+Category\s+dev-tools\s+Price\s+Free/);
    expect(await page.locator('[data-list=files] [data-field=filename]').allTextContents()).toEqual(['SKILL.md', 'examples/input.json', 'scripts/format.sh']);
    expect(await layoutShift(page)).toBeLessThan(0.01);

    // The copy button, from the keyboard.
    await page.locator('#install-command ~ button').focus();
    await page.keyboard.press('Enter');
    await eventually(() => page.locator('#install-command ~ button').textContent()).toBe('Copied');
    await eventually(() => page.locator('#announcer').textContent()).toBe('Copied to the clipboard.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`npx -y ${base}/cli/skillpress.tgz install pretty-json`);

    // Per agent: both commands say where that agent reads skills, and copy as shown.
    await page.getByLabel('For', { exact: true }).selectOption('Claude Code');
    expect(await page.locator('#install-command').textContent()).toBe(`npx -y ${base}/cli/skillpress.tgz install pretty-json --agent claude-code`);
    expect(await page.locator('#install-skills-command').textContent()).toBe(`npx skills add ${base}/skills/pretty-json --agent claude-code`);
    await page.locator('#install-skills-command ~ button').click();
    await eventually(() => page.evaluate(() => navigator.clipboard.readText())).toBe(`npx skills add ${base}/skills/pretty-json --agent claude-code`);
    await page.getByLabel('For', { exact: true }).selectOption('');
    expect(await page.locator('#install-command').textContent()).toBe(`npx -y ${base}/cli/skillpress.tgz install pretty-json`);

    // The file viewer shows a free skill's file.
    await page.getByRole('button', { name: 'examples/input.json' }).click();
    await eventually(() => page.locator('[data-role=viewer-content]').textContent()).toBe('{"b": 1, "a": [1, 2, 3]}\n');
    expect(await page.locator('[data-role=viewer-name]').textContent()).toBe('examples/input.json');
    await page.screenshot({ path: 'test/artifacts/site-skill.png', fullPage: true });
  });

  it('lists a paid skill without a file viewer', async () => {
    await page.goto(`${base}/skills/${fixture.skills.sql.slug}/`);
    expect(await page.locator('.facts').textContent()).toContain('Paid');
    expect(await page.locator('[data-list=files] button').count()).toBe(0);
    expect(await page.locator('[data-list=files] [data-field=filename]').allTextContents()).toEqual(['SKILL.md']);
  });

  it('lists every version on request when the registry shows only the latest five', async () => {
    const { key } = fixture;
    const many = await publish(base, key, { name: 'Many Versions', description: 'Has seven versions', category: 'testing' });
    const files = [{ filename: 'SKILL.md', content: skillMd('Many Versions', 'Has seven versions') }];
    for (let minor = 1; minor <= 6; minor++) await addVersion(base, key, many.id, `1.${minor}.0`, `Minor ${minor}`, files);
    await until(async () => (await call(base, `/api/registry/${many.slug}`)).body?.currentVersion === '1.6.0', 20_000);
    await page.goto(`${base}/skills/${many.slug}/`);
    await eventually(() => page.locator('[data-list=versions] [data-field=version]').count()).toBe(5);
    await page.getByRole('button', { name: 'Show every version' }).click();
    await eventually(() => page.locator('[data-list=versions] [data-field=version]').allTextContents()).toEqual([
      '1.6.0',
      '1.5.0',
      '1.4.0',
      '1.3.0',
      '1.2.0',
      '1.1.0',
      '1.0.0',
    ]);
  });

  it('renders a skill published after the site build, from its registry JSON', async () => {
    const fresh = await publish(base, fixture.key, {
      name: 'Fresh Off The Press',
      description: 'Published after the last site build',
      category: 'writing',
      files: [{ filename: 'SKILL.md', content: skillMd('Fresh Off The Press', 'Published after the last site build') }],
    });
    await until(async () => (await call(base, `/api/registry/${fresh.slug}`)).status === 200, 10_000);
    // The rebuild patches the search index after the skill's registry document, under the index lock.
    await until(
      async () => (await call(base, `/api/search?q=${encodeURIComponent('fresh off')}`)).body?.skills?.some((s: { slug: string }) => s.slug === fresh.slug),
      30_000,
    );
    // The site has no page for it yet: the CDN answers with the fallback page, whose only mention
    // of the skill is the link to its registry document for browsers without JavaScript…
    const served = await fetchText(`/skills/${fresh.slug}/`);
    expect(served).not.toContain(`data-slug="${fresh.slug}"`);
    expect(served).toContain(`href="/api/registry/${fresh.slug}"`);
    // …which the browser fills from /api/registry/<slug>.
    await page.goto(`${base}/skills/${fresh.slug}/`);
    await eventually(() => page.locator('h1').textContent()).toBe('Fresh Off The Press');
    await eventually(() => page.locator('#install-command').textContent()).toBe(`npx -y ${base}/cli/skillpress.tgz install ${fresh.slug}`);
    expect(await page.locator('[data-list=versions] [data-field=version]').allTextContents()).toEqual(['1.0.0']);
    expect(await page.title()).toBe('Fresh Off The Press · Skillpress');

    // The search index the rebuild patched has it, and the search links it to the fallback page that works on any host.
    await page.goto(`${base}/`);
    await page.getByRole('searchbox', { name: 'Search skills' }).fill('fresh off');
    const link = page.getByRole('link', { name: 'Fresh Off The Press' });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe(`/skills/_/?slug=${fresh.slug}`);
    await link.click();
    await eventually(() => page.locator('.lede').textContent()).toBe('Published after the last site build');

    await page.goto(`${base}/skills/_/?slug=no-such-skill`);
    await eventually(() => page.locator('[data-role=error]').textContent()).toBe('There is no skill “no-such-skill”.');
  });

  it('works without JavaScript: home, categories and skill pages are complete HTML', async () => {
    const noJs = await launchBrowser({ javaScript: false });
    try {
      const p = await noJs.page();
      await p.goto(`${base}/`);
      expect(await p.getByRole('searchbox').isVisible()).toBe(false);
      await p.getByRole('link', { name: /^data/ }).first().click();
      await p.waitForURL(`${base}/categories/data/`);
      expect(await p.locator('.card h3').allTextContents()).toEqual(['CSV Cleaner', 'SQL Explainer']);
      await p.getByRole('link', { name: 'CSV Cleaner' }).click();
      expect(await p.locator('h1').textContent()).toBe('CSV Cleaner');
      await p.goto(`${base}/skills/${fixture.skills.pretty.slug}/`);
      expect(await p.locator('[data-list=versions] [data-field=version]').allTextContents()).toEqual(['2.0.0', '1.1.0', '1.0.0']);
      expect(await p.getByRole('button', { name: /Copy/ }).isVisible()).toBe(false);
    } finally {
      await noJs.close();
    }
  });

  it('is keyboard-usable from the first Tab, and the home page does not shift', async () => {
    await page.goto(`${base}/`);
    expect(await layoutShift(page)).toBeLessThan(0.01);
    await page.screenshot({ path: 'test/artifacts/site-home.png', fullPage: true });
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
  });
});

describe('every page, on a phone and a desktop', () => {
  /**
   * Each page at 320, 375 and 1280 px, loaded afresh at each width: nothing pans sideways, no
   * word of the header or of a heading, button or label is broken, a phone's tap targets are
   * 44 px, the chart's labels are readable, the layout shifts by less than 0.1 (the dashboard and
   * the pages drawn in the browser included), and axe-core finds nothing serious in light or
   * dark. The 375 px views of the home, a skill page and the dashboard are the screenshots in
   * docs/screenshots/ (`npm run screenshots` writes them there; here they go to test/artifacts/).
   */
  it('pans nowhere, keeps words whole, has 44 px targets, shifts under 0.1 and passes axe, light and dark', async () => {
    const fresh = await publish(base, fixture.key, {
      name: 'Drawn In The Browser',
      description: 'Published after the last site build, so its page is drawn from the registry JSON.',
      category: 'writing',
      files: [{ filename: 'SKILL.md', content: skillMd('Drawn In The Browser', 'Published after the last site build.') }],
    });
    await until(async () => (await call(base, `/api/registry/${fresh.slug}`)).status === 200, 10_000);
    const pages: { name: string; path: string; signedIn?: string; status?: number; screenshot?: string }[] = [
      { name: 'home', path: '/', screenshot: 'home' },
      { name: 'search opened by its address', path: '/?q=sql' },
      { name: 'skill page', path: `/skills/${fixture.skills.pretty.slug}/`, screenshot: 'skill' },
      { name: 'paid skill page', path: `/skills/${fixture.skills.sql.slug}/` },
      { name: 'deprecated skill page', path: `/skills/${legacy.slug}/` },
      { name: 'hostile skill page', path: `/skills/${fixture.skills.xss.slug}/` },
      { name: 'skill newer than the build', path: `/skills/${fresh.slug}/` },
      { name: 'skill newer than the build, by its query', path: `/skills/_/?slug=${fresh.slug}` },
      { name: 'unknown skill', path: '/skills/no-such-skill/', status: 404 },
      { name: 'categories', path: '/categories/' },
      { name: 'category', path: '/categories/data/popular/' },
      { name: 'author', path: '/authors/alice/' },
      { name: 'purchase', path: `/purchase/?skill=${fixture.skills.sql.slug}&cancelled=1` },
      { name: 'dashboard, signed out', path: '/dashboard/' },
      { name: 'dashboard', path: '/dashboard/', signedIn: 'alice', screenshot: 'dashboard' },
      { name: 'not found', path: '/no/such/page/', status: 404 },
    ];
    const shots = process.env.SKILLPRESS_SCREENSHOTS ?? 'test/artifacts';
    const problems: string[] = [];
    // Nobody here is an admin: the dashboard must not ask for the admins' reports (a 403 each time).
    const asked: string[] = [];
    const listen = (request: { url(): string }) => asked.push(new URL(request.url()).pathname);
    page.on('request', listen);
    try {
      for (const { name, path, signedIn, status = 200, screenshot } of pages) {
        if (signedIn) await signInAs(signedIn);
        else await browser.context.clearCookies();
        for (const width of WIDTHS) {
          await useWidth(page, width);
          const res = await page.goto(base + path);
          expect(res?.status(), path).toBe(status);
          // Pages drawn in the browser say when they are done.
          await eventually(() => page.locator('[aria-busy=true]').count()).toBe(0);
          problems.push(...problemsOf(`${name} at ${width} px`, await auditPage(page)));
          if (screenshot && width === 375) await page.screenshot({ path: `${shots}/${screenshot}-375.png`, fullPage: true });
        }
      }
    } finally {
      page.off('request', listen);
      await useWidth(page, 1280);
    }
    expect(problems).toEqual([]);
    expect(asked.filter((path) => path.startsWith('/api/admin/'))).toEqual([]);
    expect(asked).toContain('/api/me/skills');
  }, 600_000);
});

describe('the dashboard', () => {
  it('signs in with the dev sign-in, shows a new API key once, and never again after a reload', async () => {
    await browser.context.clearCookies();
    await page.goto(`${base}/dashboard/`);
    expect(await page.getByRole('link', { name: 'Sign in with GitHub' }).getAttribute('href')).toBe('/api/auth/github');
    await signInAs('bob');
    await page.locator('[data-role=no-skills]').waitFor();

    await page.getByLabel('Name', { exact: true }).fill('laptop');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = page.locator('[data-role=new-key]');
    await secret.waitFor();
    const key = (await secret.locator('code').textContent())!;
    expect(key).toMatch(/^sk_[A-Za-z0-9_-]{40,}$/);
    expect(await secret.textContent()).toContain('It is shown only once');
    await page.screenshot({ path: 'test/artifacts/site-dashboard-new-key.png', fullPage: true });
    const rows = page.locator('[data-list=keys] tr');
    await eventually(() => rows.locator('td').first().textContent()).toBe('laptop');

    // The key is real: it publishes.
    const published = await call(base, '/api/publish', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: { name: 'Bob Skill', description: 'by bob', category: 'testing' },
    });
    expect(published.status).toBe(201);

    await page.reload();
    await page.getByText('Signed in as bob').waitFor();
    await eventually(() => rows.count()).toBe(1);
    expect(await secret.isVisible()).toBe(false);
    expect(await page.content()).not.toContain(key);
    const masked = (await rows.locator('code').textContent())!;
    expect(masked).toMatch(/^sk_.{1,12}…$/);
    expect(key.startsWith(masked.slice(0, -1))).toBe(true);

    // Revoking asks twice, then the key stops working at once.
    await rows.getByRole('button', { name: 'Revoke' }).click();
    await rows.getByRole('button', { name: 'Click again to revoke' }).click();
    await eventually(() => rows.count()).toBe(0);
    const refused = await call(base, '/api/publish', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: { name: 'Bob Again', description: 'x', category: 'testing' },
    });
    expect(refused.status).toBe(401);
  });

  it('charts the analytics of a skill with the numbers /api/analytics gives', async () => {
    await signInAs('alice');
    const row = page.locator('[data-list=skills] tr', { hasText: 'Pretty JSON' });
    await row.getByRole('button', { name: 'Analytics and access' }).click();
    await eventually(() => page.locator('#skill-panel-heading').textContent()).toBe('Analytics for Pretty JSON');
    // The fixture's installs are counted once the server's counters flush (a moment, under load).
    const analytics = async () => (await call(base, `/api/analytics/${fixture.skills.pretty.id}`, { headers: { cookie: fixture.cookie } })).body;
    await eventually(async () => (await analytics()).total).toBe(8);
    const api = await analytics();
    expect(api).toMatchObject({ total: 8, bySource: { cli: 5, web: 2, api: 1 } });

    await eventually(() => page.locator('[data-stat=total]').textContent()).toBe(String(api.total));
    const stats = await page.locator('[data-stat]').evaluateAll((els) => Object.fromEntries(els.map((e) => [(e as HTMLElement).dataset.stat, e.textContent])));
    expect(stats).toEqual({ total: String(api.total), last7d: String(api.last7d), last30d: String(api.last30d), cli: '5', web: '2', api: '1' });
    // And by client, as the analytics tell them apart.
    const clients = await page
      .locator('[data-client]')
      .evaluateAll((els) => Object.fromEntries(els.map((e) => [(e as HTMLElement).dataset.client, e.textContent])));
    expect(clients).toEqual(Object.fromEntries(Object.entries(api.byClient).map(([client, count]) => [client, String(count)])));

    const drawn = await page.locator('svg[data-role=chart] g.bar').evaluateAll((bars) =>
      bars.map((bar) => {
        const rects = [...bar.querySelectorAll('rect')];
        const value = (source: string) => Number(rects.find((r) => r.getAttribute('data-source') === source)?.getAttribute('data-value'));
        return {
          date: bar.getAttribute('data-date'),
          cli: value('cli'),
          web: value('web'),
          api: value('api'),
          heights: rects.map((r) => Number(r.getAttribute('height'))),
        };
      }),
    );
    expect(drawn).toHaveLength(30);
    expect(drawn.map(({ date, cli, web, api: a }) => ({ date, cli, web, api: a }))).toEqual(
      api.daily.map(({ date, cli, web, api: a }: { date: string; cli: number; web: number; api: number }) => ({ date, cli, web, api: a })),
    );
    // Only today's bar has height: the fixture's installs all happened today.
    expect(drawn.slice(0, -1).every((d) => d.heights.every((h) => h === 0))).toBe(true);
    expect(drawn.at(-1)!.heights.every((h) => h > 0)).toBe(true);
    expect(await page.locator('svg[data-role=chart] desc').textContent()).toContain('8 installs in the last 30 days');

    await page.screenshot({ path: 'test/artifacts/site-dashboard.png', fullPage: true });
    await page.getByText('Daily installs as a table').click();
    const table = await page.locator('[data-list=daily] tr').evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent)));
    expect(table).toHaveLength(30);
    expect(table.at(-1)).toEqual([api.daily.at(-1).date, '5', '2', '1', '8']);
  });

  it('issues and revokes download tokens and grants for a paid skill', async () => {
    await signInAs('alice');
    await page.locator('[data-list=skills] tr', { hasText: 'SQL Explainer' }).getByRole('button', { name: 'Analytics and access' }).click();
    await page.getByLabel('Maximum uses (optional)').fill('3');
    await page.getByRole('button', { name: 'Issue token' }).click();
    const secret = page.locator('[data-role=new-token]');
    await secret.waitFor();
    const token = (await secret.locator('#new-token-value').textContent())!;
    expect((await call(base, `/api/deliver/${fixture.skills.sql.id}?token=${token}`)).status).toBe(200);
    const tokens = page.locator('[data-list=tokens] tr');
    await eventually(() => tokens.count()).toBe(1);
    await tokens.getByRole('button', { name: 'Revoke' }).click();
    await tokens.getByRole('button', { name: 'Click again to revoke' }).click();
    await eventually(() => tokens.count()).toBe(0);
    expect((await call(base, `/api/deliver/${fixture.skills.sql.id}?token=${token}`)).status).toBe(401);

    await page.getByLabel('GitHub login').fill('bob');
    await page.getByRole('button', { name: 'Grant access' }).click();
    const grants = page.locator('[data-list=grants] tr');
    await eventually(() => grants.locator('td').first().textContent()).toBe('bob');
    await grants.getByRole('button', { name: 'Revoke' }).click();
    await grants.getByRole('button', { name: 'Click again to revoke' }).click();
    await eventually(() => grants.count()).toBe(0);
  });
});

describe('yanked versions and deprecated skills', () => {
  const auth = () => ({ authorization: `Bearer ${fixture.key}` });

  /** What a visitor sees of the skill's versions: each one's number, whether it is struck through, and its yank note. */
  const versionRows = () =>
    page.locator('[data-list=versions] > li').evaluateAll((rows) =>
      rows.map((row) => {
        const tag = row.querySelector<HTMLElement>('[data-field=version]')!;
        const note = row.querySelector<HTMLElement>('.yank-note')!;
        return { version: tag.textContent, struck: getComputedStyle(tag).textDecorationLine, note: note.hidden ? '' : note.textContent };
      }),
    );

  it('strikes a yanked version through with its reason, and shows a deprecation banner: built, and rendered in the browser', async () => {
    // The site build after the seed's yank and deprecation renders both into the page's HTML.
    const html = await fetchText(`/skills/${legacy.slug}/`);
    expect(html).toContain('Use shellcheck directly');
    expect(html).toContain('class="yanked"');

    const expected = [
      { version: '1.1.0', struck: 'none', note: '' },
      { version: '1.0.0', struck: 'line-through', note: 'Yanked: Deleted files outside the project. Installed only where a lockfile pins it.' },
    ];
    for (const path of [`/skills/${legacy.slug}/`, `/skills/_/?slug=${legacy.slug}`]) {
      await page.goto(base + path);
      const banner = page.locator('[data-role=deprecation]');
      await eventually(() => banner.isVisible()).toBe(true);
      expect(await banner.textContent()).toMatch(/Deprecated by its author\.\s+Use shellcheck directly/);
      await eventually(versionRows).toEqual(expected);
      expect(await page.locator('[data-list=versions] > li').nth(1).getByText('yanked', { exact: true }).isVisible()).toBe(true);
    }
    await page.screenshot({ path: 'test/artifacts/site-deprecated.png', fullPage: true });

    // Undone, the page shows neither, even before the next site build: it refreshes from the registry.
    await call(base, `/api/skills/${legacy.id}/versions/1.0.0/yank`, { method: 'DELETE', headers: auth() });
    await call(base, `/api/skills/${legacy.id}/deprecate`, { method: 'DELETE', headers: auth() });
    await until(async () => !(await call(base, `/api/registry/${legacy.slug}`)).body.deprecated, 20_000);
    await page.goto(`${base}/skills/${legacy.slug}/`);
    await eventually(() => page.locator('[data-role=deprecation]').isVisible()).toBe(false);
    await eventually(versionRows).toEqual([
      { version: '1.1.0', struck: 'none', note: '' },
      { version: '1.0.0', struck: 'none', note: '' },
    ]);
  });

  it('yanks, un-yanks, deprecates and undoes it from the dashboard', async () => {
    // From a skill with nothing yanked and no deprecation, whatever ran before (both undos are idempotent).
    for (const path of [`/api/skills/${legacy.id}/versions/1.0.0/yank`, `/api/skills/${legacy.id}/deprecate`])
      expect((await call(base, path, { method: 'DELETE', headers: auth() })).status).toBe(200);
    await until(async () => {
      const [skill, versions] = await Promise.all([call(base, `/api/registry/${legacy.slug}`), call(base, `/api/registry/${legacy.slug}/versions`)]);
      return !skill.body.deprecated && !versions.body.versions.some((v: { yanked?: boolean }) => v.yanked);
    }, 20_000);
    await signInAs('alice');
    await page.locator('[data-list=skills] tr', { hasText: 'Legacy Linter' }).getByRole('button', { name: 'Analytics and access' }).click();
    const rows = page.locator('[data-list=lifecycle-versions] tr');
    await eventually(() => rows.locator('th').allTextContents()).toEqual(['1.1.0', '1.0.0']);
    const row = rows.filter({ hasText: '1.1.0' });
    expect(await row.locator('td').nth(1).textContent()).toBe('current');

    await page.getByLabel('Reason shown with a version you yank (optional)').fill('Too slow on big repositories');
    await row.getByRole('button', { name: 'Yank' }).click();
    await row.getByRole('button', { name: 'Click again to yank' }).click();
    await eventually(() => row.locator('td').nth(1).textContent()).toBe('yanked: Too slow on big repositories');
    expect(await page.locator('[data-role=lifecycle-status]').textContent()).toBe('1.1.0 is yanked; 1.0.0 is the current version.');
    await eventually(async () => (await call(base, `/api/registry/${legacy.slug}`)).body.currentVersion).toBe('1.0.0');

    await row.getByRole('button', { name: 'Undo yank' }).click();
    await eventually(() => row.locator('td').nth(1).textContent()).toBe('current');
    await eventually(async () => (await call(base, `/api/registry/${legacy.slug}`)).body.currentVersion).toBe('1.1.0');

    await page.getByLabel('Message for people who find or install it').fill('Moved to lint-kit');
    await page.getByRole('button', { name: 'Deprecate' }).click();
    await eventually(() => page.locator('[data-role=deprecated-note]').textContent()).toBe('Deprecated: Moved to lint-kit');
    await eventually(async () => (await call(base, `/api/registry/${legacy.slug}`)).body.deprecated).toBe('Moved to lint-kit');
    await page.getByRole('button', { name: 'Undo the deprecation' }).click();
    await eventually(() => page.locator('[data-role=deprecated-note]').isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Deprecate' }).isVisible()).toBe(true);
    await eventually(async () => (await call(base, `/api/registry/${legacy.slug}`)).body.deprecated).toBeUndefined();
  });

  it('trusts a GitHub workflow from the dashboard, lists it, and removes it', async () => {
    await signInAs('alice');
    await page.locator('[data-list=skills] tr', { hasText: 'Legacy Linter' }).getByRole('button', { name: 'Analytics and access' }).click();
    await eventually(() => page.locator('[data-role=no-publishers]').isVisible()).toBe(true);
    await page.getByLabel('Repository').fill('octo/legacy-linter');
    await page.getByLabel('Workflow file').fill('publish.yml');
    await page.getByLabel('Environment (optional)').fill('production');
    await page.getByRole('button', { name: 'Trust this workflow' }).click();
    const rows = page.locator('[data-list=publishers] tr');
    await eventually(() => rows.locator('th').allTextContents()).toEqual(['octo/legacy-linter']);
    expect(await rows.locator('td').nth(0).textContent()).toBe('.github/workflows/publish.yml');
    expect(await rows.locator('td').nth(1).textContent()).toBe('production');
    const listed = await call(base, `/api/skills/${legacy.id}/trusted-publishers`, { headers: auth() });
    expect(listed.body.publishers).toMatchObject([
      { repository: 'octo/legacy-linter', workflow: 'publish.yml', environment: 'production', createdBy: 'alice' },
    ]);

    await rows.getByRole('button', { name: 'Remove' }).click();
    await rows.getByRole('button', { name: 'Click again to remove' }).click();
    await eventually(() => rows.count()).toBe(0);
    expect((await call(base, `/api/skills/${legacy.id}/trusted-publishers`, { headers: auth() })).body.publishers).toEqual([]);
  });
});

describe('GitHub imports on the dashboard', () => {
  /** A session of GitHub's sign-in as `user`, through the fake GitHub's code, as the browser would get it. */
  async function gitHubSession(user: { id: number; login: string }): Promise<string> {
    const start = await fetch(`${base}/api/auth/github`, { redirect: 'manual' });
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    const stateCookie = start.headers
      .getSetCookie()
      .find((c) => c.startsWith('skillpress_oauth_state='))!
      .split(';')[0]!;
    const done = await fetch(`${base}/api/auth/github/callback?${new URLSearchParams({ code: github.issueCode(user), state })}`, {
      redirect: 'manual',
      headers: { cookie: stateCookie },
    });
    return done.headers
      .getSetCookie()
      .find((c) => c.startsWith('skillpress_session='))!
      .split(';')[0]!
      .split('=')[1]!;
  }

  it('imports a repository, shows its webhook secret once, lists the import and syncs it now', async () => {
    const user = { id: 90_210, login: 'octo-dash' };
    const repo = new GitRepo();
    github.addRepo('octo-dash/skills', repo.dir, { ...user, type: 'User' });
    repo.commit({ 'dash-imported/SKILL.md': '---\nname: dash-imported\ndescription: Imported from the dashboard.\n---\n# Dash Imported\n' });
    await browser.context.clearCookies();
    await browser.context.addCookies([{ name: 'skillpress_session', value: await gitHubSession(user), url: base }]);
    await page.goto(`${base}/dashboard/`);
    await page.getByText('Signed in as octo-dash').waitFor();

    await page.getByLabel('Import from').fill('octo-dash/skills');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const status = page.locator('[data-role=imports-status]');
    await eventually(() => status.textContent()).toMatch(/^octo-dash\/skills@[0-9a-f]{7}: 1 published, 0 new versions, 0 unchanged, 0 refused\.$/);
    expect(await page.locator('[data-list=import-folders] li').textContent()).toContain('dash-imported@1.0.0');
    expect(await page.locator('[data-role=import-webhook] [data-field=webhookSecret]').textContent()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const rows = page.locator('[data-list=imports] tr');
    await eventually(() => rows.locator('th').allTextContents()).toEqual(['octo-dash/skills']);

    repo.commit({ 'dash-imported/notes.md': '# Notes\n' });
    await rows.getByRole('button', { name: 'Sync now' }).click();
    await eventually(() => status.textContent()).toMatch(/1 new versions, 0 unchanged/);
    expect(await page.locator('[data-role=import-webhook]').isVisible()).toBe(false);
    expect(await page.locator('[data-list=import-folders] li').textContent()).toContain('dash-imported@1.0.1');
    repo.remove();
  });
});

describe('buying a paid skill', () => {
  it('lets the author price it on the dashboard, and a signed-in buyer buy it with the Buy button', async () => {
    await signInAs('alice');
    await page.locator('[data-list=skills] tr', { hasText: 'SQL Explainer' }).getByRole('button', { name: 'Analytics and access' }).click();
    await page.getByLabel('Amount').fill('12.99');
    // The skill's price form, not the upload's, which asks for a currency too.
    await page.getByRole('textbox', { name: 'Currency (ISO 4217)', exact: true }).and(page.locator('#price-currency')).fill('eur');
    await page.getByRole('button', { name: 'Set price' }).click();
    await eventually(() => page.locator('[data-role=skill-status]').textContent()).toBe('SQL Explainer is on sale at €12.99.');
    expect(await page.locator('[data-role=price-now]').textContent()).toContain('€12.99');

    // Stripe's hosted page tells the webhook before it sends the buyer back, as Stripe usually does.
    stripe.onPaid = async (event) => {
      const { payload, signature } = stripe.sign(event);
      await fetch(`${base}/api/stripe/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
        body: payload,
      });
    };
    await signInAs('bob');
    const skillPage = `${base}/skills/${fixture.skills.sql.slug}/`;
    // The page refreshes itself from the registry JSON once the rebuild has the price.
    await expect
      .poll(
        async () => {
          await page.goto(skillPage);
          return page
            .locator('[data-action=buy]')
            .isVisible({ timeout: 2000 })
            .catch(() => false);
        },
        { timeout: 30_000, interval: 500 },
      )
      .toBe(true);
    expect(await page.locator('.buy .price').textContent()).toBe('€12.99');
    await page.getByRole('button', { name: 'Buy' }).click();
    await page.waitForURL(/\/purchase\/\?skill=/);
    await eventually(() => page.locator('[data-role=heading]').textContent()).toBe('Paid — it is yours');
    expect(await page.locator('[data-role=install]').textContent()).toContain(`npx -y ${base}/cli/skillpress.tgz install ${fixture.skills.sql.slug}`);
    await page.screenshot({ path: 'test/artifacts/site-purchase.png', fullPage: true });
    const cookie = (await browser.context.cookies()).find((c) => c.name === 'skillpress_session')!;
    expect((await call(base, `/api/deliver/${fixture.skills.sql.id}`, { headers: { cookie: `${cookie.name}=${cookie.value}` } })).status).toBe(200);

    await page.goto(`${base}/dashboard/`);
    const purchases = page.locator('[data-list=purchases] tr');
    await eventually(() => purchases.textContent()).toContain('€12.99');
    expect(await purchases.textContent()).toContain('Yours to install');

    await page.goto(`${base}/purchase/?skill=${fixture.skills.sql.slug}&cancelled=1`);
    await eventually(() => page.locator('[data-role=heading]').textContent()).toBe('Checkout cancelled');
  });
});

describe('hostile skill names', () => {
  it('render as text everywhere: no dialog, no injected element', async () => {
    const injected = () =>
      page.evaluate(() => document.querySelectorAll('img[src="x"], b, script:not([src]):not([type=module]):not([type="application/ld+json"])').length);

    await page.goto(`${base}/skills/${fixture.skills.xss.slug}/`);
    expect(await page.locator('h1').textContent()).toBe(XSS_NAME);
    expect(await page.locator('.lede').textContent()).toBe(XSS_DESCRIPTION);
    // Its structured data is one data block that holds the name as data: nothing in it closes the element.
    const structured = await page.locator('script[type="application/ld+json"]').allTextContents();
    expect(structured).toHaveLength(1);
    expect(JSON.parse(structured[0]!)['@graph'].find((item: { '@type': string }) => item['@type'] === 'SoftwareApplication').name).toBe(XSS_NAME);
    await page.getByRole('button', { name: 'SKILL.md' }).click();
    await eventually(() => page.locator('[data-role=viewer-content]').textContent()).toBe(XSS_SKILL_MD);
    expect(await injected()).toBe(0);

    // Rendered in the browser from the registry JSON, as for a skill newer than the build.
    await page.goto(`${base}/skills/_/?slug=${fixture.skills.xss.slug}`);
    await eventually(() => page.locator('h1').textContent()).toBe(XSS_NAME);
    expect(await injected()).toBe(0);

    await page.goto(`${base}/`);
    expect(await page.locator('#skill-list').textContent()).toContain(XSS_NAME);
    await page.getByRole('searchbox', { name: 'Search skills' }).fill('onerror');
    await eventually(() => page.locator('#skill-list .card h3').allTextContents()).toEqual([XSS_NAME]);
    expect(await injected()).toBe(0);

    await signInAs('alice');
    await page.locator('[data-list=skills] tr', { hasText: 'onerror' }).getByRole('button', { name: 'Analytics and access' }).click();
    await eventually(() => page.locator('#skill-panel-heading').textContent()).toBe(`Analytics for ${XSS_NAME}`);
    expect(await injected()).toBe(0);

    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(browser.dialogs).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
  });
});

describe('organisations on the dashboard', () => {
  it('creates an organisation, invites a maintainer who accepts, shows its private skill, makes it public, and logs it all', async () => {
    // Mia signs in once, so she can be invited.
    await signInAs('mia');
    await signInAs('olive');
    await page.locator('[data-role=new-org] summary').click();
    await page.getByLabel("Login (shared with users' logins)").fill('acme-team');
    await page.getByLabel('Display name').fill('Acme Team');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await eventually(() => page.locator('[data-role=org-status]').textContent()).toContain('Created acme-team');
    await eventually(() => page.locator('#org-heading').textContent()).toBe('Organisation Acme Team');
    await page.getByLabel('Login to invite (they must have signed in once)').fill('mia');
    await page.locator('[data-role=invite-form]').getByLabel('Role').selectOption('maintainer');
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    await eventually(() => page.locator('[data-list=org-invitations] th').allTextContents()).toEqual(['mia']);

    // Mia accepts, and publishes a private skill into it with a key of hers.
    await signInAs('mia');
    const invitation = page.locator('[data-list=my-invitations] tr', { hasText: 'acme-team' });
    await invitation.getByRole('button', { name: 'Accept' }).click();
    await eventually(() => page.locator('#org-heading').textContent()).toBe('Organisation Acme Team');
    const created = await call(base, '/api/api-keys', {
      method: 'POST',
      body: { name: 'ci', org: 'acme-team', scopes: ['publish', 'read'] },
      headers: { cookie: await sessionOf('mia'), origin: base },
    });
    expect(created.status).toBe(201);
    const miaKey = (created.body as { key: string }).key;
    const published = await call(base, '/api/publish', {
      method: 'POST',
      headers: { authorization: `Bearer ${miaKey}` },
      body: { name: 'Team Runbook', description: 'How the team handles incidents', category: 'ops', owner: 'acme-team', visibility: 'private' },
    });
    expect(published.status).toBe(201);

    // Olive sees it under the organisation, private, with Mia among the members; she makes it public.
    await signInAs('olive');
    await page.getByLabel('Show the skills of').selectOption('acme-team');
    const row = page.locator('[data-list=skills] tr', { hasText: 'Team Runbook' });
    await eventually(() => row.locator('.badge.private').isVisible()).toBe(true);
    await eventually(() => page.locator('[data-list=members] th').allTextContents()).toEqual(['mia', 'olive']);
    await row.getByRole('button', { name: 'Analytics and access' }).click();
    await eventually(() => page.locator('[data-role=ownership]').textContent()).toContain('private: only its members see and install it');
    await page.getByRole('button', { name: 'Make it public' }).click();
    await page.getByRole('button', { name: 'Click again to make it public for good' }).click();
    await eventually(() => page.locator('[data-role=skill-status]').textContent()).toContain('Team Runbook is public');
    await page.getByLabel('Show the skills of').selectOption('acme-team');
    await eventually(() => page.locator('[data-list=audit] code').allTextContents()).toEqual([
      'skill.visibility_changed',
      'skill.published',
      'key.created',
      'invitation.accepted',
      'invitation.created',
    ]);

    // A key for the organisation only, to read, for 30 days: the list says so.
    await page.locator('[data-role=key-form]').getByLabel('Name', { exact: true }).fill('installs for acme');
    await page.getByLabel('publish (skills, versions)').uncheck();
    await page.getByLabel('manage (yank, deprecate, price, visibility, transfer)').uncheck();
    await page.getByLabel('Reaches').selectOption('org:acme-team');
    await page.getByLabel('Expires', { exact: true }).selectOption('30');
    await page.getByRole('button', { name: 'Create key' }).click();
    const keyRow = page.locator('[data-list=keys] tr', { hasText: 'installs for acme' });
    await eventually(() => keyRow.locator('td').allTextContents()).toEqual(expect.arrayContaining(['read', 'organisation acme-team']));
    await page.screenshot({ path: 'test/artifacts/site-dashboard-organisation.png', fullPage: true });
  });
});

describe('the Content-Security-Policy', () => {
  it('is sent with every page, forbids framing, and blocked nothing on any page these tests visited', async () => {
    for (const path of ['/', `/skills/${fixture.skills.pretty.slug}/`, '/dashboard/', '/categories/', '/purchase/']) {
      const res = await fetch(base + path);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('content-security-policy')).toMatch(/script-src 'self'.*frame-ancestors 'none'/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
    expect(browser.cspViolations).toEqual([]);
  });
});
