import type { S3Client } from '@aws-sdk/client-s3';
import { limits } from '#core/limits';
import { s3Sdk } from './s3.ts';
import { PREPARED_DELIVERIES_PREFIX, PREPARED_DELIVERY_DAYS } from './delivery-links.ts';
import { SENT_AHEAD_PREFIX } from './sent-ahead.ts';
import { SHARD_OUTPUTS_PREFIX } from './shard-outputs.ts';

/**
 * The content bucket's prefixes whose objects are kept for days only: on AWS its lifecycle rules
 * (infra/stack.ts makes one per entry), locally {@link sweepExpiredContent}, which `npm start`
 * runs at start and every hour (s3rver has no lifecycle).
 */
export const EXPIRING_CONTENT = [
  // The full rebuild's shard outputs are for the one run that wrote them (shard-outputs.ts).
  { prefix: SHARD_OUTPUTS_PREFIX, days: 2 },
  // Copies of large deliveries behind pre-signed links (delivery-links.ts), written again before they expire.
  { prefix: PREPARED_DELIVERIES_PREFIX, days: PREPARED_DELIVERY_DAYS },
  // Files sent ahead of a ClawHub publish (sent-ahead.ts): a publish stores what it takes elsewhere.
  { prefix: SENT_AHEAD_PREFIX, days: limits.clawhubUploads.keptDays },
] as const;

const DAY_MS = 24 * 60 * 60 * 1000;

/** Deletes the objects under {@link EXPIRING_CONTENT}'s prefixes older than their days at `now`, as the lifecycle rules do; returns how many. */
export async function sweepExpiredContent(s3: S3Client, bucket: string, now: Date): Promise<number> {
  const { DeleteObjectCommand, ListObjectsV2Command } = await s3Sdk();
  let deleted = 0;
  for (const { prefix, days } of EXPIRING_CONTENT) {
    let token: string | undefined;
    do {
      const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
      for (const object of page.Contents ?? []) {
        if (object.Key && object.LastModified && now.getTime() - object.LastModified.getTime() >= days * DAY_MS) {
          await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: object.Key }));
          deleted += 1;
        }
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
  return deleted;
}
