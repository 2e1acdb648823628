import type { TestProject } from 'vitest/node';
import { type BundleReport, buildLambdas } from '#scripts/lambda-bundles';

/**
 * Builds the Lambda bundles once per test run, as `npm run build` does, so the bundle tests and
 * the CDK template tests always see bundles of the code under test.
 */
export default async function setup(project: TestProject) {
  project.provide('bundles', await buildLambdas());
}

declare module 'vitest' {
  export interface ProvidedContext {
    bundles: BundleReport[];
  }
}
