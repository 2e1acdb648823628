import type { Context } from 'hono';
import type { AppEnv, RouteGroup } from '../env.ts';
import { importOperations as op } from '../operations/imports.ts';
import { route } from '../route.ts';

/** Where GitHub reaches this registry: the site's origin when set, else the request's own. */
const originOf = (c: Context<AppEnv>) => c.var.deps.config.siteOrigin ?? new URL(c.req.url).origin;

/**
 * The imports service, with the publishing and GitHub reading it drives, is loaded by the first
 * request that passes the route's own checks, as the scanner is by the first publish: a cold start
 * that ends in a 401 or a 415 does not parse it, and the Lambda stays within its cold-start budget.
 */
const imports = () => import('../../services/imports.ts');

/** GitHub imports: creating, listing and syncing one's imports, and their webhook. */
export const importRoutes: RouteGroup = (app) => {
  route(app, op.createImport, async (c, { caller, body }) => {
    const { result, created } = await (await imports()).createImport(c.var.deps, caller, body, originOf(c));
    return created ? c.json(result, 201) : c.json(result, 200);
  });

  route(app, op.listImports, async (c, { caller }) => c.json({ imports: await (await imports()).importsOf(c.var.deps, caller, originOf(c)) }, 200));

  route(app, op.syncImport, async (c, { caller, params }) => c.json(await (await imports()).syncImport(c.var.deps, caller, params.id, originOf(c)), 200));

  // Its credential is the signature over the exact bytes GitHub sent, so the body is read raw.
  route(app, op.importWebhook, async (c, { params }) => {
    const payload = new Uint8Array(await c.req.arrayBuffer());
    const outcome = await (await imports()).receiveImportWebhook(
      c.var.deps,
      params.id,
      payload,
      { signature: c.req.header('x-hub-signature-256'), event: c.req.header('x-github-event') },
      originOf(c),
    );
    return 'synced' in outcome ? c.json(outcome.synced, 202) : c.body(null, 204);
  });
};
