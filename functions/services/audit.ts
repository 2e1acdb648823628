import { ownerOf } from '#core/policy';
import type { Deps } from '../platform/composition.ts';
import { type AuditEntry, putAuditEntry } from '../store/audit.ts';
import type { Principal } from './authorization.ts';

/**
 * The audit log's one writer: every service that changes something an organisation's owners
 * should be able to look back on (its members, its skills, keys narrowed to it) calls
 * {@link record} once the change has happened.
 */

/**
 * Writes an entry to `org`'s audit log, after what it records has happened. A failure to write
 * it does not undo the change nor fail the request that made it; it is logged, loudly.
 */
export async function record(
  deps: Pick<Deps, 'db' | 'clock' | 'log'>,
  org: string,
  principal: Principal,
  action: AuditEntry['action'],
  target: string,
  details?: Record<string, unknown>,
): Promise<void> {
  const entry: AuditEntry = { at: deps.clock().toISOString(), actor: principal.user.login, action, target, ...(details ? { details } : {}) };
  try {
    await putAuditEntry(deps.db, org, entry);
  } catch (error) {
    deps.log.error('could not write an audit entry', { org, action, target, error: (error as Error).name });
  }
}

/** {@link record} of a change to `skill`, in its organisation's log; nothing for a user-owned skill. */
export async function recordOnSkill(
  deps: Pick<Deps, 'db' | 'clock' | 'log'>,
  skill: { slug: string; owner?: { type: 'user' | 'org'; login: string }; authorLogin: string },
  principal: Principal,
  action: AuditEntry['action'],
  details?: Record<string, unknown>,
): Promise<void> {
  const owner = ownerOf(skill);
  if (owner.type === 'org') await record(deps, owner.login, principal, action, skill.slug, details);
}
