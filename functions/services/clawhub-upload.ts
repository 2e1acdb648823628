import { sha256Hex, toWireFile } from '#core/bundle';
import type { ClawhubJsonPublish } from '#core/clawhub-publish-schemas';
import { DomainError, forbidden, invalidRequest } from '#core/errors';
import { limits } from '#core/limits';
import { keepSentAhead, readSentAhead } from '../content/sent-ahead.ts';
import type { Deps } from '../platform/composition.ts';
import { allow, type Principal } from './authorization.ts';
import { releaseUploads, reserveUpload } from '../store/upload-quota.ts';
import { type Announced, createUpload, getUpload, getUploads, markArrived } from '../store/uploads.ts';
import { type ClawhubPublished, publishFromClawhub } from './clawhub-publish.ts';
import type { Published } from './publishing.ts';

/**
 * How `clawhub` 0.23 publishes (docs/api.md §14.3): it announces each file (upload-url), sends
 * its bytes to the URL it gets (upload), then publishes JSON naming every file by its ticket.
 * The publish itself is `publishFromClawhub`'s, as for `clawdhub`'s multipart form. The route
 * loads this module on the first such request: `clawdhub`'s publishes never pay for it.
 */

/**
 * `POST /api/v1/skills/-/upload-url`: a ticket for one file the caller is about to send, and where
 * to send it, if the account has room for it among what it sent ahead and has not published
 * (`config.uploadQuota`; else 429).
 */
export async function announceUpload(deps: Deps, principal: Principal, file: Announced, origin: string): Promise<{ uploadUrl: string; uploadTicket: string }> {
  await allow(deps, principal, 'account.send_files', { kind: 'account', userId: principal.user.id });
  const now = deps.clock();
  const expiresAt = Math.floor(now.getTime() / 1000) + limits.clawhubUploads.ticketSeconds;
  await reserveUpload(deps.db, principal.user.id, file, expiresAt, now, deps.config.uploadQuota);
  const ticket = await createUpload(deps.db, principal.user.id, file, expiresAt);
  return { uploadUrl: `${origin}/api/v1/skills/-/upload?ticket=${ticket}`, uploadTicket: ticket };
}

/**
 * `POST /api/v1/skills/-/upload?ticket=`: the bytes of an announced file. They must be the
 * caller's ticket's, of the size and digest it names; they are kept apart from the content store,
 * for a day at most (functions/content/sent-ahead.ts), and the ticket records their arrival.
 * Nothing is published yet.
 */
export async function receiveUpload(deps: Deps, principal: Principal, ticket: string, bytes: Uint8Array): Promise<{ storageId: string }> {
  await allow(deps, principal, 'account.send_files', { kind: 'account', userId: principal.user.id });
  const upload = await getUpload(deps.db, ticket, deps.clock());
  if (!upload || upload.userId !== principal.user.id) throw new DomainError('not_found', 'Upload ticket not found or expired: ask for a new upload URL');
  if (bytes.byteLength !== upload.size) throw invalidRequest('Uploaded file size does not match its upload ticket');
  if (sha256Hex(bytes) !== upload.sha256) throw invalidRequest('Uploaded file SHA-256 does not match its upload ticket');
  await keepSentAhead(deps.blobs, upload.sha256, bytes);
  await markArrived(deps.db, ticket);
  return { storageId: upload.sha256 };
}

/**
 * A JSON publish (`clawhub` 0.23): each file is taken from its ticket, which must be the caller's,
 * name the same path, size and digest, and have had its bytes arrive; then it is a publish like
 * any other. The owner handle, when given, must be the caller's own login.
 */
export async function publishFromClawhubJson(deps: Deps, principal: Principal, body: ClawhubJsonPublish): Promise<Published<ClawhubPublished>> {
  const author = principal.user;
  const handle = body.ownerHandle?.trim().replace(/^@+/, '');
  if (handle && handle.toLowerCase() !== author.login.toLowerCase()) throw forbidden(`You publish as ${author.login}, not as ${handle}`);
  const uploads = await getUploads(
    deps.db,
    body.files.map((f) => f.uploadTicket),
    deps.clock(),
  );
  const files = await Promise.all(
    body.files.map(async (file, index) => {
      const upload = uploads.get(file.uploadTicket);
      const same = upload && upload.userId === author.id && upload.path === file.path && upload.size === file.size && upload.sha256 === file.sha256;
      const bytes = same && upload.arrived && file.storageId === file.sha256 ? await readSentAhead(deps.blobs, file.sha256) : undefined;
      if (!bytes) {
        throw invalidRequest(`files.${index}: ${file.path} was not uploaded with this ticket (upload it again)`, {
          issues: [{ path: ['files', index, 'uploadTicket'], message: 'unknown, expired, not yours, or its bytes never arrived' }],
        });
      }
      return toWireFile({ filename: file.path, bytes, encoding: 'utf8' });
    }),
  );
  const published = await publishFromClawhub(
    deps,
    principal,
    {
      slug: body.slug,
      displayName: body.displayName,
      version: body.version,
      changelog: body.changelog,
      ...(body.categories?.[0] ? { category: body.categories[0] } : {}),
    },
    files,
  );
  // Published: the files are in the content store now, so they no longer count as sent ahead.
  // The publish stands whatever happens here; room not given back frees when its tickets expire.
  await releaseUploads(
    deps.db,
    author.id,
    body.files.map((f) => f.sha256),
    deps.clock(),
  ).catch((error: Error) => deps.log.warn('could not give back upload room after a publish', { error: error.message.slice(0, 200) }));
  return published;
}
