// The S3 SDK as this code uses it: the client and the commands the adapters send. Importing this
// module loads the SDK; a Lambda reaches it only through `s3Sdk()` in s3.ts, on its first call to
// S3, and through it the bundle keeps only these commands of the SDK's hundred.
import { S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../platform/config.ts';
import { withoutSdkLogging } from '../platform/sdk-client.ts';

export { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';

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
