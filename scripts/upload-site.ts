import { join } from 'node:path';
import { SITE_DIR } from './site/build-site.ts';
import { siteSourceHash } from './site/site-sources.ts';
import { uploadSite } from './site/upload-site.ts';
import { withTargetDeps } from './target-deps.ts';

/**
 * `npm run upload-site [--force]`: puts site/dist (from `npm run build`) into the static bucket
 * with each file's Content-Type and Cache-Control, sending only files that changed since the
 * last upload (`--force`: all). SKILLPRESS_TARGET=aws writes to STATIC_BUCKET on AWS (the site
 * workflow's last step); otherwise to the local store under DATA_DIR.
 */
await withTargetDeps(async (deps, config) => {
  const result = await uploadSite(deps.staticStore, join(SITE_DIR, 'dist'), { sourceHash: siteSourceHash(), force: process.argv.includes('--force') });
  console.log(`uploaded ${result.uploaded} of ${result.files} files to ${config.staticBucket} in ${(result.ms / 1000).toFixed(1)} s`);
});
