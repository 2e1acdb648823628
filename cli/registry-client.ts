import { didYouMean } from './did-you-mean.ts';
import { PACKAGED } from './packaged-registry.ts';
import type * as z from 'zod/mini';
import type { CatalogDocument } from '../core/catalog.ts';
import { limits } from '../core/limits.ts';
import type { RegistryDocument, VersionsDocument } from '../core/registry-document.ts';
import type { appealFiledSchema } from '../core/appeals.ts';
import type { deliverySchema, PublishBody, publishedSkillSchema, Skill, VersionBody, versionCreatedSchema, versionYankSchema } from '../core/schemas.ts';
import type { CatalogIndex } from '../core/catalog-pages.ts';
import { mapLimit } from '../core/map-limit.ts';
import type { SearchAnswerDocument } from '../core/search/schemas.ts';
import { BUNDLE_INSTALL_MARK, bundlePath, CATALOG_INDEX_KEY, CATALOG_KEY, registryPath, SIGNING_KEYS_KEY } from '../core/static-paths.ts';
import { LATEST, type SkillRequest } from '../core/version-choice.ts';
import { parseRegistryKeys, type RegistryKey } from '../core/version-signature.ts';
import { CliError } from './cli-error.ts';
import { configPath, normalRegistry, type PinnedKey, readConfig } from './config.ts';
import { storedApiKey } from './credentials.ts';
import { Http } from './http.ts';
import type { Io } from './io.ts';
import { cacheDir } from './paths.ts';
import { registrySlug } from './registry-names.ts';
import { trustedKeys } from './trust.ts';

/**
 * The registry's endpoints as the client uses them (docs/api.md §7): metadata from the static
 * registry files, content from the delivery endpoint with `source=cli`, writes with an API key.
 */

/** The registry when none is named or saved: the one this package came from, else a local `npm start`. */
export const DEFAULT_REGISTRY = PACKAGED?.registry ?? 'http://127.0.0.1:8787';

const MiB = 1024 * 1024;
const SIGNING_KEYS_PATH = `/${SIGNING_KEYS_KEY}`;

/**
 * The most the client reads of each kind of answer, from the server's own limits
 * (`core/limits.ts`), so a broken or hostile registry cannot fill memory. A delivery carries in
 * the same JSON form the files that one publish request carried, and a request is at most
 * `bodyBytes`; twice that leaves room for a server that escapes text differently. A registry
 * document holds at most five changelogs of 20,000 characters, 200 file entries and 32
 * dependencies: about 1 MiB even with every character escaped as `\uXXXX`. The catalog and the
 * versions list grow with the registry, one entry per skill or per version: 64 MiB holds tens of
 * thousands of entries at their longest.
 */
export const ANSWER_BYTES = { delivery: 2 * limits.bodyBytes, registry: 4 * MiB, versions: 64 * MiB, catalog: 64 * MiB, keys: 256 * 1024 } as const;

// Types only: zod itself stays off the install path.
export type Delivery = z.output<typeof deliverySchema>;
export type VersionCreated = z.output<typeof versionCreatedSchema>;
export type PublishedSkill = z.output<typeof publishedSkillSchema>;
export type VersionYank = z.output<typeof versionYankSchema>;
export type AppealFiled = z.output<typeof appealFiledSchema>;

/**
 * The registry to use: `--registry`, else SKILLPRESS_REGISTRY, else the one `login` saved in the
 * config file, else the local default. An empty SKILLPRESS_REGISTRY counts as unset.
 */
export function registryUrl(option: string | undefined, env: Io['env']): string {
  if (option !== undefined) return normalRegistry(option, '--registry');
  if (env.SKILLPRESS_REGISTRY) return normalRegistry(env.SKILLPRESS_REGISTRY, 'SKILLPRESS_REGISTRY');
  const saved = readConfig(env).registry;
  if (saved !== undefined) return normalRegistry(saved, `"registry" in ${configPath(env)}`);
  return DEFAULT_REGISTRY;
}

/** Whether the user named the registry for this run (flag or environment), rather than a saved or default one. */
export const registryNamed = (option: string | undefined, env: Io['env']) => option !== undefined || Boolean(env.SKILLPRESS_REGISTRY);

export class RegistryClient {
  private readonly http: Http;
  private readonly env: Io['env'];

  /**
   * `commandRegistry` is the registry the command runs against, when this client talks to
   * another (one a lockfile names): it decides whether SKILLPRESS_API_KEY is this registry's
   * (cli/credentials.ts).
   */
  constructor(
    readonly base: string,
    io: Io,
    readonly commandRegistry: string = base,
  ) {
    this.http = new Http(base, io, cacheDir(io.env));
    this.env = io.env;
  }

  /**
   * Registry documents the batch resolve answered ({@link resolveAll}), by slug: what
   * {@link skill} and {@link versions} read before asking for a skill on its own.
   */
  private readonly resolved = new Map<string, { registry: unknown; versions?: unknown }>();

  /**
   * Asks `GET /api/resolve` (docs/api.md §7.17) for every skill in `requests` at once, in as few
   * requests as its limits allow, and keeps each document it answers for {@link skill} and
   * {@link versions}, which check it as they check a lookup's. An entry refused (a typo, a
   * private skill this anonymous request is not told of) and a registry without the endpoint,
   * or whose answer is not one, are left to the per-skill lookups, which give the errors, hints
   * and private documents they always did.
   */
  async resolveAll(requests: readonly SkillRequest[]): Promise<void> {
    const asked = requests.filter((r) => !this.resolved.has(r.slug)).map((r) => (r.spec === LATEST ? r.slug : `${r.slug}@${r.spec}`));
    const batches: string[][] = [];
    for (const entry of asked) {
      const last = batches.at(-1);
      if (last && last.length < limits.resolveSkills && [...last, entry].join(',').length <= limits.resolveChars) last.push(entry);
      else batches.push([entry]);
    }
    await Promise.all(
      batches.map(async (batch) => {
        // Each entry may carry a versions document besides its registry document.
        // A registry document each, and room for a versions document: a larger answer is left to the lookups.
        const maxBytes = batch.length * ANSWER_BYTES.registry + ANSWER_BYTES.versions;
        const query = { skills: batch.join(',') };
        const answer = await this.http.json<{ skills?: unknown }>('/api/resolve', { query, maxBytes, compressed: true }).catch(() => undefined);
        const entries = Array.isArray(answer?.skills) ? (answer.skills as { slug?: unknown; registry?: unknown; versions?: unknown }[]) : [];
        for (const [i, entry] of entries.slice(0, batch.length).entries()) {
          const slug = batch[i]!.split('@')[0]!;
          if (entry?.slug === slug && entry.registry !== undefined) this.resolved.set(slug, { registry: entry.registry, versions: entry.versions });
        }
      }),
    );
  }

  /** The API key this registry may be sent, if any. */
  apiKey(): Promise<string | undefined> {
    return storedApiKey(this.env, this.base, this.commandRegistry);
  }

  private keys?: Promise<{ served: RegistryKey[]; trusted: RegistryKey[] }>;
  private readonly pins: PinnedKey[] = [];

  /** Pins keys for this registry (a lockfile's `signedBy`): called before any signature is checked. */
  pin(keys: readonly PinnedKey[]): void {
    this.pins.push(...keys);
  }

  /**
   * The registry's public signing keys (`/.well-known/skillpress/keys.json`), read once per run,
   * and those of them the client trusts (cli/trust.ts). A registry that publishes none, or a
   * document that is not keys, is `bad_signature`: nothing it serves can be verified.
   */
  signingKeys(): Promise<{ served: RegistryKey[]; trusted: RegistryKey[] }> {
    this.keys ??= this.http
      .json<unknown>(SIGNING_KEYS_PATH, { revalidate: true, maxBytes: ANSWER_BYTES.keys })
      .catch((error: unknown) => {
        if (error instanceof CliError && error.code === 'not_found')
          throw new CliError('bad_signature', `${this.base} publishes no signing keys (${SIGNING_KEYS_PATH}), so nothing it serves can be verified`);
        throw error;
      })
      .then((document) => {
        const served = parseRegistryKeys(document);
        if (!served) throw new CliError('bad_signature', `${this.base}${SIGNING_KEYS_PATH} is not a list of signing keys`);
        return trustedKeys(this.env, this.base, served, this.pins).then((trusted) => ({ served, trusted }));
      });
    return this.keys;
  }

  /**
   * Starts reading the signing keys now, beside the registry lookups, so that the first signature
   * checked need not wait for them. A failure is kept, not thrown here: it is the one the first
   * check then gives. Called once the lockfile's keys are pinned ({@link pin}).
   */
  prefetchKeys(): void {
    this.signingKeys().catch(() => undefined);
  }

  /**
   * The whole catalog: from its pages (docs/api.md §11.5), each read only when the index names an
   * ETag the cached copy lacks, so a search after a publish reads the index and one page; from
   * `/.well-known/skills.json` when the registry has no pages (the interface asks only for that).
   */
  async catalog(): Promise<CatalogDocument> {
    const index = await this.http
      .json<CatalogIndex>(`/${CATALOG_INDEX_KEY}`, { revalidate: true, maxBytes: ANSWER_BYTES.registry, compressed: true })
      .catch((error: unknown) => {
        if (error instanceof CliError && error.code === 'not_found') return undefined;
        throw error;
      });
    if (index === undefined) return this.http.json(`/${CATALOG_KEY}`, { revalidate: true, maxBytes: ANSWER_BYTES.catalog, compressed: true });
    const refs = pageRefs(index, this.base);
    const pages = await mapLimit(refs, 6, (ref) =>
      this.http.json<{ skills?: unknown }>(ref.path, { revalidate: true, currentEtag: ref.etag, maxBytes: ANSWER_BYTES.registry, compressed: true }),
    );
    const skills = pages.flatMap((page, i) => {
      if (!Array.isArray(page.skills)) throw new CliError('bad_response', `${this.base}${refs[i]!.path} is not a page of the catalog`);
      return page.skills as CatalogDocument['skills'];
    });
    return { schemaVersion: 1, generatedAt: String(index.generatedAt), count: skills.length, skills };
  }

  /** `GET /api/search`: the registry's own search, ranked as its site ranks it. */
  search(query: { q: string; limit: number; category?: string; sort?: string }): Promise<SearchAnswerDocument> {
    return this.http.json('/api/search', { query: { ...query, limit: String(query.limit) }, compressed: true });
  }

  /**
   * A skill's registry document: the static file, or, when there is none and an API key is stored
   * for this registry, the document the API gives the key's owner (a private skill of an
   * organisation they belong to, docs/api.md §7.13).
   */
  async skill(slug: string): Promise<RegistryDocument> {
    const path = registryPath(registrySlug(slug, 'asked to look up'));
    const resolved = this.resolved.get(slug)?.registry as RegistryDocument | undefined;
    const doc =
      resolved ??
      (await this.http
        .json<RegistryDocument>(path, { revalidate: true, maxBytes: ANSWER_BYTES.registry })
        .catch((error: unknown) => this.privately<RegistryDocument>(error, `/api/me/registry/${slug}`, ANSWER_BYTES.registry))
        .catch(async (error: unknown) => {
          // An unknown slug: the catalog's closest names, when one is near enough to be a typo.
          const near = error instanceof CliError && error.code === 'not_found' ? await this.closestSlugs(slug) : undefined;
          return notFoundAs(`no skill "${slug}" in ${this.base}`, near ?? 'search for it with skillpress search <words>')(error);
        }));
    return withVersions(sameSkill(doc, slug, this.base));
  }

  /** "did you mean …?" from the catalog, or undefined when nothing is close or it cannot be read. */
  private async closestSlugs(slug: string): Promise<string | undefined> {
    try {
      const { skills } = await this.catalog();
      return didYouMean(slug, Array.isArray(skills) ? skills.map((entry) => String(entry.slug)) : []);
    } catch {
      return undefined;
    }
  }

  async versions(slug: string): Promise<VersionsDocument> {
    const resolved = this.resolved.get(slug)?.versions as VersionsDocument | undefined;
    const doc =
      resolved ??
      (await this.http
        .json<VersionsDocument>(`${registryPath(registrySlug(slug, 'asked to look up'))}/versions`, {
          revalidate: true,
          maxBytes: ANSWER_BYTES.versions,
          compressed: true,
        })
        .catch((error: unknown) => this.privately<VersionsDocument>(error, `/api/me/registry/${slug}/versions`, ANSWER_BYTES.versions))
        .catch(notFoundAs(`no skill "${slug}" in ${this.base}`)));
    return withVersions(sameSkill(doc, slug, this.base));
  }

  /**
   * After a static read failed with `error`: a 404 is asked again of the API with the stored key,
   * when there is one (private skills have no static file); anything else is thrown as it was.
   * Never cached on disk: the answer is the key owner's alone.
   */
  private async privately<T>(error: unknown, path: string, maxBytes: number): Promise<T> {
    if (!(error instanceof CliError && error.code === 'not_found')) throw error;
    const apiKey = await this.apiKey();
    if (!apiKey) throw error;
    return this.http.json<T>(path, { apiKey, maxBytes });
  }

  /**
   * A version's files, counted as an install; with the body's bytes, which verification hashes as
   * they arrived. A private skill's is asked for with the stored API key (`withKey`).
   */
  async deliver(id: string, version: string, token?: string, withKey = false): Promise<{ value: Delivery; bytes?: Uint8Array }> {
    const apiKey = withKey ? await this.apiKey() : undefined;
    if (withKey && !apiKey) {
      throw new CliError('unauthenticated', `no API key for ${this.base}, and this skill is private`, {
        hint: 'a private skill installs with a key of a member of its organisation: skillpress login (or set SKILLPRESS_API_KEY)',
      });
    }
    return this.http.jsonAndBytes(`/api/deliver/${encodeURIComponent(id)}`, {
      query: { version, source: 'cli', token },
      maxBytes: ANSWER_BYTES.delivery,
      compressed: true,
      ...(apiKey ? { apiKey } : {}),
    });
  }

  /**
   * A free public version's files from its immutable bundle on the CDN (docs/api.md §11.4), with
   * the body's bytes, which are the ones its integrity is over. The download carries
   * {@link BUNDLE_INSTALL_MARK}, so the CDN's log counts it as one install, as a delivery would
   * be counted (docs/api.md §10.2). Undefined when the registry serves no bundle there (a version
   * published a moment ago, before the rebuild wrote it, or a registry without bundles): only a
   * `404`, which counts nothing, so asking the delivery endpoint then still counts the install once.
   */
  async bundle(slug: string, version: string): Promise<{ value: Delivery; bytes?: Uint8Array } | undefined> {
    const [name, value] = BUNDLE_INSTALL_MARK.split('=') as [string, string];
    try {
      return await this.http.jsonAndBytes(bundlePath(registrySlug(slug, 'asked to download'), encodeURIComponent(version)), {
        query: { [name]: value },
        maxBytes: ANSWER_BYTES.delivery,
        compressed: true,
      });
    } catch (error) {
      if (error instanceof CliError && error.code === 'not_found') return undefined;
      throw error;
    }
  }

  /** The account an API key belongs to (`GET /api/me`). */
  me(apiKey: string): Promise<unknown> {
    return this.http.json('/api/me', { apiKey });
  }

  /**
   * A download token of the key's owner for a paid skill they bought or were granted: good for
   * one delivery within ten minutes, so none outlives the install that asked for it.
   */
  async mintDownloadToken(apiKey: string, id: string): Promise<string> {
    const body = { expiresInSeconds: 600, maxUses: 1 };
    const created = await this.http.json<{ token: string }>(`/api/skills/${encodeURIComponent(id)}/download-tokens`, { method: 'POST', body, apiKey });
    return created.token;
  }

  /** `POST /api/oidc/exchange`: a CI's OIDC token for a publish token (cli/oidc.ts). */
  exchangeOidcToken(token: string): Promise<{ token: string; skills: string[] }> {
    return this.http.json('/api/oidc/exchange', { method: 'POST', body: { token } });
  }

  publish(apiKey: string, body: PublishBody): Promise<PublishedSkill> {
    return this.http.json('/api/publish', { method: 'POST', body, apiKey });
  }

  createVersion(apiKey: string, id: string, body: VersionBody): Promise<VersionCreated> {
    return this.http.json(`/api/skills/${encodeURIComponent(id)}/versions`, { method: 'POST', body, apiKey });
  }

  /** Appeals a refused version (docs/api.md §7.15): it waits, unpublished, for an admin. */
  appeal(apiKey: string, body: { message: string } & ({ publish: PublishBody } | { skillId: string; version: VersionBody })): Promise<AppealFiled> {
    return this.http.json('/api/appeals', { method: 'POST', body, apiKey });
  }

  /** Yanks a version (`reason` shown beside it), or with `yank` false undoes that. */
  setYanked(apiKey: string, id: string, version: string, yank: { reason?: string } | false): Promise<VersionYank> {
    const path = `/api/skills/${encodeURIComponent(id)}/versions/${encodeURIComponent(version)}/yank`;
    return this.http.json(path, yank ? { method: 'POST', body: yank, apiKey } : { method: 'DELETE', apiKey });
  }

  /** Deprecates a skill with `message`, or with null undoes that. */
  setDeprecated(apiKey: string, id: string, message: string | null): Promise<Skill> {
    const path = `/api/skills/${encodeURIComponent(id)}/deprecate`;
    return this.http.json(path, message === null ? { method: 'DELETE', apiKey } : { method: 'POST', body: { message }, apiKey });
  }
}

/**
 * The clients of one command, one per registry: the command's own (`client`), and those of the
 * registries a lockfile names (or, when the user named a registry for this run, that one for
 * every entry), each told which registry the command runs against.
 */
export function clientsFor(client: RegistryClient, io: Io, registryChosen: boolean): (registry: string) => RegistryClient {
  const clients = new Map([[client.base, client]]);
  return (registry) => {
    const base = registryChosen ? client.base : registry;
    if (!clients.has(base)) clients.set(base, new RegistryClient(base, io, client.commandRegistry));
    return clients.get(base)!;
  };
}

/** A registry document about another skill than the one asked for is a lie, whatever it holds. */
function sameSkill<T extends { slug: string }>(doc: T, slug: string, base: string): T {
  if (doc?.slug !== slug)
    throw new CliError('bad_response', `${base} answered a lookup of ${slug} with a document about ${JSON.stringify(doc?.slug)?.slice(0, 80)}`);
  return doc;
}

/**
 * A quarantined skill's registry documents say only who it is (docs/api.md §11.2): nothing to
 * resolve or install, so it is the same refusal delivery would give. A new skill whose first
 * version is still run in the sandbox has the same short shape with `status: "pending"`: no
 * version to list yet, so it is the `being_observed` delivery would answer, not a document read
 * as full.
 */
function withVersions<T extends { slug: string }>(doc: T): T {
  const { status } = doc as { status?: unknown };
  if (status === 'quarantined')
    throw new CliError('quarantined', `${doc.slug} is quarantined: it was taken out of the registry after reports or a scan`, {
      status: 403,
      hint: `it cannot be installed; remove it if it is installed: skillpress uninstall ${doc.slug}`,
    });
  if (status === 'pending')
    throw new CliError('being_observed', `${doc.slug} is new and its first version is being run in the registry's sandbox before anyone installs it`, {
      status: 409,
      hint: 'it takes seconds: try again shortly',
    });
  return doc;
}

/** Keeps the server's `not_found` code, with a message that names what was looked up. */
/** The most pages an index may name: 10,000 pages of 500 are five million skills. */
const MAX_CATALOG_PAGES = 10_000;

/** The index's pages, each a path of this registry's catalog; a registry that names anything else is refused. */
function pageRefs(index: CatalogIndex, base: string): { path: string; etag?: string }[] {
  const pages = (index as { pages?: unknown }).pages;
  const sound =
    Array.isArray(pages) &&
    pages.length <= MAX_CATALOG_PAGES &&
    pages.every((ref) => typeof ref?.path === 'string' && /^\/catalog\/page-(?:0|[1-9][0-9]{0,8})\.json$/.test(ref.path));
  if (!sound) throw new CliError('bad_response', `${base}/${CATALOG_INDEX_KEY} is not a catalog index`);
  return (pages as { path: string; etag?: unknown }[]).map((ref) => ({ path: ref.path, ...(typeof ref.etag === 'string' ? { etag: ref.etag } : {}) }));
}

function notFoundAs(message: string, hint?: string) {
  return (error: unknown): never => {
    if (error instanceof CliError && error.code === 'not_found') throw new CliError('not_found', message, { status: 404, hint });
    throw error;
  };
}
