// What the repository's ES-module bundles share: the Lambdas' (scripts/lambda-bundles.ts), the
// CLI's (cli/bundle.mjs) and `npm start`'s server (scripts/serve.mjs). Plain JavaScript, so the
// two build scripts that run without a TypeScript loader can import it.
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
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
