import { createS3 } from '../content/s3-client.ts';
import { configFromEnv } from '../platform/config.ts';
import { createLogger, errorFields } from '../platform/log.ts';
import { stepFunctions } from '../platform/step-functions.ts';
import { runObserverTask } from './task.ts';

/**
 * The entry of the sandbox's image (functions/sandbox/Dockerfile; `npm run build` bundles it
 * into dist/sandbox): one observation, then the process ends, and with it the task. The state
 * machine passes the task token and its execution's ARN in the environment; the content
 * bucket and the region are the task definition's. Credentials are the task role's, read by
 * the SDK's provider chain through the S3 client's configuration.
 */
const log = createLogger();
const env = process.env;
let ok = false;
try {
  const taskToken = env.SKILLPRESS_TASK_TOKEN;
  const executionArn = env.SKILLPRESS_EXECUTION;
  if (!taskToken || !executionArn) throw new Error('SKILLPRESS_TASK_TOKEN and SKILLPRESS_EXECUTION must be set (the state machine sets them)');
  const config = configFromEnv(env);
  const s3 = createS3(config);
  const states = stepFunctions({ region: config.region, credentials: () => s3.config.credentials() });
  ok = await runObserverTask({ states, blobs: { s3, bucket: config.contentBucket }, log, taskToken, executionArn });
} catch (error) {
  log.error('the observer task could not report', errorFields(error));
}
// Whatever the sandbox left running ends with the task.
process.exit(ok ? 0 : 1);
