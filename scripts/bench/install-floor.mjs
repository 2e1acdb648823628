// The install bench's floor (scripts/bench/install.ts): a bare client that makes the requests
// `skillpress install` makes — the signing keys beside one resolve, then every version's bundle
// from the CDN, marked as an install — and writes the files, checking nothing: no signature, no
// integrity, no file names, no lockfile, no swap into place. What it takes is what the protocol
// and this machine cost; whatever our CLI takes beyond it is our code's.
//
// Usage: node install-floor.mjs <registry origin> <slug> ... (writes under ./.agents/skills).
// Plain JavaScript on node:http, as the CLI's own transport is, so it runs on the bench's Node 22
// without a loader and without undici's start.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const http = require('node:http');
const zlib = require('node:zlib');
const { mkdir, writeFile } = require('node:fs/promises');

const [base, ...slugs] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: true });

/** The body of a GET, decoded as the CLI decodes it. */
function get(path) {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${path}`, { agent, headers: { accept: 'application/json', 'accept-encoding': 'gzip, deflate, br' } }, (res) => {
      const coding = res.headers['content-encoding'];
      const body =
        coding === 'br'
          ? res.pipe(zlib.createBrotliDecompress())
          : coding === 'gzip'
            ? res.pipe(zlib.createGunzip())
            : coding === 'deflate'
              ? res.pipe(zlib.createInflate())
              : res;
      const chunks = [];
      body.on('data', (chunk) => chunks.push(chunk));
      body.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`GET ${path}: ${res.statusCode}`))));
      body.on('error', reject);
    });
    req.on('error', reject);
  });
}

const keys = get('/.well-known/skillpress/keys.json');
const resolved = JSON.parse((await get(`/api/resolve?skills=${slugs.join(',')}`)).toString());
await Promise.all(
  resolved.skills.map(async ({ slug, registry }) => {
    const bundle = JSON.parse((await get(`/bundles/${slug}/${registry.currentVersion}.json?via=install`)).toString());
    for (const file of bundle.files) {
      const path = join('.agents/skills', slug, file.filename);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, Buffer.from(file.content, file.encoding === 'base64' ? 'base64' : 'utf8'), { mode: file.executable ? 0o755 : 0o644 });
    }
  }),
);
await keys;
agent.destroy();
