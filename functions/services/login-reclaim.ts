import { ownerIdentity, SESSION } from '#core/policy';
import type { User } from '#core/schemas';
import type { Deps } from '../platform/composition.ts';
import { renameKeysOrg } from '../store/api-keys.ts';
import { copyAudit } from '../store/audit.ts';
import { countSkill, createRenamedOrg, deleteOrg, getOrg, invitationsOfOrg, type OrgItem, putInvitation } from '../store/orgs.ts';
import { listSkillsByOrg, setOwner } from '../store/skills.ts';
import { listTrustedPublishers, setPublisherOwner } from '../store/trusted-publishers.ts';
import { record } from './audit.ts';
import type { Principal } from './authorization.ts';

/**
 * A GitHub account's login is its own (docs/api.md §4.8). Organisations share the namespace of
 * users' logins, and anyone may create one under a login whose GitHub account has not signed in
 * here yet; GitHub, which proves who holds a login, has the last word. When that account signs
 * in, the organisation holding its login is renamed (`<login>-org`, …) with everything of it:
 * members, invitations, keys narrowed to it, its log, and its skills, whose slugs never change,
 * so every install out there keeps working and the registry names the new owner at the rebuild.
 */

type Ports = Pick<Deps, 'db' | 'clock' | 'config' | 'log' | 'changed'>;

/** Renames the organisation holding `user`'s login, if one does, so the account can have it. */
export async function reclaimLogin(deps: Ports, user: User): Promise<void> {
  let org = await getOrg(deps.db, user.login);
  if (!org) return;
  const renamed = await createRenamedOrg(deps.db, org);
  await Promise.all(
    (await invitationsOfOrg(deps.db, org.login, deps.clock())).map((invitation) => putInvitation(deps.db, { ...invitation, org: renamed.login })),
  );
  await Promise.all(Object.keys(org.members).map((userId) => renameKeysOrg(deps.db, userId, org!.login, renamed.login)));
  await copyAudit(deps.db, org.login, renamed.login);
  // A skill published into it meanwhile keeps the deletion from happening: it is moved too, and the deletion tried again.
  for (let attempt = 0; org && !(await deleteOrg(deps.db, org)); attempt++) {
    if (attempt === 3) throw new Error(`the organisation ${org.login} kept receiving skills while it was renamed`);
    await moveSkills(deps, org, renamed);
    org = await getOrg(deps.db, org.login);
  }
  const details = { from: renamed.renamedFrom, to: renamed.login };
  const by: Principal = { user, credential: SESSION };
  await record(deps, renamed.login, by, 'org.renamed', renamed.login, details);
  deps.log.info('organisation renamed for the GitHub account of its login', details);
}

/** Moves every skill of `from` into `to`, as a transfer does (counted in first), trusted publishers and all. */
async function moveSkills(deps: Ports, from: OrgItem, to: OrgItem): Promise<void> {
  const skills = await listSkillsByOrg(deps.db, from.login);
  for (const skill of skills) {
    if (!(await countSkill(deps.db, to.login, 1))) throw new Error(`the organisation ${to.login} is gone`);
    const moved = await setOwner(deps.db, skill, { type: 'org', login: from.login }, { type: 'org', login: to.login }, deps.clock());
    await countSkill(deps.db, moved ? from.login : to.login, -1);
    if (!moved) continue;
    // The same people under another login: the publishers that counted for it keep counting (a suspended one stays so).
    const [before, after] = [ownerIdentity(skill), ownerIdentity(moved)];
    const publishers = (await listTrustedPublishers(deps.db, skill.id)).filter((publisher) => publisher.owner === before);
    await Promise.all(publishers.map((publisher) => setPublisherOwner(deps.db, publisher, after)));
  }
  deps.changed(skills.map((skill) => skill.id));
}
