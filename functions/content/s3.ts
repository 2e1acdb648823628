import type { S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../platform/config.ts';

/** The S3 SDK's client and the commands this code sends (`s3-client.ts`). */
type S3Sdk = typeof import('./s3-client.ts');
let sdk: Promise<S3Sdk> | undefined;

/**
 * The S3 SDK, loaded by the first call that sends a command rather than when a Lambda starts:
 * its client, commands and their schemas are about 150 KiB of each bundle granted a bucket, a
 * third of what such a cold start loads beyond Hono and the DynamoDB client, and many requests
 * never reach S3 (docs/architecture.md, "What a cold start loads"). The adapters of this folder
 * take their commands from it.
 */
export function s3Sdk(): Promise<S3Sdk> {
  sdk ??= import('./s3-client.ts');
  return sdk;
}

/** The SDK client behind each value {@link s3OnFirstSend} made. */
const clients = new WeakMap<S3Client, () => Promise<S3Client>>();

/**
 * An S3 client whose SDK is loaded, and the client built (`s3-client.ts`), by the first command
 * it is sent: the composition root's, so that no cold start pays for S3 before a request needs
 * it. Only `send` may be used before then: any other property read throws, saying so (the
 * presigner takes the client from {@link sdkClient}).
 */
export function s3OnFirstSend(config: Config): S3Client {
  let building: Promise<S3Client> | undefined;
  let built: S3Client | undefined;
  const client = () => {
    building ??= s3Sdk().then(({ createS3 }) => {
      built = createS3(config);
      return built;
    });
    return building;
  };
  const send: S3Client['send'] = async (command: Parameters<S3Client['send']>[0]) => (await client()).send(command);
  const lazy = new Proxy({} as S3Client, {
    get: (_, key) => {
      if (key === 'send') return send;
      // Awaiting a value reads its `then`: this one is not a promise.
      if (key === 'then' || typeof key === 'symbol') return undefined;
      if (!built) throw new Error(`The S3 client is built by its first send; ${key} was read before it`);
      const value = Reflect.get(built, key);
      return typeof value === 'function' ? value.bind(built) : value;
    },
  });
  clients.set(lazy, client);
  return lazy;
}

/** The SDK's own client behind `s3`, built if it is not yet: for what takes the client itself rather than sending through it (the presigner). */
export function sdkClient(s3: S3Client): Promise<S3Client> {
  return clients.get(s3)?.() ?? Promise.resolve(s3);
}

export function isMissing(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

/** Reads an object's bytes, or undefined when it does not exist. */
export async function getObjectBytes(s3: S3Client, bucket: string, key: string): Promise<Uint8Array | undefined> {
  const { GetObjectCommand } = await s3Sdk();
  try {
    const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return await out.Body!.transformToByteArray();
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

export async function objectExists(s3: S3Client, bucket: string, key: string): Promise<boolean> {
  const { HeadObjectCommand } = await s3Sdk();
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
  const { PutObjectCommand } = await s3Sdk();
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
