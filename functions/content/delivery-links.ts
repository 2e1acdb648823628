import type { S3Client } from '@aws-sdk/client-s3';
import { limits } from '#core/limits';
import { isMissing, putObject, s3Sdk, sdkClient } from './s3.ts';

/**
 * Links to deliveries too large to answer in a response (docs/api.md §7.6, §14.5) whose content
 * is not on the site (paid, private; ClawHub's ZIPs): the delivery's body is kept as an object of the private content bucket,
 * under {@link PREPARED_DELIVERIES_PREFIX}, and the caller is sent a pre-signed GET of it that
 * works for {@link limits.deliveryLinkSeconds}. A version's delivery never changes, so one object
 * per version serves every caller. The bucket expires these objects after
 * {@link PREPARED_DELIVERY_DAYS} days; one older than a day less is written again before it is
 * linked to, so no link outlives its object.
 */
export const PREPARED_DELIVERIES_PREFIX = 'deliveries/';
export const PREPARED_DELIVERY_DAYS = 7;
const REWRITE_AFTER_MS = (PREPARED_DELIVERY_DAYS - 1) * 24 * 60 * 60 * 1000;

/** How a delivery is kept: the JSON of `GET /api/deliver`, or the ZIP of ClawHub's download. */
export type DeliveryFormat = 'json' | 'zip';
const CONTENT_TYPES: Record<DeliveryFormat, string> = { json: 'application/json', zip: 'application/zip' };

export const preparedDeliveryKey = (skillId: string, version: string, format: DeliveryFormat = 'json') =>
  `${PREPARED_DELIVERIES_PREFIX}${skillId}/${version}.${format}`;

export interface PreparedDeliveries {
  s3: S3Client;
  bucket: string;
}

/** When this process last knew each prepared object written, by bucket and key: at most a few thousand. */
const written = new Map<string, number>();
const REMEMBERED = 4096;

/**
 * A pre-signed GET of the delivery `body` of `skillId`'s `version`, writing its object first when
 * the bucket lacks it (or holds one about to expire). Nothing else may see the link: it is a
 * credential for the content until it expires.
 */
export async function deliveryLink(
  where: PreparedDeliveries,
  skillId: string,
  version: string,
  body: Uint8Array,
  format: DeliveryFormat = 'json',
): Promise<string> {
  const key = preparedDeliveryKey(skillId, version, format);
  const id = `${where.bucket}/${key}`;
  const now = Date.now();
  const known = written.get(id);
  if (known === undefined || now - known > REWRITE_AFTER_MS) {
    const stored = await lastModified(where, key);
    const fresh = stored !== undefined && now - stored <= REWRITE_AFTER_MS;
    if (!fresh) await putObject(where.s3, where.bucket, key, body, { contentType: CONTENT_TYPES[format], cacheControl: 'private, no-store' });
    if (written.size >= REMEMBERED) written.clear();
    written.set(id, fresh ? stored : now);
  }
  // Only large deliveries need the presigner: loaded on the first, not at every cold start.
  const [{ getSignedUrl }, { GetObjectCommand }, client] = await Promise.all([import('@aws-sdk/s3-request-presigner'), s3Sdk(), sdkClient(where.s3)]);
  return getSignedUrl(client, new GetObjectCommand({ Bucket: where.bucket, Key: key }), { expiresIn: limits.deliveryLinkSeconds });
}

async function lastModified(where: PreparedDeliveries, key: string): Promise<number | undefined> {
  const { HeadObjectCommand } = await s3Sdk();
  try {
    const head = await where.s3.send(new HeadObjectCommand({ Bucket: where.bucket, Key: key }));
    return head.LastModified?.getTime() ?? 0;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}
