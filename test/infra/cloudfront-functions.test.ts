import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyForPath } from '#core/static-paths';

/**
 * The CloudFront Functions, run here as CloudFront runs them: the file's `handler` called with a
 * viewer-request event. They are plain JavaScript (cloudfront-js-2.0) and import nothing, so the
 * registry mapping is repeated there; a property test keeps it equal to the one the local CDN
 * uses (core/static-paths.ts).
 */
type CfRequest = { method: string; uri: string; querystring: Record<string, { value: string }>; headers: Record<string, { value: string }> };
type CfResult = CfRequest | { statusCode: number; headers: Record<string, { value: string }> };

function load(file: string): (event: { version: string; request: CfRequest; viewer?: { ip: string } }) => CfResult {
  const code = readFileSync(new URL(`../../infra/cloudfront/${file}`, import.meta.url), 'utf8');
  return new Function(`${code}\nreturn handler;`)();
}

const viewerRequest = (uri: string, query: Record<string, string> = {}) => ({
  version: '1.0',
  request: { method: 'GET', uri, querystring: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, { value: v }])), headers: {} },
});

describe('registry-rewrite.js', () => {
  const handler = load('registry-rewrite.js');

  it('maps a registry path to the registry JSON object and drops the query', () => {
    expect(handler(viewerRequest('/api/registry/pretty-json', { token: 'x' }))).toMatchObject({ uri: '/registry/pretty-json.json', querystring: {} });
  });

  it('maps the versions path to the versions list', () => {
    expect(handler(viewerRequest('/api/registry/pretty-json/versions'))).toMatchObject({ uri: '/registry/pretty-json/versions.json' });
  });

  it.each([
    '/api/registry/',
    '/api/registry/Pretty',
    '/api/registry/a/b',
    '/api/registry/../x',
    '/api/registry/x/versions/1',
    `/api/registry/${'a'.repeat(65)}`,
    '/api/registry/a%2Fb',
  ])('answers %s with an uncached 404 at the edge', (uri) => {
    expect(handler(viewerRequest(uri))).toEqual({ statusCode: 404, statusDescription: 'Not Found', headers: { 'cache-control': { value: 'no-store' } } });
  });

  it('maps exactly the registry paths the local CDN maps, to the same objects', () => {
    const tails = fc.oneof(
      fc.constant(''),
      fc.constant('/'),
      fc.constant('/versions'),
      fc.constant('/versions/'),
      fc.string({ unit: fc.constantFrom(...'/versin.'.split('')), maxLength: 10 }),
    );
    const slugs = fc.string({ unit: fc.constantFrom(...'abcz09-_A./%'.split('')), minLength: 0, maxLength: 70 });
    fc.assert(
      fc.property(slugs, tails, (slug, tail) => {
        const path = `/api/registry/${slug}${tail}`;
        const result = handler(viewerRequest(path));
        const key = keyForPath(path);
        if (key?.startsWith('registry/')) expect(result).toMatchObject({ uri: `/${key}` });
        else expect(result).toMatchObject({ statusCode: 404 });
      }),
      { numRuns: 3000 },
    );
  });
});

describe('site-index.js', () => {
  const handler = load('site-index.js');

  it.each([
    ['/', '/index.html'],
    ['/dashboard/', '/dashboard/index.html'],
    ['/dashboard', '/dashboard/index.html'],
    ['/skills/pretty-json', '/skills/pretty-json/index.html'],
    ['/favicon.svg', '/favicon.svg'],
    ['/_astro/app.1234.js', '/_astro/app.1234.js'],
    ['/v1.2/notes', '/v1.2/notes/index.html'],
  ])('serves %s from %s', (uri, key) => {
    expect(handler(viewerRequest(uri))).toMatchObject({ uri: key });
  });
});

describe('viewer-address.js', () => {
  const handler = load('viewer-address.js');
  const withViewer = (headers: Record<string, { value: string }>) => ({
    ...viewerRequest('/api/deliver/x'),
    viewer: { ip: '198.51.100.7' },
    request: { ...viewerRequest('/api/deliver/x').request, headers },
  });

  it('passes the viewer’s address on to the API', () => {
    expect(handler(withViewer({}))).toMatchObject({ headers: { 'x-skillpress-viewer': { value: '198.51.100.7' } } });
  });

  it('writes over an address the viewer sent itself', () => {
    expect(handler(withViewer({ 'x-skillpress-viewer': { value: '10.0.0.1' } }))).toMatchObject({
      headers: { 'x-skillpress-viewer': { value: '198.51.100.7' } },
    });
  });
});

describe('catalog-encoding.js', () => {
  const handler = load('catalog-encoding.js');
  const withEncoding = (accept?: string) => {
    const event = viewerRequest('/.well-known/skills.json');
    const headers: Record<string, { value: string }> = event.request.headers;
    if (accept !== undefined) headers['accept-encoding'] = { value: accept };
    return handler(event) as CfRequest;
  };

  it.each([
    ['gzip, deflate, br', '/.well-known/skills.json.br'],
    ['br;q=0.5, gzip', '/.well-known/skills.json.br'],
    ['gzip', '/.well-known/skills.json.gz'],
    ['BR;q=0, gzip;q=0.8', '/.well-known/skills.json.gz'],
    ['br;q=0, gzip;q=0', '/.well-known/skills.json'],
    ['identity', '/.well-known/skills.json'],
    ['', '/.well-known/skills.json'],
    [undefined, '/.well-known/skills.json'],
  ])('maps Accept-Encoding %j to %s, the stored copy the local CDN would pick', (accept, uri) => {
    expect(withEncoding(accept).uri).toBe(uri);
  });
});
