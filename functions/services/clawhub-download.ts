import { BoundedCache } from '#core/bounded-cache';
import { decodeFile, type FileBytes, type WireFile } from '#core/bundle';
import { DomainError, isDomainError, notFound } from '#core/errors';
import type { ClientFacts } from '#core/install-visitor';
import { assertStrictVersion } from '#core/semver-order';
import type { Deps } from '../platform/composition.ts';
import { skillBySlug } from './clawhub.ts';
import { deliveryLink } from '../content/delivery-links.ts';
import { deliver } from './delivery.ts';

/**
 * `GET /api/v1/download` (docs/api.md §14): a version as a ZIP, for `clawdhub install` and
 * `update`. It is a delivery like `GET /api/deliver/{skillId}`, through the same service: the same
 * checks in the same order (quarantine 403, unknown version 404, a paid skill 402, since a ClawHub
 * client shows no credential), and one install counted, from the client `clawhub` under the
 * source `cli`: ClawHub's CLIs are what download here (docs/api.md §10.2).
 */

export interface ZipDownload {
  slug: string;
  version: string;
  zip: Uint8Array;
  /**
   * Set for a ZIP too large for a response (as base64, the way Lambda carries it), with a
   * pre-signed link to it, good for a minute, made only for a download that counts (not a HEAD).
   */
  large?: { location?: string };
}

/** ZIPs of immutable versions, so repeated installs of a popular version are built once per process. */
const zips = new BoundedCache<string, Uint8Array>(16 * 1024 * 1024, (zip) => zip.byteLength);

export async function downloadZip(
  deps: Deps,
  query: { slug: string; ownerHandle?: string; version?: string; tag?: string },
  install: boolean,
  client: ClientFacts,
): Promise<ZipDownload> {
  if (query.tag !== undefined && query.tag !== 'latest') {
    throw new DomainError('not_supported', `Skillpress has no tag ${JSON.stringify(query.tag.slice(0, 40))}: ask for a version, or for latest`);
  }
  // Delivery's order: a malformed version first, then the skill.
  if (query.version !== undefined) assertStrictVersion(query.version);
  // The same 404 for a private skill as for a missing one: ClawHub's clients show no credentials.
  // A client that names the owner (clawhub 0.23 does) is answered only for that owner's skill.
  const { id: skillId } = await skillBySlug(deps, query.slug, query.ownerHandle);
  const delivered = (counted: boolean) =>
    deliver(deps, { skillId, version: query.version, source: 'cli', caller: async () => undefined, install: counted, client, channel: 'clawhub' }).catch(
      (error) => {
        throw isDomainError(error) && error.code === 'not_found' ? notFound('Version not found') : error;
      },
    );
  // Checked, then the ZIP made (and linked, when large), and only then counted: a download that fails counts nothing.
  const delivery = await delivered(false);
  const zip = await zips.load(`${delivery.skillId}@${delivery.version}`, async () => {
    // Only this path needs a ZIP writer: loaded on the first download, not at every cold start.
    const { skillZip } = await import('#core/skill-zip');
    return skillZip(filesOf(delivery.body));
  });
  const large = base64Bytes(zip.byteLength) > deps.config.inlineDeliveryBytes;
  const location = large && install ? await deliveryLink(deps.blobs, delivery.skillId, delivery.version, zip, 'zip') : undefined;
  if (install) await delivered(true);
  return { slug: delivery.slug, version: delivery.version, zip, ...(large ? { large: location === undefined ? {} : { location } } : {}) };
}

/** A binary answer's size inside Lambda's response, which carries it in base64. */
const base64Bytes = (bytes: number) => 4 * Math.ceil(bytes / 3);

/** A delivery payload's files as bytes again (it is serialised once per version, and cached so). */
function filesOf(body: Uint8Array): FileBytes[] {
  const { files } = JSON.parse(Buffer.from(body).toString('utf8')) as { files: WireFile[] };
  return files.map((file) => decodeFile(file)!);
}
