import { join } from 'node:path';
import { buildSite, SITE_DIR } from './site/build-site.ts';

/**
 * `npm run build`: the catalog site under site/dist, from SKILLPRESS_DATA (an http(s) origin of
 * a running Skillpress, or s3://<static bucket>; unset builds it without skills, whose pages
 * then render in the browser). `npm start` builds and serves the site by itself; this build is
 * for deploying (scripts/upload-site.ts puts it into a static bucket).
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const data = process.env.SKILLPRESS_DATA;
const outDir = join(SITE_DIR, 'dist');
const { pages, ms } = await buildSite({ data, outDir, cacheDir: join(SITE_DIR, '.astro', 'cache') });
console.log(`site: ${pages} pages in ${(ms / 1000).toFixed(1)} s from ${data || 'no data (SKILLPRESS_DATA unset)'} → ${outDir}`);
