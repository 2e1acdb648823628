import { join } from 'node:path';
import { publishCliPackage } from './release/cli-package.ts';
import { SITE_DIR } from './site/build-site.ts';
import { siteSourceHash } from './site/site-sources.ts';
import { uploadSite } from './site/upload-site.ts';
import { withTargetDeps } from './target-deps.ts';

/**
 * `npm run upload-site [--force]`: puts site/dist (from `npm run build`) into the static bucket
 * with each file's Content-Type and Cache-Control, sending only files that changed since the
 * last upload (`--force`: all). SKILLPRESS_TARGET=aws writes to STATIC_BUCKET on AWS (the site
 * workflow's last step); otherwise to the local store under DATA_DIR. With SITE_ORIGIN set it
 * also writes the `skillpress` package that defaults to that origin (scripts/cli-package.ts).
 */
await withTargetDeps(async (deps, config) => {
  const result = await uploadSite(deps.staticStore, join(SITE_DIR, 'dist'), { sourceHash: siteSourceHash(), force: process.argv.includes('--force') });
  console.log(`uploaded ${result.uploaded} of ${result.files} files to ${config.staticBucket} in ${(result.ms / 1000).toFixed(1)} s`);
  // The client the site's install commands fetch, defaulting to this deployment's origin.
  if (config.siteOrigin) {
    const cli = await publishCliPackage(deps, config.siteOrigin);
    console.log(`uploaded the skillpress CLI ${cli.version} (${cli.bytes} bytes) for ${config.siteOrigin}: ${cli.keys.join(', ')}`);
  } else {
    console.log('SITE_ORIGIN is not set: the skillpress CLI package (cli/skillpress.tgz) was not uploaded, since its default registry would be unknown');
  }
});
