// What the repository's ES-module bundles share: the Lambdas' (scripts/lambda-bundles.ts), the
// CLI's (cli/bundle.mjs) and `npm start`'s server (scripts/serve.mjs). Plain JavaScript, so the
// two build scripts that run without a TypeScript loader can import it.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

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

/**
 * An esbuild plugin that puts the scanner's shell grammar inside the bundle: the module that reads
 * the two WebAssembly files from their packages (core/scan/read/grammar-files.ts) becomes one that
 * imports their bytes, so a bundle needs no node_modules beside it.
 */
export function embedGrammar() {
  const require = createRequire(import.meta.url);
  const files = {
    runtime: require.resolve('web-tree-sitter/web-tree-sitter.wasm'),
    bash: require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'),
  };
  return {
    name: 'embed-grammar',
    setup(build) {
      build.onLoad({ filter: /[\\/]core[\\/]scan[\\/]read[\\/]grammar-files\.ts$/ }, () => ({
        loader: 'js',
        contents: `import runtime from ${JSON.stringify(files.runtime)};\nimport bash from ${JSON.stringify(files.bash)};\nexport function grammarBytes() { return { runtime, bash }; }\n`,
      }));
      build.onLoad({ filter: /\.wasm$/ }, (args) => ({ loader: 'binary', contents: readFileSync(args.path) }));
      // web-tree-sitter imports Node's built-ins by their bare names: the bundles name them as built-ins.
      build.onResolve({ filter: /^(?:module|fs|fs\/promises|path|url)$/ }, (args) => ({ path: `node:${args.path}`, external: true }));
    },
  };
}
