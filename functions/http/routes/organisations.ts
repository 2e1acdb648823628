import {
  answerInvitation,
  auditLog,
  changeRole,
  createOrganisation,
  deleteOrganisation,
  invitations,
  invite,
  members,
  myInvitations,
  myOrganisations,
  organisation,
  removeFromOrg,
  revokeInvitation,
} from '../../services/organisations.ts';
import { credentialCaller } from '../auth.ts';
import type { RouteGroup } from '../env.ts';
import { organisationOperations as op } from '../operations/organisations.ts';
import { route } from '../route.ts';

/** Organisations: created and run from a browser session; their members and log also readable with a key (docs/api.md §7.12). */
export const organisationRoutes: RouteGroup = (app) => {
  route(app, op.createOrganisation, async (c, { caller, body }) => c.json(await createOrganisation(c.var.deps, caller, body), 201));

  route(app, op.organisation, async (c, { params }) => c.json(await organisation(c.var.deps, await credentialCaller(c), params.org), 200));

  route(app, op.deleteOrganisation, async (c, { caller, params }) => {
    await deleteOrganisation(c.var.deps, caller, params.org);
    return c.body(null, 204);
  });

  route(app, op.members, async (c, { caller, params }) => c.json({ members: await members(c.var.deps, caller, params.org) }, 200));

  route(app, op.changeRole, async (c, { caller, body, params }) => c.json(await changeRole(c.var.deps, caller, params.org, params.login, body.role), 200));

  route(app, op.removeMember, async (c, { caller, params }) => {
    await removeFromOrg(c.var.deps, caller, params.org, params.login);
    return c.body(null, 204);
  });

  route(app, op.invite, async (c, { caller, body, params }) => c.json(await invite(c.var.deps, caller, params.org, body), 201));

  route(app, op.invitations, async (c, { caller, params }) => c.json({ invitations: await invitations(c.var.deps, caller, params.org) }, 200));

  route(app, op.revokeInvitation, async (c, { caller, params }) => {
    await revokeInvitation(c.var.deps, caller, params.org, params.login);
    return c.body(null, 204);
  });

  route(app, op.acceptInvitation, async (c, { caller, params }) => c.json((await answerInvitation(c.var.deps, caller, params.org, params.login, true))!, 200));

  route(app, op.declineInvitation, async (c, { caller, params }) => {
    await answerInvitation(c.var.deps, caller, params.org, params.login, false);
    return c.body(null, 204);
  });

  route(app, op.auditLog, async (c, { caller, params, query }) => c.json(await auditLog(c.var.deps, caller, params.org, query.cursor), 200));

  route(app, op.myInvitations, async (c, { caller }) => c.json({ invitations: await myInvitations(c.var.deps, caller) }, 200));

  route(app, op.myOrganisations, async (c, { caller }) => c.json({ orgs: await myOrganisations(c.var.deps, caller) }, 200));
};
