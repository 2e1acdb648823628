import { type SignatureProblem, verifyVersionSignature } from '../core/version-signature.ts';
import { CliError } from './cli-error.ts';
import type { RegistryClient } from './registry-client.ts';

/**
 * The registry's signature of a version (docs/api.md §11.11), checked before its files are
 * downloaded: the integrity the delivery is then held to is the one the registry signed, so a CDN
 * or mirror that serves other bytes, another integrity or another signature is refused
 * (`bad_signature`, exit 3).
 */
export async function checkSignature(
  client: RegistryClient,
  version: { slug: string; version: string; integrity: string; signature?: unknown },
): Promise<void> {
  const problem = verifyVersionSignature(await client.signingKeys(), version, version.signature, new Date());
  if (problem) throw badSignature(`${version.slug}@${version.version}`, problem, client.base);
}

/** The refusal of a version whose signature does not hold. */
export function badSignature(who: string, problem: SignatureProblem, registry: string): CliError {
  const why: Record<SignatureProblem, string> = {
    missing: 'the registry serves no signature for it',
    malformed: 'its signature is malformed',
    unknown_key: `its signature names a key ${registry} does not publish`,
    expired_key: 'its signature was made with a key that has expired',
    mismatch: 'its signature does not match its published integrity',
  };
  return new CliError('bad_signature', `${who}: ${why[problem]}; refusing it`, {
    hint: 'what was served is not what the registry published: try again later, or report it to the registry',
  });
}
