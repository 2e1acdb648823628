import { join, resolve } from 'node:path';
import type { Config } from '#functions/platform/config';
import { configFromEnv } from '#functions/platform/config';
import { createDeps, type Deps } from '#functions/platform/composition';
import { ensureStorage, startEmbeddedServices } from './local/stack.ts';

/**
 * The storage a maintenance script works on: with SKILLPRESS_TARGET=aws the AWS account the
 * environment's credentials name (TABLE_NAME, CONTENT_BUCKET, STATIC_BUCKET); otherwise the
 * local store under DATA_DIR, through embedded services started for the script (stop
 * `npm start` first: both would open the same files).
 */
export async function withTargetDeps<T>(work: (deps: Deps, config: Config) => Promise<T>): Promise<T> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const onAws = process.env.SKILLPRESS_TARGET === 'aws';
  const services = onAws ? undefined : await startEmbeddedServices(resolve(process.env.DATA_DIR ?? '.data'));
  const dataDir = resolve(process.env.DATA_DIR ?? '.data');
  const config = configFromEnv(
    services
      ? {
          ...process.env,
          DYNAMODB_ENDPOINT: services.dynamoEndpoint,
          S3_ENDPOINT: services.s3Endpoint,
          // The key `npm start` signs with, so a rebuild signs what it has not yet with the same one.
          SKILLPRESS_SIGNING_KEY_FILE: process.env.SKILLPRESS_SIGNING_KEY_FILE ?? join(dataDir, 'signing-key.pem'),
        }
      : process.env,
  );
  const deps = createDeps(config);
  try {
    if (services) await ensureStorage(config, deps.s3);
    return await work(deps, config);
  } finally {
    await services?.stop();
  }
}
