import type { TestProject } from 'vitest/node';
import { startEmbeddedServices } from '#scripts/local/stack';

/** One dynalite and one s3rver for the whole run; each test file makes its own table and buckets. */
export default async function setup(project: TestProject) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const services = await startEmbeddedServices();
  project.provide('services', { dynamoEndpoint: services.dynamoEndpoint, s3Endpoint: services.s3Endpoint });
  return () => services.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    services: { dynamoEndpoint: string; s3Endpoint: string };
  }
}
