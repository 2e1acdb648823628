import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSecret, SECRET_TTL_MS } from '#functions/platform/secrets-manager';

/**
 * On AWS, secrets come from Secrets Manager by name. A fake Secrets Manager on loopback (the
 * SDK's JSON protocol) stands in for it; the SDK finds it through its standard
 * AWS_ENDPOINT_URL_SECRETS_MANAGER variable, so the code under test is unchanged.
 */
const secrets = new Map<string, string>();
const calls: string[] = [];
let server: Server;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const target = req.headers['x-amz-target'];
      const { SecretId } = JSON.parse(body || '{}') as { SecretId?: string };
      calls.push(`${target} ${SecretId}`);
      const value = SecretId === undefined ? undefined : secrets.get(SecretId);
      res.setHeader('content-type', 'application/x-amz-json-1.1');
      if (target !== 'secretsmanager.GetSecretValue' || value === undefined) {
        res.writeHead(400).end(JSON.stringify({ __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." }));
        return;
      }
      res.writeHead(200).end(JSON.stringify({ ARN: `arn:aws:secretsmanager:us-east-1:1:secret:${SecretId}`, Name: SecretId, SecretString: value }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
  });
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('readSecret', () => {
  it('returns a value given in the environment as is, and nothing when unset', async () => {
    expect(await readSecret({ value: 'plain' }, 'us-east-1')).toBe('plain');
    expect(await readSecret(undefined, 'us-east-1')).toBeUndefined();
  });

  it('reads a named secret from Secrets Manager once, then from the cache until the TTL passes', async () => {
    secrets.set('skillpress/github-client-secret', 'first\n');
    const now = Date.now();
    expect(await readSecret({ secretName: 'skillpress/github-client-secret' }, 'us-east-1', now)).toBe('first');
    secrets.set('skillpress/github-client-secret', 'rotated');
    expect(await readSecret({ secretName: 'skillpress/github-client-secret' }, 'us-east-1', now + SECRET_TTL_MS - 1)).toBe('first');
    expect(calls.filter((c) => c.endsWith('skillpress/github-client-secret'))).toHaveLength(1);
    expect(await readSecret({ secretName: 'skillpress/github-client-secret' }, 'us-east-1', now + SECRET_TTL_MS + 1)).toBe('rotated');
    expect(calls.filter((c) => c.endsWith('skillpress/github-client-secret'))).toEqual([
      'secretsmanager.GetSecretValue skillpress/github-client-secret',
      'secretsmanager.GetSecretValue skillpress/github-client-secret',
    ]);
  });

  it('fails loudly when the secret does not exist', async () => {
    await expect(readSecret({ secretName: 'skillpress/missing' }, 'us-east-1')).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });
});
