// Builds the CLI's bundle, dist/cli.mjs: the whole client (its core/ code, semver, yaml and zod
// included) as ES modules that import nothing but Node's built-ins and each other, so the
// published package has no dependencies and starts without resolving any; and beside it the
// package's bin, dist/skillpress.mjs, a launcher that turns on Node's compile cache before it
// loads the bundle. What only some commands need (the scanner, yaml, zod) is split into modules
// of its own that those commands import when they run, so `install` parses a small part.
// Used by `npm run build`, by `npm pack` (prepack: the tarball never holds a stale bundle) and by
// bin.mjs when the sources changed since the last build. Plain JavaScript: bin.mjs must be able
// to run it without a TypeScript loader. `node bundle.mjs` builds once.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { embedGrammar, grammarFiles, REQUIRE_BANNER, statFingerprint } from '../scripts/esm-bundle.mjs';

const cli = fileURLToPath(new URL('.', import.meta.url));
const root = join(cli, '..');

/** Where the build writes the package's files. */
export const DIST = join(cli, 'dist');
/** What `bin` in cli/package.json names: the launcher, which runs the bundle. */
export const BUNDLE = join(DIST, 'skillpress.mjs');
/** The bundle's entry, beside the launcher. */
const MAIN = join(DIST, 'cli.mjs');
/** The modules split off the entry, loaded by it or by the commands that need them. */
const CHUNK = /^chunk-[\w-]+\.mjs$/;

/**
 * The launcher. Compiling the 350 KB bundle is a sizeable part of every start, and a module
 * cannot turn on the compile cache for its own compilation, so this small one does (Node 22.1
 * and later; older ones skip it), the way the `skills` CLI starts, and V8's cached code for the
 * bundle is reused from the second run on (in Node's default folder under the temporary
 * directory; NODE_DISABLE_COMPILE_CACHE=1 turns it off).
 */
const LAUNCHER = `#!/usr/bin/env node
import module from 'node:module';

try {
  module.enableCompileCache?.();
} catch {
  // without a cache the start is only slower
}
await import('./cli.mjs');
`;
/** The source fingerprint the bundle was built from, beside it (never packed). */
export const FINGERPRINT = join(cli, 'dist', 'skillpress.fingerprint');

/**
 * Size and mtime of every source the bundle is made of (cli/ and core/, the manifests and the
 * lockfile that pins semver, yaml and zod): a cheap stat walk, so an edited source never runs stale.
 */
export function sourceFingerprint() {
  const files = [];
  const visit = (dir) => {
    const entries = readdirSync(join(root, dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'dist' && entry.name !== 'node_modules') visit(path);
      } else if (/\.(ts|json)$/.test(entry.name)) {
        files.push(path);
      }
    }
  };
  visit('cli');
  visit('core');
  return statFingerprint(root, [...files, 'scripts/esm-bundle.mjs', 'package.json', 'package-lock.json'])?.slice(0, 32);
}

/**
 * Bundles cli/executable.ts into dist/cli.mjs and the modules split off it with esbuild (a dev
 * dependency of the repository, never of the package), copies the shell grammar's WebAssembly
 * files beside them, and writes the launcher, {@link BUNDLE}. Each file is written beside its
 * target and renamed into place, the split modules first (their names carry their content's hash,
 * so an old entry still finds its own) and the entry last, so a `skillpress` starting meanwhile
 * runs the old bundle or the new one, never half of one. Split modules no entry names any more are
 * removed, so the package holds only what this build made. Returns the entry's size.
 */
export async function bundleCli() {
  const fingerprint = sourceFingerprint();
  const { build } = await import('esbuild');
  mkdirSync(DIST, { recursive: true });
  const temp = (file) => `${file}.${process.pid}.tmp`;
  const written = [];
  const place = (file, contents, mode) => {
    written.push(temp(file));
    writeFileSync(temp(file), contents, mode === undefined ? undefined : { mode });
    renameSync(temp(file), file);
  };
  try {
    const { outputFiles } = await build({
      absWorkingDir: root,
      entryPoints: { cli: join(cli, 'executable.ts') },
      outdir: DIST,
      outExtension: { '.js': '.mjs' },
      // The scanner, yaml and zod are imported by the commands that use them (`import()`), each
      // into a module of its own that only those commands load.
      splitting: true,
      chunkNames: 'chunk-[hash]',
      write: false,
      bundle: true,
      plugins: [embedGrammar({ beside: true })],
      format: 'esm',
      platform: 'node',
      target: 'node20',
      // The ES builds of the dependencies that have one (semver's and zod's).
      mainFields: ['module', 'main'],
      minify: true,
      // Stack traces and `--json` output name functions as the sources do.
      keepNames: true,
      legalComments: 'none',
      // yaml ships only CommonJS for Node, and requires Node built-ins (`process`) at run time: an
      // ES module has no `require`, so each module makes one, as the Lambda bundles do.
      banner: { js: REQUIRE_BANNER },
      logLevel: 'warning',
    });
    for (const file of Object.values(grammarFiles())) place(join(DIST, basename(file)), readFileSync(file));
    const chunks = outputFiles.filter((f) => f.path !== MAIN);
    for (const chunk of chunks) place(chunk.path, chunk.contents);
    place(MAIN, outputFiles.find((f) => f.path === MAIN).contents);
    place(BUNDLE, LAUNCHER, 0o755);
    const current = new Set(chunks.map((f) => basename(f.path)));
    for (const name of readdirSync(DIST)) if (CHUNK.test(name) && !current.has(name)) rmSync(join(DIST, name), { force: true });
  } finally {
    for (const file of written) rmSync(file, { force: true });
  }
  writeFileSync(FINGERPRINT, `${fingerprint}\n`);
  return statSync(MAIN).size;
}

/** The files of the package's `dist/` as the last build left them: the modules and the grammar's WebAssembly files. */
export function packagedFiles() {
  return readdirSync(DIST)
    .filter((name) => name === 'skillpress.mjs' || name === 'cli.mjs' || CHUNK.test(name) || name.endsWith('.wasm'))
    .sort();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const bytes = await bundleCli();
  console.error(`cli/dist/cli.mjs: ${(bytes / 1024).toFixed(1)} KB`);
}
