import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteBucketCorsCommand,
  GetBucketCorsCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  PutBucketCorsCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { mapLimit } from '#core/map-limit';
import { configFromEnv } from '#functions/platform/config';
import { getObjectBytes, putObject } from '#functions/content/s3';
import { createS3 } from '#functions/content/s3-client';
import { createDb, getItems } from '#functions/store/db';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ensureStorage, startEmbeddedServices } from '#scripts/local/stack';
import { isAlive } from '#scripts/local/server-process';
import { createTestStack } from '../support/stack.ts';

describe('the embedded S3', () => {
  it('takes uploads signed without a payload hash, and stores their bytes', async () => {
    const stack = await createTestStack();
    const sent: Record<string, string>[] = [];
    // After signing: what goes on the wire.
    stack.deps.s3.middlewareStack.add(
      (next) => (args) => {
        sent.push({ ...(args.request as { headers: Record<string, string> }).headers });
        return next(args);
      },
      { step: 'finalizeRequest', name: 'recordSent', priority: 'low' },
    );
    const body = Buffer.from('{"skills":[]}'.repeat(1000));
    await stack.deps.staticStore.put('.well-known/skills.json', body);
    expect(Buffer.from((await stack.deps.staticStore.get('.well-known/skills.json'))!)).toEqual(body);
    expect(sent[0]!['x-amz-content-sha256']).toBe('UNSIGNED-PAYLOAD');
    expect(sent[0]!.authorization).toMatch(/^AWS4-HMAC-SHA256 .*SignedHeaders=[^,]*x-amz-content-sha256/);
    // A read has no body to leave unsigned.
    expect(sent[1]!['x-amz-content-sha256']).not.toBe('UNSIGNED-PAYLOAD');
  });

  it('lists more than 1,000 keys across pages, each once and in key order', async () => {
    const stack = await createTestStack();
    // The static tree's shape: `registry/<slug>.json` beside the folder `registry/<slug>/`.
    const keys = Array.from({ length: 550 }, (_, i) => [`registry/s${i}.json`, `registry/s${i}/versions.json`]).flat();
    await mapLimit(keys, 16, (key) => stack.deps.staticStore.put(key, key));
    const listed = [...(await stack.deps.staticStore.list('')).keys()];
    expect(listed).toEqual([...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
  });

  it('never answers a read with part of an object that is being written', async () => {
    const SIZE = 256 * 1024;
    const stack = await createTestStack();
    const seen: string[] = [];
    for (let round = 1; round <= 10; round++) {
      // Each version of the object is one byte value repeated, so any mix or cut shows. A quarter
      // of a megabyte is four chunks of a streamed write, which is where s3rver's own store let
      // a read see part of it.
      const body = Buffer.alloc(SIZE + round * 1000, round);
      const writing = stack.deps.staticStore.put('race/object.bin', body);
      const reads: Promise<Uint8Array | undefined>[] = [];
      for (let i = 0; i < 20; i++) {
        reads.push(stack.deps.staticStore.get('race/object.bin'));
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      await writing;
      for (const bytes of [...(await Promise.all(reads)), await stack.deps.staticStore.get('race/object.bin')]) {
        if (!bytes) continue; // before the first write
        const version = bytes[0]!;
        if (bytes.byteLength !== SIZE + version * 1000 || !bytes.every((b) => b === version)) seen.push(`round ${round}: ${bytes.byteLength} bytes`);
      }
      expect(Buffer.from((await stack.deps.staticStore.get('race/object.bin'))!).equals(body)).toBe(true);
    }
    expect(seen).toEqual([]);
  });
});

describe('the embedded S3 writing over objects', () => {
  const md5 = (text: string) => JSON.stringify(createHash('md5').update(text).digest('hex'));

  it('writes a shorter object over a longer one exactly, and serves its MD5 as the ETag everywhere', async () => {
    const { deps } = await createTestStack();
    const { s3, bucket } = deps.staticStore;
    for (const body of ['first version, the longer one', 'second'])
      await putObject(s3, bucket, 'docs/a.txt', body, { contentType: 'text/plain', metadata: { kind: 'test' } });
    expect(Buffer.from((await getObjectBytes(s3, bucket, 'docs/a.txt'))!).toString()).toBe('second');
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'docs/a.txt' }));
    expect([head.ETag, head.ContentType, head.Metadata]).toEqual([md5('second'), 'text/plain', { kind: 'test' }]);
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'docs/' }));
    expect(listed.Contents?.map((o) => [o.Key, o.ETag, o.Size])).toEqual([['docs/a.txt', md5('second'), 6]]);
  });

  it('sees a bucket CORS configuration as soon as it is put or deleted', async () => {
    const { deps } = await createTestStack();
    const { s3, bucket } = deps.staticStore;
    await expect(s3.send(new GetBucketCorsCommand({ Bucket: bucket }))).rejects.toMatchObject({ name: 'NoSuchCORSConfiguration' });
    await putObject(s3, bucket, 'a.txt', 'written while the bucket has no CORS configuration', { contentType: 'text/plain' });
    await s3.send(
      new PutBucketCorsCommand({ Bucket: bucket, CORSConfiguration: { CORSRules: [{ AllowedMethods: ['GET'], AllowedOrigins: ['https://example.com'] }] } }),
    );
    expect((await s3.send(new GetBucketCorsCommand({ Bucket: bucket }))).CORSRules?.[0]?.AllowedOrigins).toEqual(['https://example.com']);
    await s3.send(new DeleteBucketCorsCommand({ Bucket: bucket }));
    await expect(s3.send(new GetBucketCorsCommand({ Bucket: bucket }))).rejects.toMatchObject({ name: 'NoSuchCORSConfiguration' });
  });
});

describe('the embedded S3 on disk', () => {
  const BUCKET = 'disk-test';
  /** A client of embedded services persisting under a fresh folder; the bucket's folder; a restart. */
  async function onDisk(run: (s3: S3Client, bucketDir: string, restart: () => Promise<S3Client>) => Promise<void>): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), 'skillpress-s3-disk-'));
    let services = await startEmbeddedServices(dir);
    const clients: S3Client[] = [];
    const connect = () => {
      const client = createS3(configFromEnv({ DYNAMODB_ENDPOINT: services.dynamoEndpoint, S3_ENDPOINT: services.s3Endpoint }));
      clients.push(client);
      return client;
    };
    try {
      const s3 = connect();
      await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
      await run(s3, join(dir, 's3', BUCKET), async () => {
        await services.stop();
        services = await startEmbeddedServices(dir);
        return connect();
      });
    } finally {
      for (const client of clients) client.destroy();
      await services.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const md5 = (text: string) => JSON.stringify(createHash('md5').update(text).digest('hex'));
  const put = (s3: S3Client, key: string, body: string) => putObject(s3, BUCKET, key, body, { contentType: 'text/plain', metadata: { kind: 'test' } });

  it('keeps an object as two files, its bytes and its metadata with the MD5', async () => {
    await onDisk(async (s3, bucketDir) => {
      await put(s3, 'docs/a.txt', 'some bytes');
      expect(readdirSync(join(bucketDir, 'docs')).sort()).toEqual(['a.txt._S3rver_metadata.json', 'a.txt._S3rver_object']);
      expect((await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'docs/a.txt' }))).ETag).toBe(md5('some bytes'));
    });
  });

  it('copies an object with its metadata, or with new metadata', async () => {
    await onDisk(async (s3) => {
      await put(s3, 'a.txt', 'copied bytes');
      await s3.send(new CopyObjectCommand({ Bucket: BUCKET, Key: 'same.txt', CopySource: `${BUCKET}/a.txt` }));
      await s3.send(
        new CopyObjectCommand({
          Bucket: BUCKET,
          Key: 'new.txt',
          CopySource: `${BUCKET}/a.txt`,
          MetadataDirective: 'REPLACE',
          ContentType: 'text/markdown',
          Metadata: { kind: 'copy' },
        }),
      );
      for (const [key, type, metadata] of [
        ['same.txt', 'text/plain', { kind: 'test' }],
        ['new.txt', 'text/markdown', { kind: 'copy' }],
      ] as const) {
        const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
        expect([key, head.ETag, head.ContentType, head.Metadata]).toEqual([key, md5('copied bytes'), type, metadata]);
        expect(Buffer.from((await getObjectBytes(s3, BUCKET, key))!).toString()).toBe('copied bytes');
      }
    });
  });

  it('reads folders written with a separate MD5 file, or with none', async () => {
    await onDisk(async (s3, bucketDir, restart) => {
      await put(s3, 'old.txt', 'from an older folder');
      await put(s3, 'bare.txt', 'no checksum anywhere');
      // As the earlier layout left them: the MD5 in a file beside the metadata, or nowhere.
      for (const key of ['old.txt', 'bare.txt'])
        writeFileSync(join(bucketDir, `${key}._S3rver_metadata.json`), JSON.stringify({ 'content-type': 'text/plain' }));
      writeFileSync(join(bucketDir, 'old.txt._S3rver_object.md5'), createHash('md5').update('from an older folder').digest('hex'));
      const client = await restart();
      const etags = async () => (await client.send(new ListObjectsV2Command({ Bucket: BUCKET }))).Contents?.map((o) => [o.Key, o.ETag]);
      expect(await etags()).toEqual([
        ['bare.txt', md5('no checksum anywhere')],
        ['old.txt', md5('from an older folder')],
      ]);
      // Written again, the MD5 in its metadata wins over the stale file beside it.
      await put(client, 'old.txt', 'new bytes');
      expect((await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'old.txt' }))).ETag).toBe(md5('new bytes'));
      expect(await etags()).toEqual([
        ['bare.txt', md5('no checksum anywhere')],
        ['old.txt', md5('new bytes')],
      ]);
    });
  });
});

describe('the embedded DynamoDB on disk', () => {
  it('reads every write at once, conditions included, and again after a restart', async () => {
    // Its reads skip libuv's thread pool (scripts/local/embedded/dynamodb.mjs): they must still see
    // each write acknowledged before them, as DynamoDB's consistent reads do.
    const dir = mkdtempSync(join(tmpdir(), 'skillpress-dynamo-disk-'));
    let services = await startEmbeddedServices(dir);
    const connect = () => createDb(configFromEnv({ DYNAMODB_ENDPOINT: services.dynamoEndpoint, S3_ENDPOINT: services.s3Endpoint }));
    let db = connect();
    const key = (i: number) => ({ pk: `ITEM#${i}`, sk: 'META' });
    const read = async (i: number) => (await db.doc.send(new GetCommand({ TableName: db.table, Key: key(i), ConsistentRead: true }))).Item;
    try {
      await ensureStorage(configFromEnv({ DYNAMODB_ENDPOINT: services.dynamoEndpoint, S3_ENDPOINT: services.s3Endpoint }));
      for (let i = 0; i < 20; i++) {
        await db.doc.send(new PutCommand({ TableName: db.table, Item: { ...key(i), n: i } }));
        expect(await read(i)).toEqual({ ...key(i), n: i });
        await db.doc.send(new UpdateCommand({ TableName: db.table, Key: key(i), UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } }));
        expect((await read(i))?.n).toBe(i + 1);
      }
      const taken = db.doc.send(new PutCommand({ TableName: db.table, Item: { ...key(3), n: 0 }, ConditionExpression: 'attribute_not_exists(pk)' }));
      await expect(taken).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
      const both = await getItems(db, [key(3), key(19), key(99)]);
      expect(both.map((item) => item.n).sort()).toEqual([20, 4]);

      db.doc.destroy();
      await services.stop();
      services = await startEmbeddedServices(dir);
      db = connect();
      expect(await read(3)).toEqual({ ...key(3), n: 4 });
      expect(await read(99)).toBeUndefined();
    } finally {
      db.doc.destroy();
      await services.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the embedded services', () => {
  it('keep serving through Ctrl-C and SIGTERM, and exit once their parent lets go', async () => {
    const services = await startEmbeddedServices();
    const config = configFromEnv({ DYNAMODB_ENDPOINT: services.dynamoEndpoint, S3_ENDPOINT: services.s3Endpoint });
    const s3 = createS3(config);
    const db = createDb(config);
    try {
      // A terminal's Ctrl-C reaches every process in the group, while the parent's stop still
      // has counts to write.
      for (const pid of services.pids) {
        process.kill(pid, 'SIGINT');
        process.kill(pid, 'SIGTERM');
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      await expect(s3.send(new ListBucketsCommand({}))).resolves.toBeDefined();
      await expect(db.doc.send(new ListTablesCommand({}))).resolves.toBeDefined();
    } finally {
      s3.destroy();
      db.doc.destroy();
      await services.stop();
    }
    expect(services.pids.filter(isAlive)).toEqual([]);
  });
});
