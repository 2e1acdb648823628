import { resolve } from 'node:path';
import { configFromEnv } from '#functions/config';
import { createDeps } from '#functions/deps';
import { Rebuilder } from '#functions/rebuild/rebuilder';
import { ensureStorage, startEmbeddedServices } from './local-stack.ts';

/**
 * `npm run rebuild`: regenerates every static file from DynamoDB — the repair path. Locally it
 * runs against the embedded services over DATA_DIR (stop `npm start` first: both would open the
 * same store); with DYNAMODB_ENDPOINT/S3_ENDPOINT unset and AWS credentials it rebuilds on AWS.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const onAws = process.env.SKILLPRESS_TARGET === 'aws';
const services = onAws ? undefined : await startEmbeddedServices(resolve(process.env.DATA_DIR ?? '.data'));
const config = configFromEnv(services ? { ...process.env, DYNAMODB_ENDPOINT: services.dynamoEndpoint, S3_ENDPOINT: services.s3Endpoint } : process.env);
const deps = createDeps(config);
try {
  if (services) await ensureStorage(config, deps.s3);
  const started = performance.now();
  const { skills, written } = await new Rebuilder(deps).rebuildAll();
  const seconds = (performance.now() - started) / 1000;
  console.log(`Rebuilt ${skills} skills in ${seconds.toFixed(2)} s (${written} files written)`);
} finally {
  await services?.stop();
}
