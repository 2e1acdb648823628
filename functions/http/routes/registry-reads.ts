import { registryDocumentsFor } from '../../services/registry-reads.ts';
import type { RouteGroup } from '../env.ts';
import { registryReadOperations as op } from '../operations/registry-reads.ts';
import { route } from '../route.ts';

/** What a private skill's members read instead of the static registry files: never cached by anyone else (docs/api.md §7.13). */
export const registryReadRoutes: RouteGroup = (app) => {
  const privately = { 'Cache-Control': 'private, no-store' };
  route(app, op.myRegistryDocument, async (c, { caller, params }) =>
    c.json((await registryDocumentsFor(c.var.deps, caller, params.slug)).registry, 200, privately),
  );
  route(app, op.myVersionsDocument, async (c, { caller, params }) =>
    c.json((await registryDocumentsFor(c.var.deps, caller, params.slug)).versions, 200, privately),
  );
};
