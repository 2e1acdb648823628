import type { DynamoDBRecord, ScheduledEvent } from 'aws-lambda';

/** A record as DynamoDB Streams delivers it to Lambda (NEW_AND_OLD_IMAGES). */
export function streamRecord(pk: string, sk: string, eventName: 'INSERT' | 'MODIFY' | 'REMOVE' = 'INSERT', sequenceNumber = '111'): DynamoDBRecord {
  return {
    eventID: `${pk}-${sk}`,
    eventName,
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'us-east-1',
    dynamodb: {
      ApproximateCreationDateTime: 1_763_000_000,
      Keys: { pk: { S: pk }, sk: { S: sk } },
      NewImage: eventName === 'REMOVE' ? undefined : { pk: { S: pk }, sk: { S: sk } },
      SequenceNumber: sequenceNumber,
      SizeBytes: 26,
      StreamViewType: 'NEW_AND_OLD_IMAGES' as const,
    },
    eventSourceARN: 'arn:aws:dynamodb:us-east-1:123456789012:table/skillpress/stream/2026-01-01T00:00:00.000',
  };
}

/** The event an EventBridge schedule rule sends its target. */
export function scheduledEvent(rule: string): ScheduledEvent {
  return {
    version: '0',
    id: '53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa',
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '123456789012',
    time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: 'us-east-1',
    resources: [`arn:aws:events:us-east-1:123456789012:rule/${rule}`],
    detail: {},
  };
}
