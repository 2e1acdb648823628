import { S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { deliveryLink } from '#functions/content/delivery-links';
import { getObjectBytes, putObject, s3OnFirstSend, sdkClient } from '#functions/content/s3';
import { createTestStack } from '../support/stack.ts';

/**
 * The composition root's S3 client loads the SDK and builds itself on the first command sent
 * (functions/content/s3.ts), so a cold start whose request never reaches S3 loads none of it.
 */
describe('s3OnFirstSend', () => {
  it('is no client until its first send: reading anything but send says so, and awaiting it is not mistaken for a promise', async () => {
    const { config } = await createTestStack();
    const s3 = s3OnFirstSend(config);
    expect(() => s3.config).toThrow('The S3 client is built by its first send; config was read before it');
    expect(await Promise.resolve(s3)).toBe(s3);
  });

  it('sends through one SDK client, built on the first send, which the presigner is given too', async () => {
    const { config } = await createTestStack();
    const s3 = s3OnFirstSend(config);
    await putObject(s3, config.contentBucket, 'first-send/a', 'bytes', { contentType: 'text/plain' });
    expect(Buffer.from((await getObjectBytes(s3, config.contentBucket, 'first-send/a'))!).toString('utf8')).toBe('bytes');
    const client = await sdkClient(s3);
    expect(client).toBeInstanceOf(S3Client);
    expect(await sdkClient(s3)).toBe(client);
    expect(await s3.config.region()).toBe(config.region);

    const link = await deliveryLink({ s3: s3OnFirstSend(config), bucket: config.contentBucket }, 'skill-first-send', '1.0.0', new TextEncoder().encode('{}'));
    expect(await (await fetch(link)).text()).toBe('{}');
  });
});
