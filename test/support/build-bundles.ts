import type { TestProject } from 'vitest/node';
import { type BundleReport, buildLambdas } from '#scripts/lambda-bundles';
import { buildSandboxContext } from '#scripts/sandbox-bundle';
import { bundleCli } from '../../cli/bundle.mjs';
import { ensureServerBundle } from '../../scripts/serve.mjs';

/**
 * Builds the Lambda bundles, the sandbox image's context and the CLI's bundle once per test run, as
 * `npm run build` does, so the bundle tests and the CDK template tests see bundles of the code under test, and the many
 * `skillpress` processes the CLI tests start find theirs built instead of each building it; and
 * the server's bundle when a source changed, which every `npm start` the tests run then finds fresh.
 */
export default async function setup(project: TestProject) {
  const [bundles] = await Promise.all([buildLambdas(), bundleCli(), ensureServerBundle(), buildSandboxContext()]);
  project.provide('bundles', bundles);
}

declare module 'vitest' {
  export interface ProvidedContext {
    bundles: BundleReport[];
  }
}
