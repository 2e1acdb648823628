import { defineConfig } from 'vitest/config';

/** What every suite shares: one embedded dynalite and s3rver for the run, and quiet logs. */
export const shared = {
  globalSetup: ['test/support/global-setup.ts'],
  env: { LOG_LEVEL: 'silent', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  passWithNoTests: false,
};

/** `npm test`: unit, HTTP and end-to-end suites. The reliability and interop suites have their own configs. */
export default defineConfig({
  test: {
    ...shared,
    include: ['test/**/*.test.ts'],
    // The Lambda bundle tests import what `npm run build` makes; build it once per run.
    globalSetup: [...shared.globalSetup, 'test/support/build-bundles.ts'],
    exclude: ['test/reliability/**', 'test/interop/**', '**/node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Vitest's default is one worker per core but one, which on this 2-core machine runs the
    // files one after another while most of them wait on servers, browsers and child processes.
    maxWorkers: 3,
    // Each worker imports the AWS SDK, Hono and zod once rather than once per file: files share
    // no state but the modules' own (every file makes its own table, buckets and servers).
    isolate: false,
  },
});
