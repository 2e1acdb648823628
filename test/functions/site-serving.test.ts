import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REGISTRY_LINK, registryKey, SITE_MANIFEST_KEY } from '#core/static-paths';
import { siteSourceHash } from '#scripts/site/site-sources';
import { readSiteManifest, uploadSite } from '#scripts/site/upload-site';
import { createTestStack, type TestStack } from '../support/stack.ts';

let stack: TestStack;
const dist = mkdtempSync(join(tmpdir(), 'skillpress-site-dist-'));
afterAll(() => rmSync(dist, { recursive: true, force: true }));

function write(path: string, content: string): void {
  mkdirSync(dirname(join(dist, path)), { recursive: true });
  writeFileSync(join(dist, path), content);
}

const page = (title: string) => `<!doctype html><title>${title}</title><link rel="stylesheet" href="/_astro/site.abc123.css"><h1>${title}</h1>`;

beforeAll(async () => {
  stack = await createTestStack();
  write('index.html', page('Home'));
  write('skills/pretty-json/index.html', page('Pretty JSON'));
  write('skills/_/index.html', `${page('Skill fallback')}<noscript><a href="${REGISTRY_LINK}">registry document</a></noscript>`);
  write('authors/_/index.html', page('Author fallback'));
  write('dashboard/index.html', page('Dashboard'));
  write('404.html', page('Page not found'));
  write('_astro/site.abc123.css', 'body{margin:0}'.repeat(40));
  write('favicon.svg', '<svg xmlns="http://www.w3.org/2000/svg"/>');
});

describe('uploading a site build into the static bucket', () => {
  it('writes every file the first time, then only what changed', async () => {
    const first = await uploadSite(stack.deps.staticStore, dist, { sourceHash: 'src-1' });
    expect(first).toMatchObject({ files: 8, uploaded: 8 });
    write('skills/pretty-json/index.html', page('Pretty JSON 2.0'));
    write('skills/new-skill/index.html', page('New skill'));
    const second = await uploadSite(stack.deps.staticStore, dist, { sourceHash: 'src-1' });
    expect(second).toMatchObject({ files: 9, uploaded: 2 });
    const manifest = await readSiteManifest(stack.deps.staticStore);
    expect(manifest?.sourceHash).toBe('src-1');
    expect(Object.keys(manifest!.files)).toHaveLength(9);
  });

  it('uploads assets before the pages that reference them', async () => {
    const order: string[] = [];
    const stop = stack.deps.staticStore.onWrite((key) => order.push(key));
    write('_astro/site.def456.css', 'p{}');
    write('index.html', page('Home, restyled'));
    await uploadSite(stack.deps.staticStore, dist, { sourceHash: 'src-2' });
    stop();
    expect(order).toEqual(['_astro/site.def456.css', 'index.html', SITE_MANIFEST_KEY]);
  });
});

describe('the local CDN serving the site', () => {
  it('serves pages at folder paths, with or without the trailing slash, as cacheable HTML', async () => {
    for (const [path, title] of [
      ['/', 'Home, restyled'],
      ['/skills/pretty-json/', 'Pretty JSON 2.0'],
      ['/skills/pretty-json', 'Pretty JSON 2.0'],
      ['/dashboard/', 'Dashboard'],
    ] as const) {
      const res = await stack.request(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('public, max-age=300');
      expect(await res.text()).toContain(`<h1>${title}</h1>`);
    }
  });

  it('serves hashed assets as immutable, with ETag, 304 and compression', async () => {
    const res = await stack.request('/_astro/site.abc123.css', { headers: { 'accept-encoding': 'gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-encoding')).toBe('gzip');
    const again = await stack.request('/_astro/site.abc123.css', { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
    expect((await stack.request('/favicon.svg')).headers.get('content-type')).toBe('image/svg+xml');
  });

  it('answers a skill page the build did not make with the fallback page, its noscript link naming the skill', async () => {
    await stack.deps.staticStore.put(registryKey('published-after-the-build'), '{}');
    const res = await stack.request('/skills/published-after-the-build/');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<h1>Skill fallback</h1>');
    expect(html).toContain('<a href="/api/registry/published-after-the-build">registry document</a>');
    const again = await stack.request('/skills/published-after-the-build/', { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('answers the page of a slug the registry does not know with the 404 page', async () => {
    const res = await stack.request('/skills/no-such-skill/');
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('Page not found');
  });

  it('answers an author page the build did not make with the author fallback page', async () => {
    const res = await stack.request('/authors/new-author/');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<h1>Author fallback</h1>');
  });

  it('answers other missing pages with the 404 page, and API paths with JSON', async () => {
    const missing = await stack.request('/no/such/page/');
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('Page not found');
    for (const path of ['/api/nothing-here', '/registry/pretty-json.json', '/_site/manifest.json']) {
      const res = await stack.request(path);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
  });

  it('answers the same pages at /api/pages/<path>/index.html, where CloudFront asks for a page the bucket does not have', async () => {
    const asked = async (path: string) => {
      const res = await stack.request(`/api/pages${path}index.html`);
      return { status: res.status, type: res.headers.get('content-type'), cache: res.headers.get('cache-control'), html: await res.text() };
    };
    const known = await asked('/skills/published-after-the-build/');
    expect(known).toMatchObject({ status: 200, type: 'text/html; charset=utf-8', cache: 'public, max-age=300' });
    expect(known.html).toContain('<h1>Skill fallback</h1>');
    expect(known.html).toContain('<a href="/api/registry/published-after-the-build">registry document</a>');
    for (const unknown of ['/skills/no-such-skill/', '/skills/Not_A_Slug/', `/skills/${'a'.repeat(65)}/`]) {
      const answer = await asked(unknown);
      expect(answer, unknown).toMatchObject({ status: 404, type: 'text/html; charset=utf-8' });
      expect(answer.html).toContain('Page not found');
    }
    const author = await asked('/authors/new-author/');
    expect(author.status).toBe(200);
    expect(author.html).toContain('<h1>Author fallback</h1>');
    // Any other page path is the 404 page: nothing else of the bucket is reachable this way.
    for (const path of ['/no/such/page/', '/registry/published-after-the-build.json/', '/skills/published-after-the-build/extra/', '/_site/manifest.json/']) {
      const answer = await asked(path);
      expect(answer, path).toMatchObject({ status: 404, type: 'text/html; charset=utf-8' });
      expect(answer.html).toContain('Page not found');
    }
    const asset = await stack.request('/api/pages/_astro/gone.js');
    expect([asset.status, await asset.text()]).toEqual([404, expect.stringContaining('Page not found')]);
  });

  it('still answers the API and the data tree as before', async () => {
    expect((await stack.request('/api/health')).status).toBe(200);
    expect((await stack.request('/.well-known/skills.json')).status).toBe(404); // nothing published yet
  });
});

describe('a new store whose first site build has not finished', () => {
  it('answers every site path with HTML at once, then the real pages once the first upload is complete', async () => {
    const workDir = mkdtempSync(join(tmpdir(), 'skillpress-site-work-'));
    const fresh = await createTestStack({}, {}, { site: { workDir } });
    try {
      for (const path of ['/', '/skills/pretty-json/', '/categories/', '/no/such/page/']) {
        const res = await fresh.request(path);
        expect([res.status, res.headers.get('content-type'), res.headers.get('cache-control')], path).toEqual([200, 'text/html; charset=utf-8', 'no-store']);
        expect(res.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
        expect(await res.text()).toContain('The catalog site is being built');
      }
      expect((await fresh.request('/api/nothing-here')).headers.get('content-type')).toMatch(/^application\/json/);

      // The upload finishes: from then on the bucket's pages, and its 404 page, answer.
      await uploadSite(fresh.deps.staticStore, dist, { sourceHash: siteSourceHash() });
      await fresh.runtime.site!.start();
      expect(await (await fresh.request('/')).text()).toContain('<h1>Home, restyled</h1>');
      expect((await fresh.request('/no/such/page/')).status).toBe(404);
    } finally {
      await fresh.runtime.site!.stop();
      rmSync(workDir, { recursive: true, force: true });
    }
  });

  it('answers site paths with the JSON 404 when this server builds no site and none is stored', async () => {
    const bare = await createTestStack();
    const res = await bare.request('/');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/SKILLPRESS_SITE=0/);
  });
});
