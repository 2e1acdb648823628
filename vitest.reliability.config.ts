import { defineConfig } from 'vitest/config';
import { shared } from './vitest.config.ts';

/**
 * `npm run test:reliability`: fuzzing of every write endpoint, concurrency, crash and
 * secrets-at-rest checks. Longer than the rest, so it runs on its own (and in `.ci/run`).
 */
export default defineConfig({
  test: {
    ...shared,
    include: ['test/reliability/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 120_000,
  },
});
