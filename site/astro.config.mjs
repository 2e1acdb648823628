import { defineConfig } from 'astro/config';

/**
 * The catalog site and the author dashboard, built to static files that the CDN serves from the
 * static bucket (see README.md). Where the data comes from is SKILLPRESS_DATA; where the output
 * and the content cache go can be moved so several builds (tests, the local runtime, the
 * benchmark) never share them.
 */
export default defineConfig({
  output: 'static',
  trailingSlash: 'always',
  outDir: process.env.SKILLPRESS_SITE_OUT || './dist',
  cacheDir: process.env.SKILLPRESS_SITE_CACHE || './.astro/cache',
  build: {
    format: 'directory',
    // Overlaps the writes of several pages: about a fifth off generating 10,000 pages here.
    concurrency: 4,
    // One hashed, immutable stylesheet instead of the same CSS inlined into every page.
    inlineStylesheets: 'never',
  },
  // Pages link to each other with plain <a>; prefetching would fetch pages nobody asked for.
  prefetch: false,
  devToolbar: { enabled: false },
  vite: { build: { assetsInlineLimit: 0 } },
});
