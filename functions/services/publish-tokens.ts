import type { Deps } from '../platform/composition.ts';
import { findPublishToken, PUBLISH_TOKEN_PREFIX } from '../store/publish-tokens.ts';
import type { Principal } from './authorization.ts';

/**
 * The caller a publish token names: the repository it was exchanged for, with a credential that
 * reaches only its skills and may only publish, and the provenance its versions record.
 * Undefined for a token that is unknown; `expired` once its 15 minutes are over.
 */
export async function publishTokenPrincipal(deps: Pick<Deps, 'db' | 'clock'>, token: string): Promise<Principal | 'expired' | undefined> {
  if (!token.startsWith(PUBLISH_TOKEN_PREFIX)) return undefined;
  const found = await findPublishToken(deps.db, token);
  if (!found) return undefined;
  if (found.expiresAt * 1000 <= deps.clock().getTime()) return 'expired';
  return {
    user: { id: `ci:${found.publisher.toLowerCase()}`, login: found.publisher },
    credential: { kind: 'publish-token', scopes: ['publish'], skills: found.skills },
    provenance: found.provenance,
  };
}
