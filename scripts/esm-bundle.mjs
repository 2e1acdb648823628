// What the repository's ES-module bundles share: the Lambdas' (scripts/lambda-bundles.ts), the
// CLI's (cli/bundle.mjs) and `npm start`'s server (scripts/serve.mjs). Plain JavaScript, so the
// two build scripts that run without a TypeScript loader can import it.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';

/** CommonJS packages inside an ES module call `require`, which ESM lacks: each bundle makes one first. */
export const REQUIRE_BANNER =
  "import { createRequire as __skillpressCreateRequire } from 'node:module'; const require = __skillpressCreateRequire(import.meta.url);";

/**
 * The SHA-256 (hex) of the size and mtime of each of `files` (paths from `root`, in the order
 * given): a cheap stat per file, by which a build script tells whether its bundle is older than
 * its sources. Undefined when one of them is missing.
 */
export function statFingerprint(root, files) {
  const hash = createHash('sha256');
  for (const file of files) {
    let stat;
    try {
      stat = statSync(join(root, file));
    } catch {
      return undefined;
    }
    hash.update(`${file}\0${stat.size}\0${stat.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

/** The shell grammar's two WebAssembly files, in the packages that ship them. */
export function grammarFiles() {
  const require = createRequire(import.meta.url);
  return {
    runtime: require.resolve('web-tree-sitter/web-tree-sitter.wasm'),
    bash: require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'),
  };
}

/**
 * An esbuild plugin that puts the scanner's shell grammar inside the bundle: the module that reads
 * the two WebAssembly files from their packages (core/scan/read/grammar-files.ts) becomes one that
 * imports their bytes, so a bundle needs no node_modules beside it. With `beside`, it becomes one
 * that reads them from the bundle's own folder instead, under their own names (the CLI's package
 * ships them as files: as code they would be most of it, and most commands never read them); the
 * build then copies them there.
 */
export function embedGrammar({ beside = false } = {}) {
  const files = grammarFiles();
  return {
    name: 'embed-grammar',
    setup(build) {
      build.onLoad({ filter: /[\\/]core[\\/]scan[\\/]read[\\/]grammar-files\.ts$/ }, () => ({
        loader: 'js',
        contents: beside
          ? `import { readFileSync } from 'node:fs';\nexport function grammarBytes() { return { runtime: readFileSync(new URL(${JSON.stringify(`./${basename(files.runtime)}`)}, import.meta.url)), bash: readFileSync(new URL(${JSON.stringify(`./${basename(files.bash)}`)}, import.meta.url)) }; }\n`
          : `import runtime from ${JSON.stringify(files.runtime)};\nimport bash from ${JSON.stringify(files.bash)};\nexport function grammarBytes() { return { runtime, bash }; }\n`,
      }));
      build.onLoad({ filter: /\.wasm$/ }, (args) => ({ loader: 'binary', contents: readFileSync(args.path) }));
      // web-tree-sitter imports Node's built-ins by their bare names: the bundles name them as built-ins.
      build.onResolve({ filter: /^(?:module|fs|fs\/promises|path|url)$/ }, (args) => ({ path: `node:${args.path}`, external: true }));
    },
  };
}
