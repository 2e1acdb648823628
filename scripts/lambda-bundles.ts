import { rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
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
 * - Code splitting: what the code only `import()`s (the SDK's credential providers other than
 *   the environment's, which Lambda never uses, and Secrets Manager until a secret is read)
 *   lands in chunks that are loaded only when called, so they cost nothing at cold start. The
 *   budget (600 KB) is therefore held against the bytes a cold start loads; the deployed total
 *   is reported beside it.
 * - A Lambda granted no bucket gets `scripts/lambda-stubs/s3-client.ts` instead of the S3 client:
 *   what IAM denies, the bundle need not carry.
 */

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * What a Lambda may load at cold start: the bundle and the chunks it imports before it answers.
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
  /** index.mjs and the chunks it imports statically: what a cold start loads. */
  loadedBytes: number;
  /** Those files, relative to the repository root. */
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
    alias,
    banner: { js: REQUIRE_BANNER },
    metafile: true,
    logLevel: 'warning',
  });
  return report(name, outdir, result.metafile!);
}

function report(name: string, outdir: string, metafile: Metafile): BundleReport {
  const outputs = metafile.outputs;
  const key = (file: string) => relative(root, join(root, file));
  const index = Object.keys(outputs).find((file) => file.endsWith('/index.mjs'))!;
  const loaded = new Set<string>();
  const visit = (file: string) => {
    if (loaded.has(file)) return;
    loaded.add(file);
    for (const imp of outputs[file]!.imports) if (imp.kind === 'import-statement' && !imp.external) visit(imp.path);
  };
  visit(index);
  const sum = (files: Iterable<string>) => [...files].reduce((total, file) => total + outputs[file]!.bytes, 0);
  return {
    name,
    file: key(join(relative(root, outdir), 'index.mjs')),
    totalBytes: sum(Object.keys(outputs)),
    loadedBytes: sum(loaded),
    loaded: [...loaded].map(key),
    files: Object.keys(outputs).length,
  };
}
