import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../platform/config.ts';
import { withoutSdkLogging } from '../platform/sdk-client.ts';

/** The S3 client, set up for AWS or for the embedded s3rver (docs/architecture.md, "Production parts and local stand-ins"). */
export function createS3(config: Config): S3Client {
  const client = new S3Client({
    region: config.region,
    ...(config.s3Endpoint
      ? {
          endpoint: config.s3Endpoint,
          forcePathStyle: true,
          credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
        }
      : {}),
    // s3rver stores streamed uploads corrupted when the SDK adds its default checksums.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 4,
  });
  withoutSdkLogging(client);
  // Sign the request but not its body, as boto3 does over HTTPS (TLS already protects the bytes;
  // locally it is loopback). Otherwise the SDK hashes every body it uploads with SHA-256 before
  // sending it: ~1.7 ms of CPU per rewrite of the catalog and discovery index at 1,000 skills.
  // Measured A/B, publishing one at a time: 43.6 → 40.4 ms of CPU per publish, 40.6 → 43.6/s.
  client.middlewareStack.add(
    (next) => (args) => {
      const request = args.request as { headers?: Record<string, string>; body?: unknown };
      if (request.headers && request.body != null) request.headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
      return next(args);
    },
    { step: 'build', name: 'unsignedPayload' },
  );
  return client;
}

export function isMissing(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

/** Reads an object's bytes, or undefined when it does not exist. */
export async function getObjectBytes(s3: S3Client, bucket: string, key: string): Promise<Uint8Array | undefined> {
  try {
    const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return await out.Body!.transformToByteArray();
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

export async function objectExists(s3: S3Client, bucket: string, key: string): Promise<boolean> {
  try {
    await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return true;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}

export async function putObject(
  s3: S3Client,
  bucket: string,
  key: string,
  body: Uint8Array | string,
  meta: { contentType: string; cacheControl?: string; metadata?: Record<string, string> },
): Promise<void> {
  await s3.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: key,
      Body: body,
      ContentType: meta.contentType,
      CacheControl: meta.cacheControl,
      Metadata: meta.metadata,
    }),
  );
}
