import { clawhubJsonPublishSchema, clawhubPublishPayloadSchema } from '#core/clawhub-publish-schemas';
import { limits } from '#core/limits';
import { validate } from '#core/validate';
import { publishFromClawhub } from '../../services/clawhub-publish.ts';
import { readBody } from '../body.ts';
import type { RouteGroup } from '../env.ts';
import { rateLimitHeaders } from '../errors.ts';
import { fileParts, jsonPart, readMultipart } from '../multipart.ts';
import { clawhubPublishOperations as op, clawhubUploadOperations as upload } from '../operations/clawhub-publish.ts';
import { route } from '../route.ts';

/**
 * What a publish form may hold, enforced as it streams in: a version's files, each of a file's
 * size, and a few text parts (the payload, whose changelog is at most 20,000 characters).
 */
/** `clawhub` 0.23's way of publishing, loaded by its first request (`clawdhub`'s publishes never need it). */
const uploads = () => import('../../services/clawhub-upload.ts');

const FORM_LIMITS = { files: limits.filesPerVersion, fileBytes: limits.fileBytes, fields: 8, fieldBytes: 128 * 1024 };

/**
 * A ClawHub client's publish (docs/api.md §14.3): JSON naming files sent ahead (`clawhub` 0.23),
 * or one multipart form (`clawdhub` 0.3), read here; the publish done by the publishing service.
 */
export const clawhubPublishRoutes: RouteGroup = (app) => {
  route(app, op.clawhubPublish, async (c, { caller }) => {
    const json = /^application\/json\s*(;|$)/i.test((c.req.header('content-type') ?? '').trim());
    let published: Awaited<ReturnType<typeof publishFromClawhub>>;
    if (json) {
      const { publishFromClawhubJson } = await uploads();
      published = await publishFromClawhubJson(c.var.deps, caller, await readBody(c, clawhubJsonPublishSchema));
    } else {
      const form = await readMultipart(c, 'the skill as JSON (clawhub) or as a payload part and one files part per file (clawdhub)', FORM_LIMITS);
      const payload = validate(clawhubPublishPayloadSchema, jsonPart(form, 'payload'));
      published = await publishFromClawhub(c.var.deps, caller, payload, fileParts(form, 'files'));
    }
    const { result, rate } = published;
    const headers = rate ? rateLimitHeaders(rate.limit, rate.remaining, rate.resetSeconds) : {};
    return c.json(result, 201, headers);
  });

  route(app, upload.clawhubUploadUrl, async (c, { caller, body }) => {
    const origin = c.var.deps.config.siteOrigin ?? new URL(c.req.url).origin;
    const { announceUpload } = await uploads();
    return c.json(await announceUpload(c.var.deps, caller, body, origin), 200);
  });

  route(app, upload.clawhubUpload, async (c, { caller, query }) => {
    const { receiveUpload } = await uploads();
    return c.json(await receiveUpload(c.var.deps, caller, query.ticket, new Uint8Array(await c.req.arrayBuffer())), 200);
  });
};
