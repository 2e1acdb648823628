import type { SecretSource } from './config.ts';

/**
 * Secret settings (the GitHub OAuth client secret, the site-build token). Locally and in tests
 * they come straight from the environment; on AWS the environment holds only the name of a
 * Secrets Manager secret, so the value never appears in a Lambda's configuration, its logs or
 * the CloudFormation template.
 *
 * Values are cached per container for {@link SECRET_TTL_MS}: a rotated secret reaches running
 * Lambdas within that time, without a deploy.
 */
export const SECRET_TTL_MS = 5 * 60_000;

const cache = new Map<string, { value: string; until: number }>();
// Loaded on first use: only the Lambdas that read a secret pay for the client, and only then.
let client: Promise<import('@aws-sdk/client-secrets-manager').SecretsManagerClient> | undefined;

/** The secret's value, or undefined when it is not configured. Throws when Secrets Manager fails. */
export async function readSecret(source: SecretSource, region: string, now = Date.now()): Promise<string | undefined> {
  if (!source) return undefined;
  if ('value' in source) return source.value;
  const hit = cache.get(source.secretName);
  if (hit && hit.until > now) return hit.value;
  const { GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  client ??= import('@aws-sdk/client-secrets-manager').then(({ SecretsManagerClient }) => new SecretsManagerClient({ region, maxAttempts: 3 }));
  const out = await (await client).send(new GetSecretValueCommand({ SecretId: source.secretName }));
  const value = out.SecretString?.trim();
  if (!value) return undefined;
  cache.set(source.secretName, { value, until: now + SECRET_TTL_MS });
  return value;
}
