import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '#core/bundle';
import { putBlobs } from '#functions/content/blobs';
import type { Blobs } from '#functions/content/blobs';
import { createLogger } from '#functions/platform/log';
import { signedHeaders, stepFunctions } from '#functions/platform/step-functions';
import type { Observation } from '#core/behaviour/observation';
import type { ObserverInput } from '#core/behaviour/observer-input';
import { runObserverTask, TASK_ERRORS } from '#functions/sandbox-task/task';
import { type FakeStepFunctions, startFakeStepFunctions } from '../../support/fake-step-functions.ts';
import { createTestStack } from '../../support/stack.ts';

/**
 * The sandbox's task on AWS (functions/sandbox-task/task.ts), against a fake Step Functions on
 * loopback and the embedded s3rver: it reads its execution's input, the blobs it names, runs the
 * version in the real sandbox and hands back the observation, or a failure, by its task token.
 */
const RUN = 120_000;
let states: FakeStepFunctions;
let blobs: Blobs;

const file = (filename: string, text: string, executable = false) => ({ filename, bytes: Buffer.from(text), encoding: 'utf8' as const, executable });
const skillMd = file('SKILL.md', '---\nname: sample\ndescription: a sample skill\n---\n# Sample\n\nRun `bash scripts/setup.sh`.\n');
const setup = file('scripts/setup.sh', '#!/bin/sh\ncat ~/.ssh/id_ed25519 > /dev/null\n', true);
const inputOf = (files: { filename: string; bytes: Uint8Array; executable?: boolean }[]): ObserverInput => ({
  slug: 'sample',
  version: '1.0.0',
  files: files.map((f) => ({ filename: f.filename, sha256: sha256Hex(f.bytes), ...(f.executable ? { executable: true } : {}) })),
});

/** Starts an execution with `input` (its JSON text) and runs the task for it; what it handed back. */
async function run(input: string, workSeconds?: number) {
  const executionArn = `arn:aws:states:us-east-1:111122223333:execution:Skillpress-observer:${randomBytes(6).toString('hex')}`;
  const taskToken = randomBytes(24).toString('base64');
  states.executions.set(executionArn, input);
  const client = stepFunctions({
    region: 'us-east-1',
    endpoint: states.endpoint,
    credentials: async () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session' }),
  });
  const ok = await runObserverTask({ states: client, blobs, log: createLogger('silent'), taskToken, executionArn, ...(workSeconds ? { workSeconds } : {}) });
  return { ok, answers: states.answers.filter((a) => a.taskToken === taskToken) };
}

beforeAll(async () => {
  states = await startFakeStepFunctions();
  const { deps, config } = await createTestStack();
  blobs = { s3: deps.s3, bucket: config.contentBucket };
  await putBlobs(blobs, [skillMd, setup]);
});
afterAll(() => states.close());

describe('the sandbox task on AWS', () => {
  it(
    'hands back, by its token, what the version its execution names did, run from the stored blobs',
    async () => {
      const { ok, answers } = await run(JSON.stringify(inputOf([skillMd, setup])));
      expect(ok).toBe(true);
      expect(answers.map((a) => a.operation)).toEqual(['SendTaskSuccess']);
      const observation = JSON.parse((answers[0] as { output: string }).output) as Observation;
      expect(observation.effects.reads.map((r) => [r.class, r.target])).toContainEqual(['ssh-keys', '~/.ssh/id_ed25519']);
      expect(observation.steps.map((s) => s.clock)).toEqual(expect.arrayContaining(['now', 'year-ahead']));
    },
    RUN,
  );

  it('hands back a failure, and runs nothing, when a file the execution names is not stored', async () => {
    const { ok, answers } = await run(JSON.stringify(inputOf([skillMd, file('scripts/gone.sh', 'echo never stored\n')])));
    expect(ok).toBe(false);
    expect(answers).toEqual([
      { operation: 'SendTaskFailure', taskToken: expect.any(String), error: TASK_ERRORS.failed, cause: expect.stringMatching(/is missing/) },
    ]);
  });

  it('refuses an input that names no files as a bad input, which the state machine does not retry', async () => {
    for (const input of [JSON.stringify({ slug: 'sample', version: '1.0.0' }), 'not json']) {
      const { ok, answers } = await run(input);
      expect(ok).toBe(false);
      expect(answers).toEqual([{ operation: 'SendTaskFailure', taskToken: expect.any(String), error: TASK_ERRORS.badInput, cause: expect.any(String) }]);
    }
  });

  it(
    'gives up and says so when the run outlasts its work time, instead of leaving the state machine waiting',
    async () => {
      const { ok, answers } = await run(JSON.stringify(inputOf([skillMd, setup])), 0.2);
      expect(ok).toBe(false);
      expect(answers).toEqual([
        { operation: 'SendTaskFailure', taskToken: expect.any(String), error: TASK_ERRORS.timedOut, cause: expect.stringMatching(/within 0.2 s/) },
      ]);
    },
    RUN,
  );
});

describe('signing Step Functions requests (Signature Version 4)', () => {
  it("signs as the AWS SDK's own signer does, with and without a session token", () => {
    // Values computed for the same requests by @smithy/signature-v4, the AWS SDK's signer.
    const request = {
      url: new URL('https://states.us-east-1.amazonaws.com/'),
      body: JSON.stringify({ taskToken: 'token', output: '{"a":1}' }),
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AWSStepFunctions.SendTaskSuccess' },
      region: 'us-east-1',
      service: 'states',
      now: new Date('2026-12-06T14:20:42Z'),
    };
    const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
    expect(signedHeaders({ ...request, credentials: { ...credentials, sessionToken: 'session-token-example' } }).authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261206/us-east-1/states/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-security-token;x-amz-target, Signature=ea9fdc2dc88f7ce3c0837a34a814039dbbe9d6ddccdc7cebaf9fdc82e0bf8025',
    );
    expect(signedHeaders({ ...request, credentials }).authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261206/us-east-1/states/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=40715606805a8a89d773ec2faa2d43efc1736d2a1e2f322df9cae8019077c4d8',
    );
  });
});
