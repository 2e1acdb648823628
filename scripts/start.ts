import { join, resolve } from 'node:path';
import { sweepExpiredContent } from '#functions/content/expiring-content';
import { configFromEnv } from '#functions/platform/config';
import { nonConformingReport } from '#functions/rebuild/non-conforming';
import { describeFailure } from '#functions/rebuild/skill-failure';
import { signingKeysCurrent } from '#functions/rebuild/rebuilder';
import { publishCliPackage } from './release/cli-package.ts';
import { markCleanStop, takeLastStop } from './local/clean-stop.ts';
import { serveApp } from './local/http-server.ts';
import { ensureStorage, startEmbeddedServices } from './local/stack.ts';
import { createLocalRuntime } from './local/runtime.ts';
import { localImportKey } from './local/import-key.ts';

/**
 * `npm start`: the whole service on one machine. The same handlers as on AWS, the same SDK calls,
 * against embedded DynamoDB and S3 that persist under DATA_DIR, and the catalog site at `/`,
 * rebuilt a few seconds after writes (SKILLPRESS_SITE=0 turns the site off;
 * SKILLPRESS_SITE_DEBOUNCE_MS sets the pause it waits for).
 */
// The SDK warns that Node 20 leaves support in 2027; the Lambdas run Node 24, and locally it is noise.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 8787);
const dataDir = resolve(process.env.DATA_DIR ?? '.data');

const lastStop = takeLastStop(dataDir);
const services = await startEmbeddedServices(dataDir);
const config = configFromEnv({
  ...process.env,
  DYNAMODB_ENDPOINT: services.dynamoEndpoint,
  S3_ENDPOINT: services.s3Endpoint,
  SKILLPRESS_DEV_LOGIN: process.env.SKILLPRESS_DEV_LOGIN ?? '1',
  // The registry's signing key, made at the first start (0600) and kept with the data it signs.
  SKILLPRESS_SIGNING_KEY_FILE: process.env.SKILLPRESS_SIGNING_KEY_FILE ?? join(dataDir, 'signing-key.pem'),
  // What GitHub imports' webhook secrets are derived from, kept with the imports.
  SKILLPRESS_IMPORT_KEY: process.env.SKILLPRESS_IMPORT_KEY || localImportKey(dataDir),
});
const siteOn = process.env.SKILLPRESS_SITE !== '0';
const debounceMs = Number(process.env.SKILLPRESS_SITE_DEBOUNCE_MS) || undefined;
const runtime = createLocalRuntime(
  config,
  {},
  {
    site: siteOn ? { workDir: join(dataDir, 'site'), debounceMs } : undefined,
    background: 'thread',
    // Rebuilds or counts were lost with the thread: stop as a crash would, so the next start repairs.
    onBackgroundFailure: () => process.exit(1),
    // A clean stop waited until every write was rebuilt; otherwise the full rebuild below runs first.
    rebuilder: { bundlesCompleteAtStart: true },
  },
);
await ensureStorage(config, runtime.deps.s3);
// s3rver has no lifecycle rules: what the content bucket keeps for days only (files sent ahead of
// a ClawHub publish, copies of large deliveries, shard outputs) is swept at start and hourly.
const sweepExpired = () =>
  sweepExpiredContent(runtime.deps.s3, config.contentBucket, new Date()).catch((error: Error) =>
    console.log(`Could not delete expired content (${error.message}); retrying in an hour`),
  );
void sweepExpired();
setInterval(sweepExpired, 60 * 60 * 1000).unref();
// A store older than signatures, or a new signing key: the full rebuild signs every version.
if (lastStop !== 'clean' || !(await signingKeysCurrent(runtime.deps))) {
  // A new store has no catalog or discovery index yet (the rebuild after a write is what writes
  // them), and a run that crashed may have lost the rebuilds of its last writes: the full
  // rebuild writes both, from whatever DynamoDB holds.
  const started = performance.now();
  const { skills, failed, nonConforming } = await runtime.rebuildAll();
  if (lastStop === 'unclean')
    console.log(`Skillpress did not stop cleanly last time; rebuilt the static files of ${skills} skills in ${Math.round(performance.now() - started)} ms`);
  // Those skills keep their old files; the rebuild retries them while the rest is served.
  if (failed.length > 0) {
    console.log(`Skillpress could not rebuild ${failed.length} skills; serving everything else and retrying them (GET /api/health lists them):`);
    for (const failure of failed) console.log(`  ${describeFailure(failure)}`);
  }
  for (const line of nonConformingReport(nonConforming)) console.log(line);
}
const app = runtime.app;
// The origin the site's install commands name (the built pages; a page's script names its own):
// this deployment's, else where this server listens (known here unless the port is chosen at listen).
if (config.siteOrigin || port !== 0) process.env.SKILLPRESS_PUBLIC_ORIGIN ??= config.siteOrigin ?? `http://${host}:${port}`;
await runtime.site?.start();

// Ctrl-C is handled before the listening line is printed: whoever reads that line may signal at once.
let server: import('node:http').Server | undefined;
let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  server?.close();
  await runtime.site?.stop();
  // A skill that keeps failing would hold the stop for the whole wait; the next start's full rebuild retries it.
  const failing = runtime.deps.failingRebuilds().length > 0;
  const drained = !failing && (await Promise.race([runtime.idle().then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 5000))]));
  await runtime.close();
  await services.stop();
  // Rebuilds still pending after 5 s, or failing, are left to the next start's repair.
  if (drained) markCleanStop(dataDir);
  process.exit(0);
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

const served = await serveApp(app.fetch, host, port, runtime.cdn);
server = served.server;
runtime.listening(`http://${host}:${served.port}`);
console.log(`Skillpress listening on http://${host}:${served.port}`);

// The registry serves its own client, defaulting to this origin: packed once the origin is known,
// behind the listening line (the bundle may need building first).
const origin = config.siteOrigin ?? `http://${host}:${served.port}`;
process.env.SKILLPRESS_PUBLIC_ORIGIN ??= origin;
publishCliPackage(runtime.deps, origin).then(
  ({ version }) => console.log(`Serving the skillpress CLI ${version} at ${origin}/cli/skillpress.tgz`),
  (error: Error) => console.log(`Could not pack the skillpress CLI (${error.message}); /cli/skillpress.tgz is not served`),
);
