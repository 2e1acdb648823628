// Builds the CLI's bundle, dist/cli.mjs: the whole client (its core/ code, semver, yaml and zod
// included) as a single ES module that imports nothing but Node's built-ins, so the published
// package has no dependencies and starts without resolving any; and beside it the package's bin,
// dist/skillpress.mjs, a launcher that turns on Node's compile cache before it loads the bundle.
// Used by `npm run build`, by `npm pack` (prepack: the tarball never holds a stale bundle) and by
// bin.mjs when the sources changed since the last build. Plain JavaScript: bin.mjs must be able
// to run it without a TypeScript loader. `node bundle.mjs` builds once.
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { embedGrammar, REQUIRE_BANNER, statFingerprint } from '../scripts/esm-bundle.mjs';

const cli = fileURLToPath(new URL('.', import.meta.url));
const root = join(cli, '..');

/** What `bin` in cli/package.json names: the launcher, which runs the bundle. */
export const BUNDLE = join(cli, 'dist', 'skillpress.mjs');
/** The bundle itself, beside the launcher. */
const MAIN = join(cli, 'dist', 'cli.mjs');

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
 * Bundles cli/executable.ts into dist/cli.mjs with esbuild (a dev dependency of the repository,
 * never of the package), and writes the launcher, {@link BUNDLE}. Each is written beside its
 * target and renamed into place, so a `skillpress` starting meanwhile runs the old bundle or the
 * new one, never half of one. Returns the bundle's size.
 */
export async function bundleCli() {
  const fingerprint = sourceFingerprint();
  const { build } = await import('esbuild');
  mkdirSync(join(cli, 'dist'), { recursive: true });
  const temp = `${MAIN}.${process.pid}.tmp`;
  try {
    await build({
      absWorkingDir: root,
      entryPoints: [join(cli, 'executable.ts')],
      outfile: temp,
      bundle: true,
      plugins: [embedGrammar()],
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
      // ES module has no `require`, so the bundle makes one, as the Lambda bundles do.
      banner: { js: REQUIRE_BANNER },
      logLevel: 'warning',
    });
    renameSync(temp, MAIN);
    writeFileSync(temp, LAUNCHER, { mode: 0o755 });
    renameSync(temp, BUNDLE);
  } finally {
    rmSync(temp, { force: true });
  }
  writeFileSync(FINGERPRINT, `${fingerprint}\n`);
  return statSync(MAIN).size;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const bytes = await bundleCli();
  console.error(`cli/dist/cli.mjs: ${(bytes / 1024).toFixed(1)} KB`);
}
