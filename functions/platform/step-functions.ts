import { createHash, createHmac } from 'node:crypto';
import type { ObserverInput } from '#core/behaviour/observer-input';
import type { ObservationRun, Observer } from '../services/behaviour.ts';
import { getVersion } from '../store/skills.ts';
import type { Deps } from './composition.ts';

/**
 * The observer on AWS: each run is an execution of the observation state machine (a Fargate task
 * running the sandbox, then the `observation` Lambda that records its result), started with
 * the version and its files by content hash (core/behaviour/observer-input.ts `ObserverInput`: the task
 * reads those blobs and nothing else of the store). Only StartExecution is called, signed with
 * the Lambda's own credentials (its role may start that one state machine), so the publish
 * waits for the start alone.
 */
export function stepFunctionsObserver(stateMachineArn: string, region: string, env: NodeJS.ProcessEnv = process.env): Observer {
  return {
    async start(deps: Deps, run: ObservationRun): Promise<void> {
      const stored = await getVersion(deps.db, run.skillId, run.version);
      if (!stored) throw new Error(`${run.slug}@${run.version} is not stored`);
      const input: ObserverInput = {
        slug: run.slug,
        version: run.version,
        files: stored.files.map(({ filename, sha256, executable }) => ({ filename, sha256, ...(executable ? { executable } : {}) })),
      };
      await stepFunctions({ region, credentials: async () => lambdaCredentials(env) }).call('StartExecution', {
        stateMachineArn,
        name: executionName(run),
        input: JSON.stringify(input),
      });
    },
  };
}

/** The version and the moment, within Step Functions' 80 characters: a second attempt at a version is an execution of its own. */
function executionName(run: ObservationRun): string {
  return `${`${run.skillId}-${run.version}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64)}-${Date.now().toString(36)}`;
}

/** The credentials Lambda puts in the environment. */
function lambdaCredentials(env: NodeJS.ProcessEnv): Credentials {
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) throw new Error('no AWS credentials in the environment to start an observation with');
  return { accessKeyId, secretAccessKey, ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}) };
}

/**
 * The three AWS Step Functions calls the sandbox's task makes (functions/sandbox-task/task-main.ts):
 * read its execution's input, and hand back its result or its failure by the task token the
 * state machine gave it. Spoken as the service's JSON 1.0 protocol (`X-Amz-Target:
 * AWSStepFunctions.<Operation>`), signed with Signature Version 4: the task needs three calls,
 * not the service's client package. The credentials come from the caller (the SDK's own
 * provider chain, which on ECS reads the task role's).
 */
export interface StepFunctions {
  /** One call of the service's API: its JSON answer; throws with the status and error type on an error. */
  call(operation: string, input: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** The input the execution was started with, as the JSON text it was given. */
  executionInput(executionArn: string): Promise<string>;
  sendTaskSuccess(taskToken: string, output: string): Promise<void>;
  sendTaskFailure(taskToken: string, error: string, cause: string): Promise<void>;
}

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface StepFunctionsOptions {
  region: string;
  credentials: () => Promise<Credentials>;
  /** The service's endpoint; AWS's regional one unless set (tests run a fake on loopback). */
  endpoint?: string;
}

/** Step Functions' limits on what a failure carries (characters). */
const ERROR_CHARS = 256;
const CAUSE_CHARS = 32_768;

export function stepFunctions(options: StepFunctionsOptions): StepFunctions {
  const endpoint = options.endpoint ?? `https://states.${options.region}.amazonaws.com/`;
  const call = async (operation: string, input: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const body = JSON.stringify(input);
    const url = new URL(endpoint);
    const headers = signedHeaders({
      url,
      body,
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `AWSStepFunctions.${operation}` },
      region: options.region,
      service: 'states',
      credentials: await options.credentials(),
      now: new Date(),
    });
    // fetch sets Host itself, from the URL that was signed.
    const { host: _host, ...sent } = headers;
    const response = await fetch(url, { method: 'POST', headers: sent, body, signal: AbortSignal.timeout(10_000) });
    const text = await response.text();
    if (!response.ok) {
      // The service's error type only: its message may quote the request (a task token).
      const type = /"__type"\s*:\s*"([^"]{1,200})"/.exec(text)?.[1] ?? 'unknown';
      throw new Error(`Step Functions ${operation} answered ${response.status} ${type}`);
    }
    return JSON.parse(text || '{}') as Record<string, unknown>;
  };
  return {
    call,
    async executionInput(executionArn) {
      const { input } = await call('DescribeExecution', { executionArn });
      if (typeof input !== 'string') throw new Error('the execution has no input (DescribeExecution returned none)');
      return input;
    },
    async sendTaskSuccess(taskToken, output) {
      await call('SendTaskSuccess', { taskToken, output });
    },
    async sendTaskFailure(taskToken, error, cause) {
      await call('SendTaskFailure', { taskToken, error: error.slice(0, ERROR_CHARS), cause: cause.slice(0, CAUSE_CHARS) });
    },
  };
}

export interface SigningRequest {
  url: URL;
  body: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  region: string;
  service: string;
  credentials: Credentials;
  now: Date;
}

const sha256 = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/**
 * The headers of a POST signed with Signature Version 4 (AWS's "Create a signed AWS API request"):
 * the request's headers with `host`, `x-amz-date`, the session token when there is one, and
 * `authorization`. The request has no query string.
 */
export function signedHeaders(request: SigningRequest): Record<string, string> {
  const amzDate = request.now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const headers: Record<string, string> = {
    ...request.headers,
    host: request.url.host,
    'x-amz-date': amzDate,
    ...(request.credentials.sessionToken ? { 'x-amz-security-token': request.credentials.sessionToken } : {}),
  };
  const names = Object.keys(headers).sort();
  const canonicalRequest = [
    'POST',
    request.url.pathname || '/',
    '',
    ...names.map((name) => `${name}:${headers[name]!.trim()}`),
    '',
    names.join(';'),
    sha256(request.body),
  ].join('\n');
  const scope = `${day}/${request.region}/${request.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const key = [day, request.region, request.service, 'aws4_request'].reduce<string | Buffer>(
    (k, part) => hmac(k, part),
    `AWS4${request.credentials.secretAccessKey}`,
  );
  const signature = createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
  return {
    ...headers,
    authorization: `AWS4-HMAC-SHA256 Credential=${request.credentials.accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`,
  };
}
