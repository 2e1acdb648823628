import { updateSkill } from '../../services/pricing.ts';
import { publishSkill, publishVersion } from '../../services/publishing.ts';
import { transferSkill } from '../../services/transfers.ts';
import type { RouteGroup } from '../env.ts';
import { rateLimitHeaders } from '../errors.ts';
import { publishingOperations as op } from '../operations/publish.ts';
import { route } from '../route.ts';

/** Publishing skills (API key) and their versions (session or API key). */
export const publishRoutes: RouteGroup = (app) => {
  route(app, op.publishSkill, async (c, { caller, body }) => {
    const { result, rate } = await publishSkill(c.var.deps, caller, body);
    const headers = rate ? rateLimitHeaders(rate.limit, rate.remaining, rate.resetSeconds) : {};
    return c.json(result, 201, { ...headers, Location: `/api/registry/${result.slug}` });
  });
};

/**
 * New versions of a skill, and the one thing about it that may change afterwards: its price; a
 * new skill from a session, and the check of files before either (the web upload).
 */
export const versionRoutes: RouteGroup = (app) => {
  route(app, op.createSkill, async (c, { caller, body }) => {
    const { result, rate } = await publishSkill(c.var.deps, caller, body);
    const headers = rate ? rateLimitHeaders(rate.limit, rate.remaining, rate.resetSeconds) : {};
    return c.json(result, 201, { ...headers, Location: `/api/registry/${result.slug}` });
  });

  // The check and the behaviour read are loaded on their first request: publishing's Lambdas
  // start without them (scripts/lambda-bundles.ts, the cold-start budget).
  route(app, op.checkSkillFiles, async (c, { caller, body }) => {
    const { checkFiles } = await import('../../services/skill-check.ts');
    const { result, rate } = await checkFiles(c.var.deps, caller, body);
    return c.json(result, 200, rate ? rateLimitHeaders(rate.limit, rate.remaining, rate.resetSeconds) : {});
  });

  route(app, op.publishVersion, async (c, { caller, body, params }) => {
    const { result, rate } = await publishVersion(c.var.deps, caller, params.id, body);
    return c.json(result, 201, rate ? rateLimitHeaders(rate.limit, rate.remaining, rate.resetSeconds) : {});
  });

  route(app, op.versionBehaviour, async (c, { caller, params }) => {
    const { versionBehaviour } = await import('../../services/behaviour.ts');
    return c.json(await versionBehaviour(c.var.deps, caller, params.id, params.version), 200);
  });

  route(app, op.updateSkill, async (c, { caller, body, params }) => c.json(await updateSkill(c.var.deps, caller, params.id, body), 200));

  route(app, op.transferSkill, async (c, { caller, body, params }) => c.json(await transferSkill(c.var.deps, caller, params.id, body.to), 200));
};
