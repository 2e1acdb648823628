import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * Where the shell grammar's two WebAssembly files come from: the kept packages that ship them
 * (web-tree-sitter, tree-sitter-bash). They are code, read like a dependency. The bundles (the
 * Lambdas, `npm start`'s server, the CLI) carry both files inside them instead: their build
 * replaces this module (`embedGrammar` in scripts/esm-bundle.mjs), so this is the one place that
 * says where the bytes are.
 */
export function grammarBytes(): { runtime: Uint8Array; bash: Uint8Array } {
  const require = createRequire(import.meta.url);
  return {
    runtime: readFileSync(require.resolve('web-tree-sitter/web-tree-sitter.wasm')),
    bash: readFileSync(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm')),
  };
}
