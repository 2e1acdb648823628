// Child process: the embedded S3 (s3rver), run with --openssl-legacy-provider, which its
// pagination needs on Node 20. Reports its port over IPC and exits when the parent goes away.
// Two of s3rver's file-store habits break guarantees S3 gives and the service relies on; they
// are corrected here, before the server starts.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import S3rver from 's3rver';

const fromS3rver = createRequire(createRequire(import.meta.url).resolve('s3rver/package.json'));
const fsExtra = fromS3rver('fs-extra');
const FilesystemStore = fromS3rver('./lib/stores/filesystem');
const S3Object = fromS3rver('./lib/models/object');

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
  return names.map((name) => [keyOf(name), name]).sort(([a], [b]) => Buffer.compare(a, b)).map(([, name]) => name);
};

// 2. Whole objects. s3rver wrote an object's bytes straight into its file and acknowledged the
// PUT before they were all on disk, and a GET took the length from one look at the file and
// the bytes from another; so a GET during (or just after) a PUT answered 200 with a truncated
// or mixed object. S3 is read-after-write consistent and never serves part of an object. Every
// file of an object is now written beside it and renamed into place once complete, and a GET
// takes the bytes, their length and their ETag from the one file it opened.
const writeAtomically = async (path, source) => {
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await pipeline(source, createWriteStream(temp));
  await rename(temp, path);
};
FilesystemStore.prototype.putObject = async function putObject(object) {
  const objectPath = this.getResourcePath(object.bucket, object.key, 'object');
  await mkdir(dirname(objectPath), { recursive: true });
  const md5 = createHash('md5');
  let size = 0;
  const content = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content;
  const measure = new Transform({
    transform(chunk, encoding, callback) {
      md5.update(chunk, encoding);
      size += chunk.length;
      callback(null, chunk);
    },
  });
  // The metadata does not depend on the bytes: it is written while they stream in.
  const [digest] = await Promise.all([
    writeAtomically(objectPath, content.pipe(measure)).then(() => md5.digest('hex')),
    this.putMetadata(object.bucket, object.key, object.metadata),
  ]);
  await writeAtomically(this.getResourcePath(object.bucket, object.key, 'object.md5'), Readable.from([digest]));
  return { size, md5: digest };
};
FilesystemStore.prototype.putMetadata = async function putMetadata(bucket, key, metadata, md5) {
  const json = Object.fromEntries(Object.entries(metadata ?? {}).filter(([name]) => S3Object.ALLOWED_METADATA.includes(name) || name.startsWith('x-amz-meta-')));
  await Promise.all([
    md5 ? writeAtomically(this.getResourcePath(bucket, key, 'object.md5'), Readable.from([md5])) : undefined,
    writeAtomically(this.getResourcePath(bucket, key, 'metadata.json'), Readable.from([JSON.stringify(json, null, 2)])),
  ]);
};

FilesystemStore.prototype.getObject = async function getObject(bucket, key, options) {
  let file;
  try {
    file = await open(this.getResourcePath(bucket, key, 'object'), 'r');
  } catch (error) {
    if (error.code === 'ENOENT') return null;
    throw error;
  }
  // One open file gives the bytes, their length and their ETag, so they always agree. The
  // bytes are read whole (objects here are a few MB at most) and the file closed at once: a
  // stream left open would hold its descriptor until garbage collection whenever s3rver
  // answers 304 without reading it.
  let bytes, mtime;
  try {
    [bytes, { mtime }] = await Promise.all([file.readFile(), file.stat()]);
  } finally {
    await file.close();
  }
  const stored = await readFile(this.getResourcePath(bucket, key, 'metadata.json'), 'utf8').then(JSON.parse, (error) => (error.code === 'ENOENT' ? {} : Promise.reject(error)));
  const metadata = {
    ...stored,
    etag: JSON.stringify(createHash('md5').update(bytes).digest('hex')),
    'content-length': bytes.length,
    'last-modified': mtime.toUTCString(),
  };
  const range = { start: options?.start || 0, end: Math.min(options?.end || Infinity, Math.max(0, bytes.length - 1)) };
  const satisfiable = range.start >= 0 && range.end >= range.start;
  const object = new S3Object(bucket, key, satisfiable ? Readable.from([bytes.subarray(range.start, range.end + 1)]) : null, metadata);
  if (options && (options.start !== undefined || options.end)) object.range = range;
  return object;
};

const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: process.env.EMBEDDED_PATH });
const { port } = await server.run();
process.send?.({ port });
process.on('disconnect', () => server.close(() => process.exit(0)));
