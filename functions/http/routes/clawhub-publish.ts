import { clawhubPublishPayloadSchema } from '#core/clawhub-schemas';
import { limits } from '#core/limits';
import { validate } from '#core/validate';
import { publishFromClawhub } from '../../services/clawhub-publish.ts';
import type { RouteGroup } from '../env.ts';
import { rateLimitHeaders } from '../errors.ts';
import { fileParts, jsonPart, readMultipart } from '../multipart.ts';
import { clawhubPublishOperations as op } from '../operations/clawhub.ts';
import { route } from '../route.ts';

/**
 * What a publish form may hold, enforced as it streams in: a version's files, each of a file's
 * size, and a few text parts (the payload, whose changelog is at most 20,000 characters).
 */
const FORM_LIMITS = { files: limits.filesPerVersion, fileBytes: limits.fileBytes, fields: 8, fieldBytes: 128 * 1024 };

/** `clawdhub publish` (docs/api.md §14.3): the multipart form read here, the publish done by the publishing service. */
export const clawhubPublishRoutes: RouteGroup = (app) => {
  route(app, op.clawhubPublish, async (c, { caller }) => {
    const form = await readMultipart(c, 'the skill (a payload part and one files part per file, as clawdhub publish does)', FORM_LIMITS);
    const payload = validate(clawhubPublishPayloadSchema, jsonPart(form, 'payload'));
    const files = fileParts(form, 'files');
    const { result, rate } = await publishFromClawhub(c.var.deps, caller.user, payload, files);
    const headers = rate ? rateLimitHeaders(rate.limit, rate.remaining, rate.resetSeconds) : {};
    return c.json(result, 201, headers);
  });
};
