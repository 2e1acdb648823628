// The bench's floor for a Lambda's cold import (scripts/bench/bundles.ts): what every HTTP Lambda
// cannot do without, Hono's app and Lambda adapter and the DynamoDB document client built as
// functions/store/db.ts builds it, and nothing of ours.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Hono } from 'hono';
import { handle } from 'hono/aws-lambda';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: process.env.AWS_REGION, maxAttempts: 4 }), {
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true },
});

export const handler = handle(new Hono().get('/api/health', (c) => c.json({ status: doc ? 'ok' : 'none' })));
