import { resolve } from 'node:path';
import { serve } from '@hono/node-server';
import { configFromEnv } from '#functions/config';
import { createDeps } from '#functions/deps';
import { createApp } from '#functions/http/app';
import { allRoutes } from '#functions/http/all-routes';
import { ensureStorage, startEmbeddedServices } from './local-stack.ts';

/**
 * `npm start`: the whole service on one machine. The same handlers as on AWS, the same SDK calls,
 * against embedded DynamoDB and S3 that persist under DATA_DIR.
 */
// The SDK warns that Node 20 leaves support in 2027; the Lambdas run Node 22, and locally it is noise.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 8787);
const dataDir = resolve(process.env.DATA_DIR ?? '.data');

const services = await startEmbeddedServices(dataDir);
const config = configFromEnv({
  ...process.env,
  DYNAMODB_ENDPOINT: services.dynamoEndpoint,
  S3_ENDPOINT: services.s3Endpoint,
  SKILLPRESS_DEV_LOGIN: process.env.SKILLPRESS_DEV_LOGIN ?? '1',
});
const deps = createDeps(config);
await ensureStorage(config, deps.s3);
const app = createApp(deps, allRoutes);

const server = serve({ fetch: app.fetch, hostname: host, port }, (info) => {
  console.log(`Skillpress listening on http://${host}:${info.port}`);
});

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  server.close();
  await services.stop();
  process.exit(0);
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
