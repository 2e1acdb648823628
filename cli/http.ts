import { readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256Hex } from '../core/bundle.ts';
import { formatBytes } from '../core/format-bytes.ts';
import packageJson from './package.json' with { type: 'json' };
import { CliError } from './cli-error.ts';
import type { HttpAnswer, Io } from './io.ts';

/**
 * JSON over HTTP for the client. Server errors keep their code (`{"error":{code,message}}`);
 * an unreachable or broken server becomes `network_error` / `bad_response`. Idempotent GETs are
 * retried twice on network failures and 502/503/504. Registry metadata can be revalidated from
 * an on-disk cache with If-None-Match, so an unchanged document costs a 304 and no body. No body
 * is read past `maxBytes`: a broken or hostile server cannot make the client hold gigabytes.
 */

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'DELETE';
  body?: unknown;
  apiKey?: string;
  query?: Record<string, string | undefined>;
  /** Keep the body with its ETag and revalidate it next time (public metadata only). */
  revalidate?: boolean;
  /**
   * The ETag the registry says the document has now (the catalog's index names its pages'): a
   * cached copy with that ETag is used without asking at all.
   */
  currentEtag?: string;
  /** The largest body this answer can have (errors included); {@link SMALL_ANSWER_BYTES} when unsaid. */
  maxBytes?: number;
  /**
   * Ask for gzip or brotli: worth it for large answers (the catalog and version lists, which grow
   * with the registry, and deliveries); a small registry document costs more to decompress than
   * to send.
   */
  compressed?: boolean;
}

/** Errors and the answers to writes are small JSON objects; 1 MiB is far beyond any of them. */
export const SMALL_ANSWER_BYTES = 1024 * 1024;

interface CachedResponse {
  url: string;
  etag: string;
  body: string;
}

const TIMEOUT_MS = 30_000;
const RETRY_DELAYS_MS = [250, 750];
const RETRY_STATUSES = new Set([502, 503, 504]);

export const CLI_VERSION: string = packageJson.version;

export class Http {
  /** Cache entries this process wrote, by URL. */
  private readonly written = new Map<string, CachedResponse>();

  constructor(
    readonly base: string,
    private readonly io: Io,
    private readonly cacheFolder?: string,
  ) {}

  async json<T>(path: string, options: RequestOptions = {}): Promise<T> {
    return (await this.jsonAndBytes<T>(path, options)).value;
  }

  /**
   * {@link json}, and the body's bytes as they arrived, for a caller that checks them as they
   * are (delivery); none when a cached copy answered.
   */
  async jsonAndBytes<T>(path: string, options: RequestOptions = {}): Promise<{ value: T; bytes?: Uint8Array }> {
    const method = options.method ?? 'GET';
    const url = new URL(this.base + path);
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, value);
    // What messages may show: never the query, which can carry a download token.
    const shown = `${method} ${this.base}${path}`;
    const cached = options.revalidate ? this.readCache(url.href) : undefined;
    if (cached && options.currentEtag !== undefined && sameEntity(cached.etag, options.currentEtag)) return { value: parse<T>(cached.body, shown) };

    const headers: Record<string, string> = {
      accept: 'application/json',
      'accept-encoding': options.compressed ? 'gzip, deflate, br' : 'identity',
      'user-agent': `skillpress-cli/${CLI_VERSION} node/${process.versions.node}`,
    };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    if (cached) headers['if-none-match'] = cached.etag;

    const response = await this.send(url, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) }, shown);
    if (response.status === 304 && cached) return { value: parse<T>(cached.body, shown) };
    const bytes = await readBody(response, options.maxBytes ?? SMALL_ANSWER_BYTES, shown);
    const text = textOf(bytes);
    if (!response.ok) throw errorFrom(response, text, shown);
    const value = parse<T>(text, shown);
    const etag = response.headers.get('etag');
    if (options.revalidate && etag && !/no-store|private/.test(response.headers.get('cache-control') ?? '')) {
      this.writeCache({ url: url.href, etag, body: text });
    }
    return { value, bytes };
  }

  private async send(url: URL, init: { method: string; headers: Record<string, string>; body?: string }, shown: string): Promise<HttpAnswer> {
    for (let attempt = 0; ; attempt++) {
      const retry = init.method === 'GET' && attempt < RETRY_DELAYS_MS.length;
      try {
        const response = await this.io.fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
        if (!retry || !RETRY_STATUSES.has(response.status)) return response;
        await response.body?.cancel();
      } catch (error) {
        // Nothing listening is not a blip: say so at once instead of after the retries.
        const refused = errorCode(error) === 'ECONNREFUSED';
        if (!retry || refused) throw networkError(error, shown, this.base);
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[attempt]));
    }
  }

  private cacheFile(url: string): string | undefined {
    return this.cacheFolder && join(this.cacheFolder, 'http', `${sha256Hex(url)}.json`);
  }

  /**
   * The cache is read synchronously: its files are small, and on the thread pool the reads
   * would queue behind the downloads and the staged writes they are meant to save.
   */
  private readCache(url: string): CachedResponse | undefined {
    const file = this.cacheFile(url);
    if (!file) return undefined;
    // Written by this process, perhaps not on disk yet.
    const written = this.written.get(url);
    if (written) return written;
    try {
      const entry = JSON.parse(readFileSync(file, 'utf8')) as CachedResponse;
      return entry.url === url && typeof entry.etag === 'string' && typeof entry.body === 'string' ? entry : undefined;
    } catch {
      return undefined; // no entry yet, or a damaged one: fetch afresh
    }
  }

  /**
   * Written on the thread pool, behind the answer: making a file can cost as much as fetching a
   * small document (ext4 without a journal looks through recently freed inodes on every create),
   * and the registry documents are written while the next ones are still arriving, before any
   * download. {@link cacheWritesSettled} waits for them. Best effort: a read-only or full cache
   * folder must never fail a command.
   */
  private writeCache(entry: CachedResponse): void {
    const file = this.cacheFile(entry.url);
    if (!file) return;
    this.written.set(entry.url, entry);
    const temp = `${file}.${process.pid}.${++cacheWrites}.tmp`;
    const write = (async () => {
      try {
        await mkdir(join(this.cacheFolder!, 'http'), { recursive: true });
        await writeFile(temp, JSON.stringify(entry));
        await rename(temp, file);
      } catch {
        // caching is an optimisation only
        await rm(temp, { force: true }).catch(() => undefined);
      }
    })();
    pendingCacheWrites.add(write);
    void write.then(() => pendingCacheWrites.delete(write));
  }
}

let cacheWrites = 0;
const pendingCacheWrites = new Set<Promise<void>>();

/** Resolves once every cache entry written so far is in place: a command waits for it before it returns. */
export async function cacheWritesSettled(): Promise<void> {
  while (pendingCacheWrites.size > 0) await Promise.all(pendingCacheWrites);
}

/** The body's bytes, read as they stream in and abandoned as soon as they exceed `maxBytes`. */
async function readBody(response: HttpAnswer, maxBytes: number, shown: string): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  try {
    for (;;) {
      const chunk = await reader?.read();
      if (!chunk || chunk.done || !chunk.value) break;
      size += chunk.value.byteLength;
      if (size > maxBytes) {
        await reader!.cancel().catch(() => undefined);
        throw new CliError(
          'bad_response',
          `${shown} answered with more than ${formatBytes(maxBytes)}, more than the registry ever sends for it; stopped reading`,
        );
      }
      chunks.push(chunk.value);
    }
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError('network_error', `${shown}: the connection broke while reading the answer (${(error as Error).message})`);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/**
 * The body as response.text() decodes it: malformed bytes become U+FFFD and a BOM before the JSON
 * is skipped (a BOM inside a file's content is part of a JSON string, untouched).
 */
const textOf = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

function parse<T>(text: string, shown: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new CliError('bad_response', `${shown} did not answer with JSON`);
  }
}

function errorFrom(response: HttpAnswer, text: string, shown: string): CliError {
  let body: { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const error = body?.error;
  const retryAfter = response.status === 429 ? retryAfterSeconds(response.headers.get('retry-after')) : undefined;
  const wait = retryAfter === undefined ? {} : { retryAfter, hint: `try again in ${retryAfter} s` };
  if (error && typeof error.code === 'string' && typeof error.message === 'string') {
    return new CliError(error.code, error.message, { status: response.status, details: error.details, ...wait });
  }
  return new CliError('bad_response', `${shown} answered HTTP ${response.status} without an error body`, { status: response.status, ...wait });
}

/** `Retry-After` in whole seconds from now: a number of seconds, or an HTTP date (RFC 9110 §10.2.3). */
function retryAfterSeconds(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = /^\s*\d+\s*$/.test(value) ? Number(value) : (Date.parse(value) - Date.now()) / 1000;
  return Number.isFinite(seconds) ? Math.max(0, Math.ceil(seconds)) : undefined;
}

function networkError(error: unknown, shown: string, base: string): CliError {
  const cause = (error as { cause?: { name?: string; message?: string } }).cause;
  // fetch rejects with the timeout itself, node:http with an AbortError caused by it.
  const timedOut = (error as Error).name === 'TimeoutError' || cause?.name === 'TimeoutError';
  const reason = timedOut ? `no answer within ${TIMEOUT_MS / 1000} s` : (errorCode(error) ?? cause?.message ?? (error as Error).message);
  return new CliError('network_error', `${shown}: could not reach the registry (${reason})`, {
    hint: `is ${base} running? Choose a registry with --registry <url> or SKILLPRESS_REGISTRY`,
  });
}

/** The system error code (ECONNREFUSED, …): on the error itself from node:http, on its cause from fetch. */
function errorCode(error: unknown): string | undefined {
  const { code, cause } = error as { code?: unknown; cause?: { code?: unknown } };
  const found = cause?.code ?? code;
  return typeof found === 'string' ? found : undefined;
}

/**
 * Whether two ETags name the same document: a CDN marks the ETag of a compressed answer (weak at
 * CloudFront, `-br` or `-gz` at the local CDN), so those marks are left out.
 */
function sameEntity(a: string, b: string): boolean {
  const bare = (etag: string) =>
    etag
      .replace(/^W\//, '')
      .replace(/^"|"$/g, '')
      .replace(/-(?:br|gz)$/, '');
  return bare(a) !== '' && bare(a) === bare(b);
}
