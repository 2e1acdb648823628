// Child process: the embedded S3 (s3rver), run with --openssl-legacy-provider, which its
// pagination needs on Node 20. Reports its port over IPC and exits when the parent goes away.
import { createRequire } from 'node:module';
import S3rver from 's3rver';

// s3rver lists a bucket by walking its folders in readdir order and pages with "keys after the
// last one", which assumes the walk goes in key order. Folders do not list sorted (tmpfs, ext4),
// and even sorted names put `a/b.json` (folder `a`) before `a.json`, so listings of more than
// 1,000 keys silently skipped some. Sorting each folder by the keys its entries stand for makes
// the walk go in S3's order, so pagination sees every key once.
const fsExtra = createRequire(createRequire(import.meta.url).resolve('s3rver'))('fs-extra');
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

const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: process.env.EMBEDDED_PATH });
const { port } = await server.run();
process.send?.({ port });
process.on('disconnect', () => server.close(() => process.exit(0)));
