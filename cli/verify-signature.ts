import type { VersionSummary } from '../core/registry-document.ts';
import { SIGNATURE_FORMAT, type SignatureProblem, type SignedFacts, verifyVersionSignature } from '../core/version-signature.ts';
import { CliError } from './cli-error.ts';
import type { RegistryClient } from './registry-client.ts';

/**
 * The registry's signature of a version (docs/api.md §11.11), checked before its files are
 * downloaded: the integrity the delivery is then held to, and the provenance, scan verdict,
 * yank, behaviour and effects the client showed and acted on, are the ones the registry signed, with a key the client
 * trusts (cli/trust.ts). So a CDN or mirror that serves other bytes, another integrity, another
 * verdict or provenance, or signatures of its own key, is refused (`bad_signature`, exit 3).
 */

/** Why a signature does not hold for the client: the signature's own problems, or a key it does not trust. */
export type ClientSignatureProblem = SignatureProblem | 'untrusted_key';

/** A version's signed facts as a registry document lists them. */
export const summaryFacts = (slug: string, summary: VersionSummary): SignedFacts => ({
  slug,
  version: summary.version,
  integrity: summary.integrity,
  ...(summary.provenance ? { provenance: summary.provenance } : {}),
  ...(summary.scan ? { scan: summary.scan } : {}),
  yanked: summary.yanked === true,
  ...(summary.behaviour ? { behaviour: summary.behaviour } : {}),
  ...(summary.effects ? { effects: summary.effects } : {}),
});

/** Why `signature` does not hold over `facts` for `client`'s registry, or undefined when it does. */
export async function signatureProblem(client: RegistryClient, facts: SignedFacts, signature: unknown): Promise<ClientSignatureProblem | undefined> {
  const { served, trusted } = await client.signingKeys();
  const problem = verifyVersionSignature(trusted, facts, signature, new Date(), SIGNATURE_FORMAT);
  const keyid = (signature as { keyid?: unknown } | null)?.keyid;
  return problem === 'unknown_key' && served.some((key) => key.keyid === keyid) ? 'untrusted_key' : problem;
}

/** Refuses the version unless its signature holds; gives the id of the key that signed it. */
export async function checkSignature(client: RegistryClient, facts: SignedFacts, signature: unknown): Promise<string> {
  const problem = await signatureProblem(client, facts, signature);
  if (problem) throw badSignature(`${facts.slug}@${facts.version}`, problem, client.base);
  return (signature as { keyid: string }).keyid;
}

/** The refusal of a version whose signature does not hold. */
export function badSignature(who: string, problem: ClientSignatureProblem, registry: string): CliError {
  const why: Record<ClientSignatureProblem, string> = {
    missing: 'the registry serves no signature for it',
    malformed: 'its signature is malformed',
    unknown_key: `its signature names a key ${registry} does not publish`,
    untrusted_key: `its signature is by a key that is neither pinned for ${registry} nor endorsed by a pinned key`,
    expired_key: 'its signature was made with a key that has expired',
    mismatch: 'its signature does not match its published integrity, provenance, scan verdict or yank',
    old_format: 'its signature covers its integrity alone (format 1), not its provenance, scan verdict and yank',
  };
  return new CliError('bad_signature', `${who}: ${why[problem]}; refusing it`, {
    hint:
      problem === 'untrusted_key'
        ? 'a mirror re-signed it, or the registry changed keys without endorsing the new one: get the client again from the registry, or remove the pin from config.json if you trust the new key'
        : 'what was served is not what the registry published: try again later, or report it to the registry',
  });
}
