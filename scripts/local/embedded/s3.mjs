// Child process: the embedded S3 (s3rver), run with --openssl-legacy-provider, which its
// pagination needs on Node 20. Reports its port over IPC and exits when the parent goes away.
// Two of s3rver's file-store habits break guarantees S3 gives and the service relies on; they
// are corrected here, before the server starts.
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, ftruncateSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import S3rver from 's3rver';

const fromS3rver = createRequire(createRequire(import.meta.url).resolve('s3rver/package.json'));
const fsExtra = fromS3rver('fs-extra');
const FilesystemStore = fromS3rver('./lib/stores/filesystem');
const S3Object = fromS3rver('./lib/models/object');
const S3Bucket = fromS3rver('./lib/models/bucket');
const { getConfigModel } = fromS3rver('./lib/models/config');

// 1. Listing order. s3rver lists a bucket by walking its folders in readdir order and pages
// with "keys after the last one", which assumes the walk goes in key order. Folders do not list
// sorted (tmpfs, ext4), and even sorted names put `a/b.json` (folder `a`) before `a.json`, so
// listings of more than 1,000 keys silently skipped some. Sorting each folder by the keys its
// entries stand for makes the walk go in S3's order, so pagination sees every key once.
const readdirSync = fsExtra.readdirSync;
const keyOf = (name) => {
  const suffix = name.indexOf('._S3rver_');
  return Buffer.from(suffix >= 0 ? name.slice(0, suffix) : `${name}/`);
};
fsExtra.readdirSync = function sortedReaddirSync(path, options) {
  const names = readdirSync.call(this, path, options);
  if (options !== undefined) return names;
  return names
    .map((name) => [keyOf(name), name])
    .sort(([a], [b]) => Buffer.compare(a, b))
    .map(([, name]) => name);
};

// 2. Whole objects, and 3. the cost of a request. s3rver wrote an object's bytes straight into
// its file and acknowledged the PUT before they were all on disk, and a GET took the length from
// one look at the file and the bytes from another; so a GET during (or just after) a PUT
// answered 200 with a truncated or mixed object. S3 is read-after-write consistent and never
// serves part of an object. And every file operation went through libuv's thread pool: a small
// PUT made about sixteen hand-offs (bucket check, CORS and website lookups, a folder, then each
// file opened, written and closed), and on this 2-core machine those hand-offs made a 300-byte
// PUT take ~10 ms. Now the request body is read whole (objects here are a few MB at most), and
// an object's files are read and written with synchronous calls, all in one turn of the event
// loop: no other request can see some of its files new and others old, or a file half written.
// They are overwritten in place, and never emptied first: ext4 (auto_da_alloc) flushes a file
// to disk when it is renamed over another or truncated to nothing and written again, which here
// blocked the server for 1.3 ms per small file and 4 ms per 300 kB catalog, against 0.02 and
// 0.04 ms to write over the old bytes and cut the file to its new length.
// The process only ever stops between turns: it ignores SIGINT and SIGTERM and exits once its
// parent has gone (see the end of this file).
const missingAsNull = (read) => {
  try {
    return read();
  } catch (error) {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
    throw error;
  }
};
const writeWhole = (path, bytes) => {
  const data = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
  // Created when missing, never emptied when present (O_TRUNC is what ext4 flushes for).
  const file = openSync(path, constants.O_WRONLY | constants.O_CREAT, 0o644);
  try {
    for (let at = 0; at < data.length; ) at += writeSync(file, data, at, data.length - at, at);
    ftruncateSync(file, data.length);
  } finally {
    closeSync(file);
  }
};
// An object is two files: its bytes, and a metadata file that also holds its MD5 (`etag`).
// s3rver kept the MD5 in a third file; creating a file costs this machine's ext4 0.1–0.5 ms of
// kernel time, and a publish creates a few objects. Folders written with a third file still
// read: their MD5 file is used when the metadata has none (and s3rver's delete removes it).
const metadataJson = (metadata, md5) =>
  JSON.stringify(
    {
      ...Object.fromEntries(Object.entries(metadata ?? {}).filter(([name]) => S3Object.ALLOWED_METADATA.includes(name) || name.startsWith('x-amz-meta-'))),
      etag: JSON.stringify(md5),
    },
    null,
    2,
  );
const md5Hex = (bytes) => createHash('md5').update(bytes).digest('hex');
const readStored = (store, bucket, key) => missingAsNull(() => JSON.parse(readFileSync(store.getResourcePath(bucket, key, 'metadata.json'), 'utf8')));
/** The object's MD5 as stored, without reading its bytes; null when nothing says. */
const storedMd5 = (store, bucket, key, stored) =>
  (typeof stored?.etag === 'string' ? JSON.parse(stored.etag) : null) ??
  missingAsNull(() => readFileSync(store.getResourcePath(bucket, key, 'object.md5'), 'utf8'));

FilesystemStore.prototype.putObject = async function putObject(object) {
  const bytes = Buffer.isBuffer(object.content) ? object.content : Buffer.concat(await object.content.toArray());
  const digest = md5Hex(bytes);
  const objectPath = this.getResourcePath(object.bucket, object.key, 'object');
  try {
    writeWhole(objectPath, bytes);
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
    mkdirSync(dirname(objectPath), { recursive: true }); // its folder's first object
    writeWhole(objectPath, bytes);
  }
  writeWhole(this.getResourcePath(object.bucket, object.key, 'metadata.json'), metadataJson(object.metadata, digest));
  return { size: bytes.length, md5: digest };
};
FilesystemStore.prototype.putMetadata = async function putMetadata(bucket, key, metadata, md5) {
  md5 ??= storedMd5(this, bucket, key, readStored(this, bucket, key)) ?? md5Hex(readFileSync(this.getResourcePath(bucket, key, 'object')));
  writeWhole(this.getResourcePath(bucket, key, 'metadata.json'), metadataJson(metadata, md5));
};
FilesystemStore.prototype.copyObject = async function copyObject(srcBucket, srcKey, destBucket, destKey, replacementMetadata) {
  const bytes = readFileSync(this.getResourcePath(srcBucket, srcKey, 'object'));
  await this.putObject({ bucket: destBucket, key: destKey, content: bytes, metadata: replacementMetadata ?? readStored(this, srcBucket, srcKey) });
  return this.getMetadata(destBucket, destKey);
};

FilesystemStore.prototype.getObject = async function getObject(bucket, key, options) {
  // One open file gives the bytes, their length and their ETag, so they always agree.
  const file = missingAsNull(() => openSync(this.getResourcePath(bucket, key, 'object'), 'r'));
  if (file === null) return null;
  let bytes, mtime;
  try {
    bytes = readFileSync(file);
    ({ mtime } = fstatSync(file));
  } finally {
    closeSync(file);
  }
  const stored = readStored(this, bucket, key) ?? {};
  const metadata = {
    ...stored,
    etag: JSON.stringify(md5Hex(bytes)),
    'content-length': bytes.length,
    'last-modified': mtime.toUTCString(),
  };
  const range = { start: options?.start || 0, end: Math.min(options?.end || Infinity, Math.max(0, bytes.length - 1)) };
  const satisfiable = range.start >= 0 && range.end >= range.start;
  const object = new S3Object(bucket, key, satisfiable ? Readable.from([bytes.subarray(range.start, range.end + 1)]) : null, metadata);
  if (options && (options.start !== undefined || options.end)) object.range = range;
  return object;
};

/** What a listing shows for each object, from its metadata file (see putObject). */
FilesystemStore.prototype.getMetadata = async function getMetadata(bucket, key) {
  const objectPath = this.getResourcePath(bucket, key, 'object');
  const { mtime, size } = statSync(objectPath); // throws for a missing object, as s3rver expects
  const stored = readStored(this, bucket, key);
  const md5 = storedMd5(this, bucket, key, stored) ?? md5Hex(readFileSync(objectPath));
  return { ...stored, etag: JSON.stringify(md5), 'last-modified': mtime.toUTCString(), 'content-length': size };
};

FilesystemStore.prototype.existsObject = async function existsObject(bucket, key) {
  return missingAsNull(() => statSync(this.getResourcePath(bucket, key, 'object'))) !== null;
};

// Asked on every request (the bucket) and on every object request (its CORS and website
// configuration files, which are almost never there: a bucket's are remembered, and forgotten
// whenever any configuration is put or deleted).
FilesystemStore.prototype.getBucket = async function getBucket(bucket) {
  const stat = missingAsNull(() => statSync(this.getBucketPath(bucket)));
  return stat?.isDirectory() ? new S3Bucket(bucket, stat.birthtime) : null;
};
const bucketConfigs = new Map();
FilesystemStore.prototype.getSubresource = async function getSubresource(bucket, key, resourceType) {
  const read = () => {
    const data = missingAsNull(() => readFileSync(this.getResourcePath(bucket, key, `${resourceType}.xml`)));
    return data === null ? null : new (getConfigModel(resourceType))(data.toString());
  };
  if (key !== undefined) return read();
  const id = `${bucket}/${resourceType}`;
  if (!bucketConfigs.has(id)) bucketConfigs.set(id, read());
  return bucketConfigs.get(id);
};
for (const change of ['putSubresource', 'deleteSubresource', 'putBucket', 'deleteBucket']) {
  const original = FilesystemStore.prototype[change];
  FilesystemStore.prototype[change] = async function (...args) {
    bucketConfigs.clear();
    try {
      return await original.apply(this, args);
    } finally {
      bucketConfigs.clear();
    }
  };
}

const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: process.env.EMBEDDED_PATH });
// 4. Its request log. Silent still formats a coloured line for every response (koa-logger) and
// hands it to a muted logger: a tenth of a millisecond a request, for nothing.
server.middleware = server.middleware.filter((middleware) => middleware.name !== 'logger');
// Ctrl-C in a terminal signals the whole process group. The parent's stop still needs this
// server (it writes the last install counts and rebuilds), and a write must not be cut short:
// so signals are ignored here, and the process exits once the parent lets go, below. Ignored
// before the port is announced: a parent may signal as soon as it has the port.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
const { port } = await server.run();
process.on('disconnect', () => server.close(() => process.exit(0)));
process.send?.({ port });
