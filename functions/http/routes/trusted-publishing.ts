import { addTrustedPublisher, exchangeOidcToken, removeTrustedPublisher, trustedPublishersOfSkill } from '../../services/trusted-publishing.ts';
import type { RouteGroup } from '../env.ts';
import { trustedPublishingOperations as op } from '../operations/trusted-publishing.ts';
import { route } from '../route.ts';

/** A skill's trusted publishers (its owning side). */
export const trustedPublisherRoutes: RouteGroup = (app) => {
  route(app, op.addTrustedPublisher, async (c, { caller, body, params }) => c.json(await addTrustedPublisher(c.var.deps, caller, params.id, body), 201));

  route(app, op.listTrustedPublishers, async (c, { caller, params }) => c.json(await trustedPublishersOfSkill(c.var.deps, caller, params.id), 200));

  route(app, op.removeTrustedPublisher, async (c, { caller, params }) => {
    await removeTrustedPublisher(c.var.deps, caller, params.id, params.publisherId);
    return c.body(null, 204);
  });
};

/** The OIDC exchange: a CI's ID token for a publish token. The audience is this registry's configured origin. */
export const oidcExchangeRoutes: RouteGroup = (app) => {
  route(app, op.exchangeOidcToken, async (c, { body }) => c.json(await exchangeOidcToken(c.var.deps, body.token), 200));
};
