import type { S3Client } from '@aws-sdk/client-s3';
import { headersForKey } from '#core/static-paths';
import { getObjectBytes, isMissing, s3Sdk } from './s3.ts';

/**
 * The static bucket: the files the CDN serves. Every write carries the headers docs/api.md §11
 * gives its kind of object. Listeners hear of every write: the full rebuild counts them, and the
 * local CDN keeps its cache coherent (on AWS, CloudFront's TTLs apply).
 */
export type WriteListener = (key: string, body: Uint8Array) => void;

/** What {@link StaticStore.getRecent} keeps in memory at most: thousands of registry documents. */
const RECENT_BYTES = 16 * 1024 * 1024;

export class StaticStore {
  private readonly listeners = new Set<WriteListener>();
  /** Objects read by {@link getRecent}, oldest read first, with when; a write this process hears of replaces its object's. */
  private readonly recent = new Map<string, { bytes: Uint8Array; at: number }>();
  private recentBytes = 0;

  constructor(
    readonly s3: S3Client,
    readonly bucket: string,
  ) {}

  onWrite(listener: WriteListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Writes an object with its kind's headers; returns the ETag S3 gave it. */
  async put(key: string, body: Uint8Array | string, metadata?: Record<string, string>): Promise<string | undefined> {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const headers = headersForKey(key);
    const { PutObjectCommand } = await s3Sdk();
    const out = await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: bytes,
        ContentType: headers.contentType,
        CacheControl: headers.cacheControl,
        ContentEncoding: headers.contentEncoding,
        Metadata: metadata,
      }),
    );
    this.heard(key, bytes);
    for (const listener of this.listeners) listener(key, bytes);
    return out.ETag;
  }

  /**
   * `key` now holds `body`, written by another thread of this process (the local runtime's
   * rebuild): what {@link getRecent} keeps of it is replaced. Writes through {@link put} call it.
   */
  heard(key: string, body: Uint8Array): void {
    if (this.recent.has(key)) this.remember(key, body, Date.now());
  }

  /**
   * The object as read from the bucket at most `maxAgeMs` ago, or as last written through this
   * store or heard of ({@link heard}) since; undefined when it does not exist (not kept). For
   * objects whose readers may be served a copy that old anyway (registry documents, within
   * their Cache-Control): a warm process answers them without a request to S3 each.
   */
  async getRecent(key: string, maxAgeMs: number, now = Date.now()): Promise<Uint8Array | undefined> {
    const kept = this.recent.get(key);
    if (kept && now - kept.at <= maxAgeMs) return kept.bytes;
    const bytes = await this.get(key);
    if (bytes === undefined) this.forget(key);
    else this.remember(key, bytes, now);
    return bytes;
  }

  private remember(key: string, bytes: Uint8Array, at: number): void {
    this.forget(key);
    if (bytes.byteLength > RECENT_BYTES / 16) return;
    this.recent.set(key, { bytes, at });
    this.recentBytes += bytes.byteLength;
    for (const [oldest, entry] of this.recent) {
      if (this.recentBytes <= RECENT_BYTES) break;
      this.recent.delete(oldest);
      this.recentBytes -= entry.bytes.byteLength;
    }
  }

  private forget(key: string): void {
    const kept = this.recent.get(key);
    if (!kept) return;
    this.recent.delete(key);
    this.recentBytes -= kept.bytes.byteLength;
  }

  get(key: string): Promise<Uint8Array | undefined> {
    return getObjectBytes(this.s3, this.bucket, key);
  }

  /**
   * The object with its ETag unless it still has ETag `etag` ('unchanged': a 304, no body
   * moved), or undefined when it does not exist. Lets a rebuild trust its copy of a large shared
   * file.
   */
  async getIfChanged(key: string, etag?: string): Promise<{ bytes: Uint8Array; etag?: string } | 'unchanged' | undefined> {
    const { GetObjectCommand } = await s3Sdk();
    try {
      const out = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, IfNoneMatch: etag }));
      return { bytes: await out.Body!.transformToByteArray(), etag: out.ETag };
    } catch (error) {
      if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 304) return 'unchanged';
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  /** The ETag of an object (quotes removed: the MD5 of its bytes, as {@link list} gives it), or undefined when it does not exist. */
  async etag(key: string): Promise<string | undefined> {
    const { HeadObjectCommand } = await s3Sdk();
    try {
      const out = await this.s3.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return (out.ETag ?? '').replaceAll('"', '');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  /** User metadata of an object, or undefined when it does not exist. */
  async metadata(key: string): Promise<Record<string, string> | undefined> {
    const { HeadObjectCommand } = await s3Sdk();
    try {
      const out = await this.s3.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return out.Metadata ?? {};
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  /** Every key under `prefix` with its ETag (quotes removed). */
  async list(prefix: string): Promise<Map<string, string>> {
    const keys = new Map<string, string>();
    const { ListObjectsV2Command } = await s3Sdk();
    let ContinuationToken: string | undefined;
    do {
      const page = await this.s3.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken }));
      for (const object of page.Contents ?? []) keys.set(object.Key!, (object.ETag ?? '').replaceAll('"', ''));
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return keys;
  }
}
