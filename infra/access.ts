import type { LambdaSpec } from './lambdas.ts';

/**
 * What each level of access in `infra/lambdas.ts` means in IAM actions. The stack writes its
 * policies from these lists, and the access test replays each Lambda's requests against the
 * embedded services and checks every AWS call it makes with {@link allows}: the two cannot drift
 * apart, and a Lambda whose code needs more than its policy grants fails a test, not production.
 */

export const tableActions = {
  read: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'],
  scan: ['dynamodb:Scan'],
  /** Only on items whose partition key starts with one of the Lambda's write prefixes. */
  write: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'],
} as const;

export const bucketActions = {
  /** ListBucket on the bucket itself makes a missing object a 404 instead of a 403. */
  read: ['s3:GetObject'],
  write: ['s3:GetObject', 's3:PutObject'],
  list: ['s3:ListBucket'],
} as const;

/** One AWS call a Lambda made, as the access test records it. */
export type AwsCall = { service: 'dynamodb'; action: string; partitionKeys: string[] } | { service: 's3'; bucket: 'content' | 'static'; action: string };

/** True when the access declared for `spec` lets it make `call`. */
export function allows(spec: LambdaSpec, call: AwsCall): boolean {
  if (call.service === 'dynamodb') {
    const { table } = spec;
    if ((tableActions.read as readonly string[]).includes(call.action)) return table.read;
    if ((tableActions.scan as readonly string[]).includes(call.action)) return table.scan === true;
    if ((tableActions.write as readonly string[]).includes(call.action)) {
      return call.partitionKeys.length > 0 && call.partitionKeys.every((pk) => table.write.some((prefix) => pk.startsWith(prefix)));
    }
    return false;
  }
  // A shard of the full rebuild stores its output in the content bucket (under rebuild-runs/, the grant's prefix).
  if (call.bucket === 'content' && call.action === 's3:PutObject' && spec.fullRebuild === 'shard') return true;
  const level = call.bucket === 'content' ? spec.content : spec.static;
  if (!level) return false;
  return [...bucketActions[level], ...bucketActions.list].includes(call.action as never);
}
