import { clawhubPublishPayloadSchema } from '#core/clawhub-schemas';
import { validate } from '#core/validate';
import { publishFromClawhub } from '../../services/clawhub-publish.ts';
import type { RouteGroup } from '../env.ts';
import { rateLimitHeaders } from '../errors.ts';
import { fileParts, jsonPart, readMultipart } from '../multipart.ts';
import { clawhubPublishOperations as op } from '../operations/clawhub.ts';
import { route } from '../route.ts';

/** `clawdhub publish` (docs/api.md §14.3): the multipart form read here, the publish done by the publishing service. */
export const clawhubPublishRoutes: RouteGroup = (app) => {
  route(app, op.clawhubPublish, async (c, { caller }) => {
    const form = await readMultipart(c, 'the skill (a payload part and one files part per file, as clawdhub publish does)');
    const payload = validate(clawhubPublishPayloadSchema, jsonPart(form, 'payload'));
    const files = await fileParts(form, 'files');
    const { result, rate } = await publishFromClawhub(c.var.deps, caller.user, payload, files);
    const headers = rate ? rateLimitHeaders(rate.limit, rate.remaining, rate.resetSeconds) : {};
    return c.json(result, 201, headers);
  });
};
