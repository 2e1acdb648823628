import { registryDocumentsFor, resolveSkills } from '../../services/registry-reads.ts';
import { credentialCaller } from '../auth.ts';
import type { RouteGroup } from '../env.ts';
import { registryReadOperations as op } from '../operations/registry-reads.ts';
import { route } from '../route.ts';

/** What a private skill's members read instead of the static registry files, and the batch resolve: never cached by anyone else (docs/api.md §7.13, §7.17). */
export const registryReadRoutes: RouteGroup = (app) => {
  const privately = { 'Cache-Control': 'private, no-store' };
  route(app, op.myRegistryDocument, async (c, { caller, params }) =>
    c.json((await registryDocumentsFor(c.var.deps, caller, params.slug)).registry, 200, privately),
  );
  route(app, op.myVersionsDocument, async (c, { caller, params }) =>
    c.json((await registryDocumentsFor(c.var.deps, caller, params.slug)).versions, 200, privately),
  );
  // Answers differ by caller and change with every publish: no cache keeps them (docs/api.md §7.17).
  route(app, op.resolveSkills, async (c, { query }) =>
    c.json({ skills: await resolveSkills(c.var.deps, await credentialCaller(c), query.skills) }, 200, privately),
  );
};
