import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { installTotalKey } from '#functions/store/keys';
import { authorStack, publish } from '../support/delivery.ts';
import { skillFile, type TestStack } from '../support/stack.ts';

let stack: TestStack;
let aliceKey: string;
const saved = { ...process.env };

beforeAll(async () => {
  ({ stack, aliceKey } = await authorStack());
  // A Lambda entry reads its configuration from the environment when it is first imported.
  Object.assign(process.env, {
    TABLE_NAME: stack.config.tableName,
    CONTENT_BUCKET: stack.config.contentBucket,
    STATIC_BUCKET: stack.config.staticBucket,
    DYNAMODB_ENDPOINT: stack.config.dynamoEndpoint,
    S3_ENDPOINT: stack.config.s3Endpoint,
    LOG_LEVEL: 'silent',
  });
  vi.resetModules();
});

afterAll(() => {
  process.env = saved;
});

/** An API Gateway HTTP API (payload 2.0) GET event. */
const getEvent = (path: string, query = '') => ({
  version: '2.0',
  routeKey: '$default',
  rawPath: path,
  rawQueryString: query,
  headers: { host: 'api.example.test', 'x-forwarded-proto': 'https' },
  requestContext: {
    domainName: 'api.example.test',
    http: { method: 'GET', path, protocol: 'HTTP/1.1', sourceIp: '203.0.113.9', userAgent: 'test' },
    requestId: 'r1',
    stage: '$default',
    timeEpoch: Date.now(),
  },
  isBase64Encoded: false,
});

describe('the deliver Lambda entry', () => {
  it('has written the install count by the time the invocation returns', async () => {
    const file = skillFile('from-lambda', '# From Lambda');
    const skill = await publish(stack, aliceKey, { slug: 'from-lambda', files: [file] });
    const { handler } = await import('#functions/handlers/deliver');
    const result = (await handler(getEvent(`/api/deliver/${skill.id}`, 'source=cli') as never, {} as never)) as {
      statusCode: number;
      body: string;
      headers: Record<string, string>;
    };
    expect(result.statusCode).toBe(200);
    expect(result.headers['cache-control']).toBe('private, no-store');
    expect(JSON.parse(result.body)).toMatchObject({ skillId: skill.id, version: '1.0.0', files: [file] });
    // Read straight after the return, with nothing else flushing: the count is already there.
    const { Item } = await stack.deps.db.doc.send(new GetCommand({ TableName: stack.deps.db.table, Key: installTotalKey(skill.id), ConsistentRead: true }));
    expect(Item).toMatchObject({ cli: 1 });
  });
});
