import type { AwsCall } from '../../infra/access.ts';
import type { Deps } from '#functions/platform/composition';

/**
 * Records every DynamoDB and S3 call a stack's handlers make, in IAM terms (action, partition
 * keys, which bucket), by adding middleware to the SDK clients the handlers share.
 */
export interface RecordedCall {
  /** Whatever `ownerOf` said when the call was made (the Lambda it belongs to). */
  owner?: string;
  call: AwsCall;
}

export interface AwsCallRecorder {
  /** The calls since the last take. */
  take(): RecordedCall[];
}

const s3Actions: Record<string, string> = {
  HeadObject: 's3:GetObject',
  GetObject: 's3:GetObject',
  PutObject: 's3:PutObject',
  DeleteObject: 's3:DeleteObject',
  DeleteObjects: 's3:DeleteObject',
  ListObjectsV2: 's3:ListBucket',
  HeadBucket: 's3:ListBucket',
};

export function recordAwsCalls(deps: Deps, ownerOf: () => string | undefined = () => undefined): AwsCallRecorder {
  let calls: RecordedCall[] = [];
  deps.db.doc.middlewareStack.add(
    (next, context) => async (args) => {
      const name = (context.commandName ?? '').replace(/Command$/, '');
      calls.push({
        owner: ownerOf(),
        call: { service: 'dynamodb', action: `dynamodb:${name}`, partitionKeys: partitionKeys(args.input as Record<string, unknown>) },
      });
      return next(args);
    },
    { step: 'serialize', name: 'recordDynamoCalls' },
  );
  deps.s3.middlewareStack.add(
    (next, context) => async (args) => {
      const name = (context.commandName ?? '').replace(/Command$/, '');
      const bucket = (args.input as { Bucket?: string }).Bucket;
      calls.push({
        owner: ownerOf(),
        call: { service: 's3', bucket: bucket === deps.config.contentBucket ? 'content' : 'static', action: s3Actions[name] ?? `s3:${name}` },
      });
      return next(args);
    },
    { step: 'initialize', name: 'recordS3Calls' },
  );
  return {
    take: () => {
      const taken = calls;
      calls = [];
      return taken;
    },
  };
}

type Attr = { S?: string } | undefined;

/** The partition keys a (marshalled) write names, in a single-item or a batch request. */
function partitionKeys(input: Record<string, unknown>): string[] {
  const keys: string[] = [];
  const add = (item: unknown) => {
    const pk = (item as { pk?: Attr } | undefined)?.pk?.S;
    if (pk) keys.push(pk);
  };
  add(input.Key);
  add(input.Item);
  const batch = input.RequestItems as Record<string, { PutRequest?: { Item: unknown }; DeleteRequest?: { Key: unknown } }[]> | undefined;
  for (const requests of Object.values(batch ?? {})) {
    for (const r of Array.isArray(requests) ? requests : []) {
      add(r.PutRequest?.Item);
      add(r.DeleteRequest?.Key);
    }
  }
  return keys;
}
