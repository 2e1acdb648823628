import { createHash, createHmac } from 'node:crypto';
import type { Deps } from './composition.ts';
import type { ObservationRun, Observer } from '../services/behaviour.ts';

/**
 * The observer on AWS: each run is an execution of the observation state machine (a Fargate task
 * running the sandbox, then the `observation` Lambda that records its result), started with
 * `{slug, version}`. Only StartExecution is called, signed with the Lambda's own credentials
 * (its role may start that one state machine), so the publish waits for the start alone.
 */
export function stepFunctionsObserver(stateMachineArn: string, region: string, env: NodeJS.ProcessEnv = process.env): Observer {
  return {
    async start(_deps: Deps, run: ObservationRun): Promise<void> {
      const body = JSON.stringify({ stateMachineArn, name: executionName(run), input: JSON.stringify({ slug: run.slug, version: run.version }) });
      const host = `states.${region}.amazonaws.com`;
      const response = await fetch(`https://${host}/`, {
        method: 'POST',
        headers: signedHeaders(host, region, body, env),
        body,
        signal: AbortSignal.timeout(10_000),
      });
      if (!response.ok) throw new Error(`StartExecution answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
    },
  };
}

/** The version and the moment, within Step Functions' 80 characters: a second attempt at a version is an execution of its own. */
function executionName(run: ObservationRun): string {
  return `${`${run.skillId}-${run.version}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64)}-${Date.now().toString(36)}`;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const hmac = (key: Buffer | string, text: string) => createHmac('sha256', key).update(text).digest();

/** Signature Version 4 of a JSON 1.0 call to Step Functions, with the credentials Lambda puts in the environment. */
function signedHeaders(host: string, region: string, body: string, env: NodeJS.ProcessEnv): Record<string, string> {
  const accessKey = env.AWS_ACCESS_KEY_ID;
  const secret = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKey || !secret) throw new Error('no AWS credentials in the environment to start an observation with');
  const amzDate = new Date().toISOString().replace(/[:-]|\.\d{3}/g, '');
  const day = amzDate.slice(0, 8);
  const headers: Record<string, string> = {
    'content-type': 'application/x-amz-json-1.0',
    host,
    'x-amz-date': amzDate,
    'x-amz-target': 'AWSStepFunctions.StartExecution',
    ...(env.AWS_SESSION_TOKEN ? { 'x-amz-security-token': env.AWS_SESSION_TOKEN } : {}),
  };
  const names = Object.keys(headers).sort();
  const canonical = ['POST', '/', '', ...names.map((n) => `${n}:${headers[n]}`), '', names.join(';'), sha256(body)].join('\n');
  const scope = `${day}/${region}/states/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), 'states'), 'aws4_request');
  const signature = createHmac('sha256', key).update(toSign).digest('hex');
  const { host: _host, ...sent } = headers;
  return { ...sent, authorization: `AWS4-HMAC-SHA256 Credential=${accessKey}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}` };
}
