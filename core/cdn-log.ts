import { isValidSlug } from './slug.ts';
import { BUNDLE_INSTALL_MARK, SKILL_INDEX_MARK } from './static-paths.ts';

/**
 * The CDN's log of the discovery index's downloads and of bundles, and which of its records are installs
 * (docs/api.md §10.2). On AWS, CloudFront writes a real-time log record per request of the
 * discovery archives and `SKILL.md` files to a Kinesis stream: one line of tab-separated fields
 * in the order of {@link CDN_LOG_FIELDS} (the stack configures exactly these), with `-` for a
 * field that has no value. The local CDN writes the same lines, and the same code reads both.
 */

/** The real-time log fields, in order (infra/stack.ts configures CloudFront with this list). */
export const CDN_LOG_FIELDS = [
  'timestamp',
  'c-ip',
  'sc-status',
  'cs-method',
  'cs-uri-stem',
  'cs-user-agent',
  'x-edge-request-id',
  'cs-headers',
  'cs-uri-query',
] as const;

/** One request as the log says it. */
export interface CdnLogRecord {
  /** When, ms since the epoch. */
  at: number;
  /** The viewer's address, from the connection. */
  address: string;
  status: number;
  method: string;
  /** The path, without the query. */
  path: string;
  /** The query string, without `?`; absent when there is none. */
  query?: string;
  userAgent?: string;
  /** The CDN's id of the request: unique, so a record read twice counts once. */
  requestId: string;
  /** The request's headers, names lower-cased. */
  headers: Record<string, string>;
}

/** A discovery download that counts as an install of `slug`. */
export interface CdnInstall {
  slug: string;
  at: number;
  address: string;
  userAgent?: string;
  requestId: string;
}

/**
 * The discovery files a download of which may be an install: a version's archive, a version's
 * lone `SKILL.md` (the `version` group), and the unversioned `SKILL.md` (under the current and the
 * v0.1 well-known path).
 */
const INSTALL_PATH = /^\/\.well-known\/(?:agent-skills|skills)\/([^/]+)\/(?:(?<version>[^/]+\.tar\.gz|[^/]+\/SKILL\.md)|SKILL\.md)$/;
/** A free version's bundle, which `skillpress install` downloads (docs/api.md §11.4). */
const BUNDLE_PATH = /^\/bundles\/([^/]+)\/[^/]+\.json$/;

/** The slug a path would install, if it is one of the files whose downloads are logged: a discovery file or a bundle. */
export function installedSlugOfPath(path: string): string | undefined {
  const slug = (INSTALL_PATH.exec(path) ?? BUNDLE_PATH.exec(path))?.[1];
  return slug && isValidSlug(slug) ? slug : undefined;
}

/** Whether `query` carries `mark` (`name=value`). */
function marked(query: string | undefined, mark: string): boolean {
  const [name, value] = mark.split('=') as [string, string];
  return new URLSearchParams(query ?? '').get(name) === value;
}

/**
 * Whether a download of `path` with `query` says which skill was installed. `skills add <origin>`
 * reads the shared index and downloads every version artifact it names before it chooses, with
 * `--list` as well, so such a download says nothing about what was installed. A skill's own index
 * names the same artifacts with {@link SKILL_INDEX_MARK} in the query: a download through it is
 * that skill's install. The unversioned `SKILL.md` is named by no index: whoever fetches it asked
 * for that skill. A bundle is read by mirrors and browsers too: only `skillpress install`'s
 * download, marked {@link BUNDLE_INSTALL_MARK}, installs it.
 */
function namesItsSkill(path: string, query: string | undefined): boolean {
  if (BUNDLE_PATH.test(path)) return marked(query, BUNDLE_INSTALL_MARK);
  if (INSTALL_PATH.exec(path)?.groups?.version === undefined) return true;
  return marked(query, SKILL_INDEX_MARK);
}

/** The header `skills` sends when it only checks for updates: never an install. */
const UPDATE_CHECK = 'x-skills-update-check';

/**
 * The install a log record stands for, or undefined: only a `GET` answered `200` (not a `HEAD`,
 * a `304` or an error) of a discovery file that names its skill (see {@link namesItsSkill}),
 * without `X-Skills-Update-Check: 1`.
 */
export function installOfRecord(record: CdnLogRecord): CdnInstall | undefined {
  if (record.method !== 'GET' || record.status !== 200) return undefined;
  if (record.headers[UPDATE_CHECK]?.trim() === '1') return undefined;
  const slug = installedSlugOfPath(record.path);
  if (!slug || !namesItsSkill(record.path, record.query)) return undefined;
  return { slug, at: record.at, address: record.address, ...(record.userAgent ? { userAgent: record.userAgent } : {}), requestId: record.requestId };
}

/** Writes a record as CloudFront's real-time log does: tab-separated, URL-encoded text, `-` for nothing. */
export function formatCdnLogRecord(record: CdnLogRecord): string {
  const headers = Object.entries(record.headers)
    .map(([name, value]) => `${name}:${value}`)
    .join('\n');
  const values: Record<(typeof CDN_LOG_FIELDS)[number], string> = {
    timestamp: (record.at / 1000).toFixed(3),
    'c-ip': record.address,
    'sc-status': String(record.status),
    'cs-method': record.method,
    'cs-uri-stem': encodeURI(record.path),
    // A user agent of exactly `-` is written `%2D`: a bare `-` is the log's "nothing".
    'cs-user-agent': record.userAgent ? (record.userAgent === '-' ? '%2D' : encodeURIComponent(record.userAgent)) : '-',
    'x-edge-request-id': record.requestId,
    'cs-headers': headers ? encodeURIComponent(headers) : '-',
    'cs-uri-query': record.query ? (record.query === '-' ? '%2D' : encodeURIComponent(record.query)) : '-',
  };
  return CDN_LOG_FIELDS.map((field) => values[field]).join('\t');
}

/** Reads one log line; undefined for a line that is not a whole record of these fields. */
export function parseCdnLogRecord(line: string): CdnLogRecord | undefined {
  const fields = line.replace(/\r?\n$/, '').split('\t');
  if (fields.length !== CDN_LOG_FIELDS.length) return undefined;
  const [timestamp, address, status, method, path, userAgent, requestId, headers, query] = fields as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const at = Math.round(Number(timestamp) * 1000);
  if (!Number.isFinite(at) || at <= 0 || address === '-' || requestId === '-' || !/^\d{3}$/.test(status)) return undefined;
  const decodedPath = decode(path);
  if (decodedPath === undefined) return undefined;
  return {
    at,
    address,
    status: Number(status),
    method,
    path: decodedPath,
    ...(query !== '-' ? { query: decode(query) ?? query } : {}),
    ...(userAgent !== '-' ? { userAgent: decode(userAgent) ?? userAgent } : {}),
    requestId,
    headers: headersOf(headers),
  };
}

/** `cs-headers`: URL-encoded `Name:value` lines (CloudFront cuts the field at 800 bytes: a cut line is dropped). */
function headersOf(field: string): Record<string, string> {
  const text = field === '-' ? '' : (decode(field) ?? '');
  const headers: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
