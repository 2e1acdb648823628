#!/usr/bin/env node
// The `skillpress` executable (package.json "bin"), so `npx skillpress` works straight after
// `npm ci`, with no build step.
//
// Loading TypeScript through tsx costs most of a second per run, so the first run bundles
// cli/main.ts with esbuild (its dependencies included, so nothing is resolved at start) into
// node_modules/.cache/skillpress-cli/<fingerprint>/ and later runs import that bundle (about 0.2 s
// to start). The fingerprint covers the size and mtime of every
// source file under cli/ and core/ and package.json, so an edited source never runs stale. If
// bundling is impossible (no esbuild, read-only tree) or SKILLPRESS_CLI_TSX=1, tsx runs the
// sources directly.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const cacheRoot = join(root, 'node_modules', '.cache', 'skillpress-cli');

function fingerprint() {
  const hash = createHash('sha256');
  const visit = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) visit(path);
      else if (/\.(ts|mjs|json)$/.test(entry.name)) {
        const stat = statSync(join(root, path));
        hash.update(`${path}\0${stat.size}\0${stat.mtimeMs}\n`);
      }
    }
  };
  visit('cli');
  visit('core');
  const pkg = statSync(join(root, 'package.json'));
  hash.update(`package.json\0${pkg.size}\0${pkg.mtimeMs}\n`);
  return hash.digest('hex').slice(0, 16);
}

async function bundledEntry() {
  const key = fingerprint();
  const outdir = join(cacheRoot, key);
  const entry = join(outdir, 'main.mjs');
  if (existsSync(entry)) return entry;
  const { build } = await import('esbuild');
  const temp = `${outdir}.${process.pid}.tmp`;
  await build({
    entryPoints: [join(root, 'cli', 'main.ts')],
    outdir: temp,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'silent',
  });
  try {
    renameSync(temp, outdir);
  } catch {
    rmSync(temp, { recursive: true, force: true }); // another run finished the same bundle first
  }
  // Older bundles go once nothing can still be running them (a lazy chunk may load late).
  for (const old of readdirSync(cacheRoot)) {
    const path = join(cacheRoot, old);
    if (old !== key && Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true });
  }
  return entry;
}

async function load() {
  if (process.env.SKILLPRESS_CLI_TSX !== '1') {
    try {
      mkdirSync(cacheRoot, { recursive: true });
      const entry = await bundledEntry();
      // Source maps cost time at every start; only debugging needs TypeScript positions.
      if (process.env.SKILLPRESS_DEBUG) process.setSourceMapsEnabled(true);
      return await import(pathToFileURL(entry).href);
    } catch (error) {
      if (process.env.SKILLPRESS_DEBUG) console.error('skillpress: bundling failed, running the sources with tsx:', error);
    }
  }
  const { register } = await import('tsx/esm/api');
  register();
  return import(pathToFileURL(join(root, 'cli', 'main.ts')).href);
}

const { runFromProcess } = await load();
await runFromProcess();
