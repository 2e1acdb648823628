// `npm start`: the local runtime (scripts/start.ts) run from a bundle, dist/server/start.mjs, built
// here first whenever a source it was made of changed. Loading ~150 TypeScript modules through
// tsx's loader took about 4 s of CPU per start on this 2-core machine, half of it in the loader's
// own threads, once for the server and again for its background thread; the bundle starts on
// 0.9 s of CPU. The end-to-end tests and the benchmarks start the server the same way
// (scripts/local/server-process.ts). Plain JavaScript, so it runs without a TypeScript loader.
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { embedGrammar, REQUIRE_BANNER, statFingerprint } from './esm-bundle.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Where `npm start`'s bundle goes; a test builds into another folder of the same depth. */
const SERVER_DIR = join(root, 'dist', 'server');
/** What a build was made of, and the fingerprint of those files then, beside the bundle. */
const INPUTS = 'inputs.json';

/**
 * The bundles' entries. They land in dist/server/, two folders below the repository root as
 * scripts/local/ and scripts/site/ are, so the paths those modules find from `import.meta.url`
 * (the embedded services, the site, Astro) are the same bundled or not. The background thread
 * (scripts/local/background/thread.ts) starts worker.mjs beside the bundle it runs in, and the
 * scan thread (scripts/local/scan/scan-thread.ts) scan-worker.mjs.
 */
const ENTRIES = {
  start: 'scripts/start.ts',
  worker: 'scripts/local/background/worker.ts',
  'scan-worker': 'scripts/local/scan/scan-worker.ts',
  'rebuild-shard-worker': 'scripts/local/rebuild/shard-worker.ts',
};

/**
 * Size and mtime of every source of ours the last build read, with this file (how it is built)
 * and the manifests that pin the packages it carries: a stat of a few hundred files. A source
 * only joins the bundle through an edit to one that is already in it, so this sees every change
 * that matters.
 */
function fingerprint(files) {
  // Undefined when a source went away: build again.
  return statFingerprint(root, [...files, 'scripts/serve.mjs', 'scripts/esm-bundle.mjs', 'package.json', 'package-lock.json']);
}

function isFresh(out) {
  try {
    const built = JSON.parse(readFileSync(join(out, INPUTS), 'utf8'));
    for (const name of Object.keys(ENTRIES)) statSync(join(out, `${name}.mjs`));
    return built.fingerprint === fingerprint(built.files);
  } catch {
    return false;
  }
}

/**
 * Builds dist/server/ (or `out`) unless it is fresh, and gives whether it built. Each file is
 * written beside its target and renamed into place, and the record of inputs last, so a server
 * starting meanwhile (the test workers start several at once) runs a whole bundle, and a build
 * cut short is done again.
 */
export async function ensureServerBundle(out = SERVER_DIR) {
  if (isFresh(out)) return false;
  const { build } = await import('esbuild');
  const temp = join(out, `.build-${process.pid}`);
  mkdirSync(temp, { recursive: true });
  try {
    const result = await build({
      absWorkingDir: root,
      entryPoints: ENTRIES,
      outdir: temp,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      plugins: [embedGrammar()],
      format: 'esm',
      platform: 'node',
      target: 'node20',
      // The packages too, as the Lambda bundles carry them: one file loads faster than hundreds,
      // and some (secretlint's preset) import JSON in a way only a loader or a bundler accepts.
      mainFields: ['module', 'main'],
      // CommonJS packages in an ES module need a `require`: the bundle makes one.
      banner: { js: REQUIRE_BANNER },
      // Not minified, so functions keep their names in stack traces without esbuild's keepNames,
      // whose __name() call on every function made at run time cost about 1% of a publish's CPU.
      metafile: true,
      logLevel: 'warning',
    });
    for (const name of Object.keys(ENTRIES)) renameSync(join(temp, `${name}.mjs`), join(out, `${name}.mjs`));
    const files = Object.keys(result.metafile.inputs)
      .map((file) => relative(root, join(root, file)))
      .filter((file) => !file.startsWith('node_modules/'));
    writeFileSync(join(temp, INPUTS), `${JSON.stringify({ fingerprint: fingerprint(files), files })}\n`);
    renameSync(join(temp, INPUTS), join(out, INPUTS));
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  return true;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await ensureServerBundle();
  await import(pathToFileURL(join(SERVER_DIR, 'start.mjs')).href);
}
