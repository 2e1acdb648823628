import { describe, expect, it } from 'vitest';
import { runInProcess } from '../support/cli-in-process.ts';
import { type FakeAnswer, type FakeRegistry, fakeRegistryWorkspace, type Route } from '../support/fake-registry.ts';

/**
 * The CLI reads the catalog (for its "did you mean") in pages (docs/api.md §11.5): the index,
 * then only the pages whose ETag its cache lacks; `/.well-known/skills.json` on a registry
 * without pages.
 */

const { work, env, start } = fakeRegistryWorkspace('catalog-pages');
let registry: FakeRegistry | undefined;

const entry = (slug: string, description = `About ${slug}`) => ({
  id: `id-${slug}`,
  slug,
  name: slug,
  description,
  category: 'tools',
  author: 'ann',
  currentVersion: '1.0.0',
  paid: false,
  updatedAt: '2026-11-01T00:00:00.000Z',
  registry: `/api/registry/${slug}`,
});

/** A registry with two pages whose skills and ETags the test changes; answers 304 to a matching If-None-Match. */
function pagedRegistry() {
  const pages = new Map([
    [0, { etag: '"p0-a"', skills: [entry('alpha-tool'), entry('beta-tool')] }],
    [3, { etag: '"p3-a"', skills: [entry('gamma-tool')] }],
  ]);
  const index = () => ({
    schemaVersion: 1,
    generatedAt: '2026-11-28T00:00:00.000Z',
    count: 3,
    pageSize: 500,
    pages: [...pages].map(([page, p]) => ({ page, path: `/catalog/page-${page}.json`, first: p.skills[0]!.slug, count: p.skills.length, etag: p.etag })),
  });
  const route: Route = (url, headers) => {
    const answer = (body: unknown, etag: string): FakeAnswer =>
      headers?.['if-none-match'] === etag ? { status: 304, headers: { etag }, body: '' } : { body, headers: { etag, 'cache-control': 'public, max-age=300' } };
    if (url.pathname === '/catalog/index.json') return answer(index(), `"index-${[...pages.values()].map((p) => p.etag).join()}"`);
    const page = /^\/catalog\/page-(\d+)\.json$/.exec(url.pathname);
    const p = page ? pages.get(Number(page[1])) : undefined;
    if (p) return answer({ schemaVersion: 1, page: Number(page![1]), count: p.skills.length, skills: p.skills }, p.etag);
    return undefined;
  };
  return { pages, route };
}

/** `skillpress info` of a misspelt slug: the "did you mean" comes from the catalog. */
const misspelt = async (url: string, slug: string) => {
  const run = await runInProcess(['info', slug, '--registry', url], { cwd: work, env });
  expect(run.code).not.toBe(0);
  return run.stderr;
};
const catalogReads = () => registry!.requests.filter((path) => !path.startsWith('/api/'));

describe('the catalog in pages, as the CLI reads it', () => {
  it('reads every page once, then only the index while the pages keep their ETags, then the one page that changed', async () => {
    const { pages, route } = pagedRegistry();
    registry = await start(route);
    expect(await misspelt(registry.url, 'alpha-tol')).toContain('alpha-tool');
    expect(catalogReads().sort()).toEqual(['/catalog/index.json', '/catalog/page-0.json', '/catalog/page-3.json']);

    registry.requests.length = 0;
    expect(await misspelt(registry.url, 'gamma-tol')).toContain('gamma-tool');
    expect(catalogReads()).toEqual(['/catalog/index.json']);

    registry.requests.length = 0;
    pages.set(3, { etag: '"p3-b"', skills: [entry('delta-tool')] });
    expect(await misspelt(registry.url, 'delta-tol')).toContain('delta-tool');
    expect(catalogReads()).toEqual(['/catalog/index.json', '/catalog/page-3.json']);
  });

  it('reads /.well-known/skills.json from a registry without pages', async () => {
    registry = await start((url) =>
      url.pathname === '/.well-known/skills.json' ? { body: { schemaVersion: 1, generatedAt: '', count: 1, skills: [entry('solo-tool')] } } : undefined,
    );
    expect(await misspelt(registry.url, 'solo-tol')).toContain('solo-tool');
    expect(catalogReads()).toEqual(['/catalog/index.json', '/.well-known/skills.json']);
  });

  it.each([
    ['another host', 'https://evil.example/catalog/page-0.json'],
    ['a path outside the catalog', '/catalog/../api/me'],
    ['a page that is not a file of pages', '/catalog/page-0.json?x=1'],
  ])('refuses an index that names %s, asking for nothing it names', async (_, path) => {
    registry = await start((url) =>
      url.pathname === '/catalog/index.json'
        ? { body: { schemaVersion: 1, generatedAt: '', count: 1, pageSize: 500, pages: [{ page: 0, path, first: 'a', count: 1, etag: '"x"' }] } }
        : undefined,
    );
    // The "did you mean" is best effort: the refused index leaves the plain not_found.
    expect(await misspelt(registry.url, 'a-tol')).not.toContain('did you mean');
    expect(catalogReads()).toEqual(['/catalog/index.json']);
  });
});
