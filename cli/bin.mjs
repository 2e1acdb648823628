#!/usr/bin/env node
// `skillpress` inside this repository (the root package.json's "bin"), so `npx skillpress` and
// `node cli/bin.mjs` work straight after `npm ci`. It runs the same bundle the published package
// ships (dist/skillpress.mjs, made by bundle.mjs), rebuilding it first when the sources changed
// since it was built; the published package's bin is that bundle itself, with no launcher.
import { existsSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { BUNDLE, bundleCli, FINGERPRINT, sourceFingerprint } from './bundle.mjs';

const built = existsSync(FINGERPRINT) ? readFileSync(FINGERPRINT, 'utf8').trim() : undefined;
if (!existsSync(BUNDLE) || built !== sourceFingerprint()) {
  try {
    await bundleCli();
  } catch (error) {
    // Without the repository's dev dependencies an existing bundle is better than none.
    if (!existsSync(BUNDLE)) {
      console.error(`skillpress: cannot build ${BUNDLE} (run npm ci in the repository first): ${error.message}`);
      process.exit(1);
    }
    console.error(`skillpress: running ${BUNDLE}, which is older than the sources (${error.message})`);
  }
}
await import(pathToFileURL(BUNDLE).href);
