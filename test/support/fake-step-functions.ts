import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake AWS Step Functions on loopback, for `functions/platform/step-functions.ts` (pointed at it
 * with its `endpoint`). It speaks the service's JSON 1.0 protocol (`X-Amz-Target:
 * AWSStepFunctions.<Operation>`, errors as `{__type, message}`), refuses a request not signed
 * with Signature Version 4 for `states`, and implements what the sandbox's task calls:
 * DescribeExecution of the executions it was given, SendTaskSuccess and SendTaskFailure.
 */
export interface FakeStepFunctions {
  endpoint: string;
  /** The input of each execution DescribeExecution answers for, by ARN. */
  executions: Map<string, string>;
  /** Every answer a task handed back, in order. */
  answers: (
    | { operation: 'SendTaskSuccess'; taskToken: string; output: string }
    | { operation: 'SendTaskFailure'; taskToken: string; error: string; cause: string }
  )[];
  close(): Promise<void>;
}

export async function startFakeStepFunctions(): Promise<FakeStepFunctions> {
  const executions = new Map<string, string>();
  const answers: FakeStepFunctions['answers'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const answer = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify(json));
      };
      const signed = /^AWS4-HMAC-SHA256 Credential=[^/]+\/\d{8}\/[a-z0-9-]+\/states\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/;
      if (!signed.test(String(req.headers.authorization)) || !req.headers['x-amz-date']) {
        return answer(403, { __type: 'MissingAuthenticationTokenException', message: 'not signed' });
      }
      const input = JSON.parse(body) as Record<string, string>;
      const operation = String(req.headers['x-amz-target']).replace('AWSStepFunctions.', '');
      if (operation === 'DescribeExecution') {
        const known = executions.get(input.executionArn!);
        return known === undefined
          ? answer(400, { __type: 'ExecutionDoesNotExist', message: 'no such execution' })
          : answer(200, { executionArn: input.executionArn, status: 'RUNNING', input: known });
      }
      if (operation === 'SendTaskSuccess') {
        answers.push({ operation, taskToken: input.taskToken!, output: input.output! });
        return answer(200, {});
      }
      if (operation === 'SendTaskFailure') {
        answers.push({ operation, taskToken: input.taskToken!, error: input.error!, cause: input.cause! });
        return answer(200, {});
      }
      return answer(400, { __type: 'UnknownOperationException', message: operation });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}/`,
    executions,
    answers,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
