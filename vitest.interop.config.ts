import { defineConfig } from 'vitest/config';
import { shared } from './vitest.config.ts';

/**
 * `npm run test:interop`: the `skills` CLI and ClawHub's `clawdhub`, installed from the npm
 * registry (scripts/peer-clients.ts), driven as real processes against the stack `npm start`
 * runs. It needs the network for the first install, so it runs on its own (and in `.ci/run`).
 */
export default defineConfig({
  test: {
    env: shared.env,
    passWithNoTests: false,
    include: ['test/interop/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
