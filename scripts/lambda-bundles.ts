import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile, type Plugin } from 'esbuild';
import { bundleDir, type LambdaSpec, lambdas } from '../infra/lambdas.ts';
import { embedGrammar, REQUIRE_BANNER } from './esm-bundle.mjs';

/**
 * Bundles each Lambda of `infra/lambdas.ts` with esbuild into `dist/functions/<name>/index.mjs`.
 *
 * - ESM for Node 22 and later (the Lambdas run Node 24), with the `createRequire` banner: some dependencies still `require()` Node
 *   built-ins, which an ES module has no `require` for.
 * - The AWS SDK is bundled, not left to the runtime's copy. Bundled, esbuild tree-shakes it;
 *   left external, Node loads the SDK's full CommonJS packages at cold start, which measured
 *   about four times slower here (and the code would run against an SDK version nobody tested).
 * - `mainFields: module, main` makes esbuild take the SDK's ES builds, which tree-shake; its
 *   CommonJS builds do not (913 KB against 650 KB for the same entry).
 * - Code splitting: what the code only `import()`s (Secrets Manager until a secret is read, the
 *   S3 client until the first command is sent) lands in chunks that are loaded only when called,
 *   so they cost nothing at cold start. The budget ({@link COLD_START_BUDGET_BYTES}) is therefore
 *   held against the bytes a cold start loads; the deployed total is reported beside it.
 * - One file at cold start: the chunks index.mjs imports statically are merged into it
 *   (`mergeColdStart`), since Node pays for each module file it loads.
 * - A Lambda granted no bucket gets `scripts/lambda-stubs/s3-client.ts` instead of the S3 client:
 *   what IAM denies, the bundle need not carry.
 * - Every bundle gets `scripts/lambda-stubs/credential-provider.ts` instead of the SDK's default
 *   credential chain: Lambda's credentials are in the environment, and the chain's other links
 *   (SSO, profiles, processes, metadata services) were 13–39 KB of every cold start.
 */

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * What a Lambda may load at cold start: its index.mjs, which imports no chunk before it answers.
 * 640 KiB since every Lambda that touches a skill carries the policy (core/policy.ts) and the
 * organisations' shapes, about 6 KiB each; 680 KiB since the publishing Lambdas carry a version's
 * behaviour and effects (the sandbox's pending state, the effects' schemas) and the upload's
 * check, 27 KiB spread over a dozen modules with no one import to defer (docs/benchmarks.md).
 * The test of the bundles and the bench's table both hold them to it.
 */
export const COLD_START_BUDGET_BYTES = 680 * 1024;

export interface BundleReport {
  name: string;
  /** index.mjs, relative to the repository root. */
  file: string;
  /** Every file of the bundle: what is deployed. */
  totalBytes: number;
  /** index.mjs, the chunks it imported statically merged in: what a cold start loads. */
  loadedBytes: number;
  /** That file, relative to the repository root. */
  loaded: string[];
  files: number;
}

export async function buildLambdas(specs: readonly LambdaSpec[] = lambdas, outRoot = root): Promise<BundleReport[]> {
  return Promise.all(specs.map((spec) => buildLambda(spec, outRoot)));
}

async function buildLambda(spec: LambdaSpec, outRoot: string): Promise<BundleReport> {
  const alias: Record<string, string> = spec.content || spec.static ? {} : { '@aws-sdk/client-s3': join(root, 'scripts/lambda-stubs/s3-client.ts') };
  return bundleEntry(spec.name, join(root, 'functions', 'handlers', `${spec.name}.ts`), join(outRoot, bundleDir(spec.name)), alias);
}

/**
 * Bundles one entry file as a Lambda is bundled, into `outdir`: the Lambdas, and the bench's
 * floor (scripts/bench/cold-floor.ts), which must be built alike to be compared.
 */
export async function bundleEntry(name: string, entry: string, outdir: string, alias: Record<string, string> = {}): Promise<BundleReport> {
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { index: entry },
    outdir,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    plugins: [embedGrammar()],
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    mainFields: ['module', 'main'],
    minify: true,
    treeShaking: true,
    // Imported only by the SDK's browser user-agent code, which never runs on Node.
    external: ['bowser'],
    alias: { '@aws-sdk/credential-provider-node': join(root, 'scripts/lambda-stubs/credential-provider.ts'), ...alias },
    banner: { js: REQUIRE_BANNER },
    metafile: true,
    logLevel: 'warning',
  });
  return mergeColdStart(name, outdir, result.metafile!);
}

/**
 * Merges the chunks a cold start loads into index.mjs. esbuild's code splitting makes a chunk for
 * each set of entries (the bundle and each `import()`) that share modules, so a cold start loaded
 * 8 to 28 files, and Node resolves, reads, compiles and links each module file apart: imported in
 * turns, the publish Lambda's 28 files took 124 ms p50, the same code in one file 100 ms (the
 * floor's 8 files 80 ms, in one 69). index.mjs is rebuilt from those files, exporting what the
 * other chunks import of them, and each other chunk is rebuilt to import that from index.mjs:
 * every module still exists once, and the chunks are only ever loaded by an `import()` made after
 * index.mjs has run.
 */
async function mergeColdStart(name: string, outdir: string, metafile: Metafile): Promise<BundleReport> {
  const outputs = metafile.outputs;
  const index = Object.keys(outputs).find((file) => file.endsWith('/index.mjs'))!;
  const cold = staticallyLoaded(outputs, index);
  const absolute = (file: string) => join(root, file);
  // Each merged chunk's exports are re-exported by index.mjs under a name of its own.
  const chunks = [...cold].filter((file) => file !== index).map((file, n) => ({ path: absolute(file), prefix: `c${n}$`, exports: outputs[file]!.exports }));
  const byPath = new Map(chunks.map((chunk) => [chunk.path, chunk]));
  const entry = [
    `export * from ${JSON.stringify(absolute(index))};`,
    ...chunks.map(({ path, prefix, exports }) => `export { ${exports.map((e) => `${e} as ${prefix}${e}`).join(', ')} } from ${JSON.stringify(path)};`),
  ].join('\n');
  const indexPath = join(outdir, 'index.mjs');
  await rebuild(
    { stdin: { contents: entry, resolveDir: outdir, loader: 'js' } },
    indexPath,
    (path, importer) =>
      // What the merged files `import()`, relative to index.mjs now.
      `./${relative(outdir, resolve(dirname(importer), path))}`,
  );
  const others = Object.keys(outputs).filter((file) => !cold.has(file) && file.endsWith('.mjs'));
  await Promise.all(
    others.map(async (file) => {
      const path = absolute(file);
      if (!outputs[file]!.imports.some((imp) => imp.kind === 'import-statement' && cold.has(imp.path))) return;
      const toIndex = `./${relative(dirname(path), indexPath)}`.replace(/^\.\/\.\./, '..');
      const fromIndex: Plugin = {
        name: 'from-index',
        setup(b) {
          b.onResolve({ filter: /^\./, namespace: 'file' }, (args) => {
            const target = resolve(args.resolveDir, args.path);
            if (args.kind !== 'import-statement') return undefined;
            // A chunk that stays a chunk is imported where it is, never copied in.
            return byPath.has(target) ? { path: target, namespace: 'merged' } : { path: args.path, external: true };
          });
          b.onResolve({ filter: /.*/, namespace: 'merged' }, (args) => ({ path: args.path, external: true }));
          b.onLoad({ filter: /.*/, namespace: 'merged' }, (args) => {
            const { prefix, exports } = byPath.get(args.path)!;
            return { loader: 'js', contents: `export { ${exports.map((e) => `${prefix}${e} as ${e}`).join(', ')} } from ${JSON.stringify(toIndex)};` };
          });
        },
      };
      await rebuild({ entryPoints: [path] }, path, (spec) => spec, fromIndex);
    }),
  );
  for (const file of cold) if (file !== index) rmSync(absolute(file));
  const files = Object.keys(outputs).filter((file) => file === index || !cold.has(file));
  const size = (file: string) => statSync(absolute(file)).size;
  return {
    name,
    file: relative(root, indexPath),
    totalBytes: files.reduce((total, file) => total + size(file), 0),
    loadedBytes: size(index),
    loaded: [relative(root, indexPath)],
    files: files.length,
  };
}

/** `index` and the chunks it imports statically, transitively: what a cold start loads. */
function staticallyLoaded(outputs: Metafile['outputs'], index: string): Set<string> {
  const loaded = new Set<string>();
  const visit = (file: string) => {
    if (loaded.has(file)) return;
    loaded.add(file);
    for (const imp of outputs[file]!.imports) if (imp.kind === 'import-statement' && !imp.external) visit(imp.path);
  };
  visit(index);
  return loaded;
}

/**
 * Bundles already-bundled output again into `outfile`: their own banners are dropped for the one
 * added, packages and built-ins stay external, and so does every `import()`, at the path `moved`
 * gives it.
 */
async function rebuild(
  input: { stdin: { contents: string; resolveDir: string; loader: 'js' } } | { entryPoints: string[] },
  outfile: string,
  moved: (path: string, importer: string) => string,
  ...plugins: Plugin[]
): Promise<void> {
  const built: Plugin = {
    name: 'built',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (!args.path.startsWith('.') && !args.path.startsWith('/')) return { path: args.path, external: true };
        if (args.kind === 'dynamic-import') return { path: moved(args.path, args.importer), external: true };
        return undefined;
      });
      b.onLoad({ filter: /\.mjs$/ }, (args) => {
        const code = readFileSync(args.path, 'utf8');
        return { loader: 'js', contents: code.startsWith(REQUIRE_BANNER) ? code.slice(REQUIRE_BANNER.length) : code };
      });
    },
  };
  const result = await build({
    ...input,
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    minify: true,
    banner: { js: REQUIRE_BANNER },
    plugins: [...plugins, built],
    outfile,
    logLevel: 'warning',
    // web-tree-sitter's eval, which esbuild let pass in node_modules, is in a chunk now.
    logOverride: { 'direct-eval': 'silent' },
  });
  writeFileSync(outfile, result.outputFiles[0]!.contents);
}
