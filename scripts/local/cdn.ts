import { createHash, randomBytes } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Context } from 'hono';
import { formatCdnLogRecord, installedSlugOfPath } from '#core/cdn-log';
import { type DomainError, notFound } from '#core/errors';
import { securityHeadersFor } from '#core/security-headers';
import {
  fallbackPageFor,
  headersForKey,
  keyForPath,
  pagesInPlaceOf,
  PRECOMPRESSED_KEYS,
  precompressedKey,
  SKILL_FALLBACK_KEY,
  siteKeyForPath,
} from '#core/static-paths';
import type { AppEnv, RouteGroup } from '../../functions/http/env.ts';
import { clientFacts } from '../../functions/http/client.ts';
import { domainErrorAnswer } from '../../functions/http/errors.ts';
import type { StaticStore } from '../../functions/content/static-store.ts';
import { SITE_PENDING_PAGE } from './site-pending-page.ts';

/**
 * What CloudFront does in production, for the local runtime: serves the static bucket at its
 * public paths with the stored Cache-Control, a strong ETag, 304 on If-None-Match, and gzip or
 * brotli on request. Objects are cached in memory; every write to the bucket through
 * {@link StaticStore} refreshes the cache, so a rebuild is visible on the next request.
 *
 * Every other GET is a site page. A skill page the last site build did not make is answered
 * with the skill fallback page, which renders the skill from its registry JSON in the browser,
 * when the registry has that skill, and its `<noscript>` link made the skill's own (an author
 * page likewise, with the author fallback page); any other missing page with the site's 404 page. Until the first site upload of a new store
 * has finished, a missing page is the pending page instead ({@link SITE_PENDING_PAGE}): the
 * listening line comes before that build ends, and no path may answer anything but HTML then.
 *
 * {@link LocalCdn.answer} decides every answer. The app's routes adapt it for requests through
 * Hono (the tests' `app.request()`, and request targets Node's adapter must normalise); the
 * HTTP server hands it plain GETs and HEADs before the app sees them, as CloudFront answers
 * them before API Gateway would (see `http-server.ts`).
 */

/** What the CDN reads of a request. */
export interface CdnRequest {
  method: string;
  /** Decoded, without the query string. */
  path: string;
  /** The query string as sent, without `?`, for the log; absent when there is none. */
  query?: string;
  acceptEncoding: string | undefined;
  ifNoneMatch: string | undefined;
  /** The connection's peer, for the log. */
  address?: string;
  /** The request's headers (names lower-cased), for the log: read only for the files it logs. */
  headers?: () => Record<string, string | string[] | undefined>;
}

/** A whole answer: headers complete (security headers included), the body unless HEAD or 304. */
export interface CdnAnswer {
  status: number;
  headers: Record<string, string>;
  body?: Uint8Array | string;
}

export interface LocalCdnOptions {
  /** True while this runtime builds the site and the bucket holds no complete upload of one yet. */
  sitePending?: () => boolean;
  /**
   * Told a log line (CloudFront's real-time log format, core/cdn-log.ts) for each request of a
   * discovery download or a bundle, as CloudFront's real-time log is configured on those paths alone: the
   * runtime counts installs from these lines through the same code as the log's Lambda.
   */
  log?: (line: string) => void;
}

interface Cached {
  body: Buffer;
  /** Hashed on the first request that needs it, not on every write (see {@link etagOf}). */
  etag?: string;
  contentType: string;
  cacheControl: string;
  /** The security headers for its media type, built once: they go on every response. */
  security: Record<string, string>;
  /** A page made from another (a skill's fallback page): made again when that one changes. */
  madeFrom?: Cached;
  gzip?: Buffer;
  br?: Buffer;
}

const MAX_CACHED_BYTES = 256 * 1024 * 1024;
/**
 * Above this size, compression (done on the request that first asks for it) uses the fastest
 * settings. The catalog at 10,000 skills (3.1 MB) compresses with brotli quality 1 in ~8 ms to
 * 320 kB, against ~75 ms and 315 kB at quality 5, and with gzip level 1 in ~14 ms to 393 kB,
 * against ~27 ms and 370 kB at the default level 6: a few per cent of size for a request that
 * is not held up behind a new catalog's compression.
 */
const FAST_ABOVE = 256 * 1024;

export class LocalCdn {
  private readonly cache = new Map<string, Cached>();
  private cachedBytes = 0;

  constructor(
    private readonly store: StaticStore,
    private readonly options: LocalCdnOptions = {},
  ) {
    store.onWrite((key, body) => this.wrote(key, body));
  }

  /** `key` now holds `body`: written through this process's store, or by the background thread. */
  wrote(key: string, body: Uint8Array): void {
    this.evict(key);
    // A new compressed copy: the document's entry must not keep serving the old one.
    for (const document of PRECOMPRESSED_KEYS) if (key === precompressedKey(document, 'br') || key === precompressedKey(document, 'gzip')) this.evict(document);
    if (body.byteLength <= 4 * 1024 * 1024) this.remember(key, Buffer.from(body));
  }

  readonly routes: RouteGroup = (app) => {
    const serve = async (c: Context<AppEnv>) => {
      const answer = await this.answer({
        method: c.req.method,
        path: c.req.path,
        ...queryOf(c.req.url),
        acceptEncoding: c.req.header('accept-encoding'),
        ifNoneMatch: c.req.header('if-none-match'),
        address: clientFacts(c).address,
        headers: () => c.req.header(),
      });
      // Built whole, security headers included: the app's middleware leaves them as they are.
      c.set('headersComplete', true);
      return new Response((answer.body ?? null) as BodyInit | null, { status: answer.status, headers: answer.headers });
    };
    // Last of all routes: whatever no API route answered. `answer` tells data from pages.
    app.on(['GET', 'HEAD', 'OPTIONS'], '*', serve);
  };

  /** The answer to a GET, HEAD or OPTIONS of `path` (decoded, without the query) that no API route took. */
  async answer(request: CdnRequest): Promise<CdnAnswer> {
    // A preflight is answered for the static tree and the site alone; the API answers none.
    if (request.method === 'OPTIONS') {
      const isStatic = keyForPath(request.path) !== undefined || isDataPath(request.path) || siteKeyForPath(request.path) !== undefined;
      return isStatic ? preflight() : cdnError(notFound('No such route'));
    }
    const key = keyForPath(request.path);
    if (key || isDataPath(request.path)) {
      const object = key ? await this.lookup(key) : undefined;
      if (object && PRECOMPRESSED_KEYS.includes(key!))
        await this.withStoredCopy(key!, object, pickEncoding(request.acceptEncoding ?? '', object.body.byteLength));
      // Public files: any site may read them, as the discovery spec asks (no credentials involved).
      const answer = object
        ? this.respond(request, object, 200, { 'Access-Control-Allow-Origin': '*' })
        : cdnError(notFound(request.path.startsWith('/api/registry/') ? 'No skill with that slug' : 'No such file'));
      if (this.options.log && installedSlugOfPath(request.path)) this.options.log(logLine(request, answer.status));
      return answer;
    }
    return this.answerPage(request);
  }

  private async answerPage(request: CdnRequest): Promise<CdnAnswer> {
    const key = siteKeyForPath(request.path);
    const page = key ? await this.lookup(key) : undefined;
    if (page) return this.respond(request, page);
    if (!key) return cdnError(notFound('No such route'));
    if (this.options.sitePending?.()) return pending(request);
    for (const choice of pagesInPlaceOf(request.path)) {
      const [page, present] = await Promise.all([this.lookup(choice.key), choice.requires ? this.lookup(choice.requires) : true]);
      if (page && present) return this.respond(request, choice.slug ? this.skillFallback(page, choice.slug) : page, choice.status);
    }
    return cdnError(notFound('No such page (this server does not build the site: SKILLPRESS_SITE=0)'));
  }

  /** The fallback page for `slug`, kept per slug beside the page it was made from, so its ETag is hashed once. */
  private skillFallback(page: Cached, slug: string): Cached {
    const key = `${SKILL_FALLBACK_KEY}#${slug}`;
    const made = this.cache.get(key);
    if (made?.madeFrom === page) return made;
    const body = Buffer.from(fallbackPageFor(page.body.toString('utf8'), slug));
    this.evict(key);
    return this.remember(key, body, page);
  }

  private respond(request: CdnRequest, object: Cached, status: 200 | 404 = 200, extra: Record<string, string> = {}): CdnAnswer {
    const encoding = object.contentType === 'application/gzip' ? undefined : pickEncoding(request.acceptEncoding ?? '', object.body.byteLength);
    const tag = etagOf(object);
    const etag = encoding ? `"${tag}-${encoding === 'br' ? 'br' : 'gz'}"` : `"${tag}"`;
    const headers: Record<string, string> = {
      'Content-Type': object.contentType,
      'Cache-Control': object.cacheControl,
      ETag: etag,
      Vary: 'Accept-Encoding',
      ...object.security,
      ...extra,
    };
    if (status === 200 && matches(request.ifNoneMatch, tag)) return { status: 304, headers };
    let body = object.body;
    if (encoding === 'br') body = object.br ??= brotli(object.body);
    if (encoding === 'gzip') body = object.gzip ??= gzipSync(object.body, { level: object.body.byteLength > FAST_ABOVE ? 1 : constants.Z_DEFAULT_COMPRESSION });
    if (encoding) headers['Content-Encoding'] = encoding;
    headers['Content-Length'] = String(body.byteLength);
    return request.method === 'HEAD' ? { status, headers } : { status, headers, body };
  }

  /**
   * Takes the copy of a pre-compressed document the rebuild stored (as CloudFront serves it on
   * AWS) instead of compressing it here; compresses it only when there is none yet.
   */
  private async withStoredCopy(key: string, object: Cached, encoding: 'br' | 'gzip' | undefined): Promise<void> {
    if (!encoding || object[encoding === 'br' ? 'br' : 'gzip']) return;
    const stored = await this.store.get(precompressedKey(key, encoding));
    if (!stored) return;
    if (encoding === 'br') object.br = Buffer.from(stored);
    else object.gzip = Buffer.from(stored);
  }

  private async lookup(key: string): Promise<Cached | undefined> {
    const hit = this.cache.get(key);
    if (hit) return hit;
    const bytes = await this.store.get(key);
    return bytes ? this.remember(key, Buffer.from(bytes)) : undefined;
  }

  private remember(key: string, body: Buffer, like?: Cached): Cached {
    const headers = like ? { contentType: like.contentType, cacheControl: like.cacheControl } : headersForKey(key);
    const entry: Cached = { body, ...headers, security: securityHeadersFor(headers.contentType), ...(like ? { madeFrom: like } : {}) };
    this.cache.set(key, entry);
    this.cachedBytes += body.byteLength;
    for (const [oldest, value] of this.cache) {
      if (this.cachedBytes <= MAX_CACHED_BYTES) break;
      this.cache.delete(oldest);
      this.cachedBytes -= value.body.byteLength;
    }
    return entry;
  }

  private evict(key: string): void {
    const old = this.cache.get(key);
    if (!old) return;
    this.cache.delete(key);
    this.cachedBytes -= old.body.byteLength;
  }
}

/**
 * A browser's preflight for a static file: any origin may read them (no credentials involved),
 * as CloudFront and the bucket's CORS rule answer it in production.
 */
function preflight(): CdnAnswer {
  return {
    status: 204,
    headers: {
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
      'Access-Control-Allow-Headers': '*',
      'Access-Control-Max-Age': '86400',
      ...securityHeadersFor(null),
    },
  };
}

/** The request as CloudFront's real-time log records it, with an id of its own. */
function logLine(request: CdnRequest, status: number): string {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers?.() ?? {})) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return formatCdnLogRecord({
    at: Date.now(),
    address: request.address ?? '-',
    status,
    method: request.method,
    path: request.path,
    ...(request.query ? { query: request.query } : {}),
    ...(headers['user-agent'] ? { userAgent: headers['user-agent'] } : {}),
    requestId: randomBytes(18).toString('base64url'),
    headers,
  });
}

/** `{query}` of a request target or URL, as CloudFront's log has it: the text after `?`, when there is any. */
export function queryOf(target: string): { query?: string } {
  const mark = target.indexOf('?');
  return mark >= 0 && mark < target.length - 1 ? { query: target.slice(mark + 1) } : {};
}

/** The pending page: never cached, since the real page replaces it within seconds. */
function pending(request: CdnRequest): CdnAnswer {
  const headers = { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', ...securityHeadersFor('text/html') };
  return request.method === 'HEAD' ? { status: 200, headers } : { status: 200, headers, body: SITE_PENDING_PAGE };
}

/** A domain error in the contract's shape, with the security headers every answer carries. */
function cdnError(error: DomainError): CdnAnswer {
  const { status, headers, body } = domainErrorAnswer(error);
  return { status, headers: { ...headers, ...securityHeadersFor(headers['Content-Type']!) }, body };
}

/** The data tree's public prefixes: a path under them that names no object is a 404 in JSON, never a page. */
function isDataPath(path: string): boolean {
  return path.startsWith('/api/registry/') || path.startsWith('/.well-known/') || path.startsWith('/bundles/') || path.startsWith('/cli/');
}

/**
 * The object's strong ETag: its MD5 in hex, as S3 gives it and CloudFront serves it, so the
 * ETags the catalog's index names for its pages are the ones served here too. Hashed on first
 * request, not at each write: every rebuild rewrites the catalog and the discovery index, and
 * hashing them at each write cost the request thread milliseconds nobody asked for.
 */
function etagOf(object: Cached): string {
  object.etag ??= createHash('md5').update(object.body).digest('hex');
  return object.etag;
}

function brotli(body: Buffer): Buffer {
  const quality = body.byteLength > FAST_ABOVE ? 1 : constants.BROTLI_MAX_QUALITY;
  return brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength } });
}

/** br over gzip when both are accepted; nothing for tiny bodies or archives (already compressed). */
function pickEncoding(accept: string, size: number): 'br' | 'gzip' | undefined {
  if (size < 256) return undefined;
  const accepted = new Map(
    accept.split(',').map((part) => {
      const [name, ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return [name!.trim(), q === undefined ? 1 : Number(q)] as const;
    }),
  );
  if ((accepted.get('br') ?? 0) > 0) return 'br';
  if ((accepted.get('gzip') ?? 0) > 0) return 'gzip';
  return undefined;
}

/** If-None-Match against any representation of the object (plain, gzip or br), or `*`. */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, '');
    return tag === '*' || tag === `"${etag}"` || tag === `"${etag}-br"` || tag === `"${etag}-gz"`;
  });
}
