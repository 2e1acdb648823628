import { generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake AWS KMS on loopback, for the real `@aws-sdk/client-kms` (pointed at it with
 * KMS_ENDPOINT). It speaks the service's JSON 1.1 protocol as the SDK does (`X-Amz-Target:
 * TrentService.<Operation>`, blobs as base64, errors as `{__type, message}`) and implements what
 * the registry's signer calls on one ECC_NIST_P256 SIGN_VERIFY key: `Sign` (RAW message,
 * ECDSA_SHA_256, a DER signature), `GetPublicKey` (DER SPKI) and `DescribeKey`.
 */
export interface FakeKms {
  endpoint: string;
  /** The key's id, and its ARN (either names it). */
  keyId: string;
  keyArn: string;
  /** Every operation asked for, in order. */
  calls: string[];
  /** Makes the next `count` calls fail as KMS does when throttling (0: none). */
  failNext(count?: number): void;
  close(): Promise<void>;
}

export async function startFakeKms(): Promise<FakeKms> {
  const keyId = randomUUID();
  const keyArn = `arn:aws:kms:us-east-1:111122223333:key/${keyId}`;
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const created = Math.floor(Date.now() / 1000);
  const calls: string[] = [];
  let failing = 0;

  const operations: Record<string, (input: Record<string, unknown>) => unknown> = {
    Sign: (input) => {
      if (input.SigningAlgorithm !== 'ECDSA_SHA_256') throw kmsError('InvalidKeyUsageException', 'unsupported signing algorithm');
      if (input.MessageType !== undefined && input.MessageType !== 'RAW') throw kmsError('ValidationException', 'only RAW messages here');
      const message = Buffer.from(String(input.Message), 'base64');
      return { KeyId: keyArn, Signature: signDer(privateKey, message), SigningAlgorithm: 'ECDSA_SHA_256' };
    },
    GetPublicKey: () => ({
      KeyId: keyArn,
      PublicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
      KeySpec: 'ECC_NIST_P256',
      KeyUsage: 'SIGN_VERIFY',
      SigningAlgorithms: ['ECDSA_SHA_256'],
    }),
    DescribeKey: () => ({
      KeyMetadata: { KeyId: keyId, Arn: keyArn, CreationDate: created, Enabled: true, KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY', KeyState: 'Enabled' },
    }),
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomUUID() }).end(JSON.stringify(body));
      };
      const operation = String(req.headers['x-amz-target'] ?? '').replace(/^TrentService\./, '');
      calls.push(operation);
      if (failing > 0) {
        failing -= 1;
        return answer(400, { __type: 'ThrottlingException', message: 'Rate exceeded' });
      }
      const run = operations[operation];
      if (!run) return answer(400, { __type: 'UnknownOperationException', message: operation });
      try {
        const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
        if (input.KeyId !== keyId && input.KeyId !== keyArn) throw kmsError('NotFoundException', `Key '${String(input.KeyId)}' does not exist`);
        answer(200, run(input));
      } catch (error) {
        const { type, message } = error as { type?: string; message: string };
        answer(400, { __type: type ?? 'InternalException', message });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    keyId,
    keyArn,
    calls,
    failNext(count = 1) {
      failing = count;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function signDer(key: KeyObject, message: Buffer): string {
  return sign('sha256', message, { key, dsaEncoding: 'der' }).toString('base64');
}

function kmsError(type: string, message: string): Error & { type: string } {
  return Object.assign(new Error(message), { type });
}
