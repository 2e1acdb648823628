import * as z from 'zod/mini';
import { filenameConflict, filenameProblem } from './filename.ts';
import { SOURCES } from './install-analytics.ts';
import { limits } from './limits.ts';
import { isCurrency, MAX_PRICE_MINOR_UNITS, stripePriceProblem } from './price.ts';
import { isValidRange } from './semver-range.ts';
import { CATEGORY_PATTERN, isValidSlug, normaliseCategory, SLUG_PATTERN } from './slug.ts';
import { singleLineTextProblem } from './text.ts';
import { VERDICTS, type Verdict } from './scan/finding.ts';
import { scanResultSchema } from './scan/scan-result-schema.ts';
import { effectsSchema } from './effects/effects-schema.ts';
import { BEHAVIOURS } from './version-behaviour.ts';
import { changelogSchema, loginSchema, slugSchema, textRule, visibleText } from './schema-fields.ts';
import { SCOPES } from './policy.ts';
import { provenanceSchema } from './provenance-schema.ts';
import { versionSourceSchema } from './version-source.ts';
import { lazySchema } from './lazy-schema.ts';

/**
 * Request and response schemas. One schema serves the API (validation and handler types), the
 * OpenAPI document, the CLI and the site. Objects are strict: unknown fields are rejected.
 * The field rules they are made of live in schema-fields.ts, for the modules that need a field
 * rule without every schema here; they are exported here too, beside the bodies that use them.
 */

export { issueDetails, loginSchema, visibleText } from './schema-fields.ts';

export const fileInputSchema = lazySchema(() =>
  z
    .strictObject({
      filename: z.string().check(
        z.superRefine((name, ctx) => {
          const problem = filenameProblem(name);
          if (problem) ctx.addIssue({ code: 'custom', message: `filename ${problem}` });
        }),
      ),
      content: z.string(),
      encoding: z.optional(z.enum(['utf8', 'base64'])),
      executable: z.optional(z.boolean()).check(z.describe('installed with its executable bits set (archives: mode 0755); default false')),
    })
    .check(
      z.superRefine((file, ctx) => {
        // A lone surrogate has no UTF-8 form: stored, it would become U+FFFD and the bytes would differ from what was sent.
        if ((file.encoding ?? 'utf8') === 'utf8' && !file.content.isWellFormed()) {
          ctx.addIssue({ code: 'custom', path: ['content'], message: 'is not well-formed Unicode (a lone surrogate); send such bytes with encoding base64' });
        }
      }),
    ),
);

export const filesSchema = lazySchema(() =>
  z.array(fileInputSchema).check(
    z.superRefine((files, ctx) => {
      const conflict = filenameConflict(files.map((f) => f.filename));
      if (conflict) ctx.addIssue({ code: 'custom', path: [conflict.index, 'filename'], message: conflict.message });
    }),
  ),
);

/**
 * `{slug: range}`. Checked on the object's own keys before anything else, so every key is seen
 * (`__proto__` included, which a plain object copy would swallow) and a huge object costs one
 * pass, never a storage read per entry.
 */
export const dependenciesSchema = lazySchema(() =>
  z.pipe(
    z
      .custom<Record<string, unknown>>(
        (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
        'must be an object of {slug: semver range}',
      )
      .check(
        z.meta({
          type: 'object',
          description: 'skill slug → semver range of the versions this one works with',
          maxProperties: limits.dependencies,
          propertyNames: { pattern: SLUG_PATTERN.source },
          additionalProperties: { type: 'string' },
        }),
        z.superRefine((value, ctx) => {
          const keys = Object.keys(value);
          if (keys.length > limits.dependencies) {
            ctx.addIssue({ code: 'custom', message: `at most ${limits.dependencies} dependencies; got ${keys.length}` });
            return;
          }
          for (const key of keys) {
            if (!isValidSlug(key)) ctx.addIssue({ code: 'custom', path: [key], message: 'is not a skill slug' });
            const range = value[key];
            if (typeof range !== 'string' || range.length > 256 || !isValidRange(range))
              ctx.addIssue({ code: 'custom', path: [key], message: 'must be a semver range such as ^1.2.0' });
          }
        }),
      ),
    z.transform((value) => Object.fromEntries(Object.entries(value)) as Record<string, string>),
  ),
);

/** A paid skill's price as an author sends it; the currency is stored in upper case. */
export const priceSchema = lazySchema(() =>
  z
    .strictObject({
      amount: z
        .number()
        .check(
          z.int(),
          z.minimum(1),
          z.maximum(MAX_PRICE_MINOR_UNITS),
          z.describe("in the currency's minor units: 999 with EUR is €9.99, 500 with JPY is ¥500"),
        ),
      currency: z
        .pipe(
          z.string().check(z.length(3)),
          z.transform((code) => code.toUpperCase()),
        )
        .check(z.refine(isCurrency, 'must be an ISO 4217 currency code such as EUR or USD'), z.describe('ISO 4217, e.g. EUR; lower case is accepted')),
    })
    .check(
      z.superRefine((price, ctx) => {
        // A price nobody could pay is refused when it is set, not at the buyer's checkout.
        const problem = isCurrency(price.currency) ? stripePriceProblem(price) : null;
        if (problem) ctx.addIssue({ code: 'custom', path: ['amount'], message: problem });
      }),
    ),
);

/** A price as answers and static documents carry it. */
const storedPriceSchema = lazySchema(() => z.object({ amount: z.number().check(z.int()), currency: z.string() }));

/** Only a paid skill has a price: one on a free skill is a mistake, not something to ignore. */
const noPriceWhenFree = (body: { paid: boolean; price?: unknown }, ctx: z.core.$RefinementCtx) => {
  if (!body.paid && body.price !== undefined) ctx.addIssue({ code: 'custom', path: ['price'], message: 'only a paid skill has a price; send "paid": true' });
};

export const publishBodySchema = lazySchema(() =>
  z
    .strictObject({
      name: visibleText(100),
      description: visibleText(
        1024,
        'at most 1,024 characters, as the Agent Skills specification allows: keep what the skill does and when to use it, and move the rest into the body of SKILL.md',
      ),
      category: z
        .optional(
          z.pipe(
            z.pipe(z.string().check(z.maxLength(200), z.superRefine(textRule(singleLineTextProblem))), z.transform(normaliseCategory)),
            z.string().check(z.regex(CATEGORY_PATTERN, '1 to 40 of a-z, 0-9 and -')),
          ),
        )
        .check(z.describe('default: the SKILL.md metadata.category, else general')),
      slug: z.optional(slugSchema),
      paid: z._default(z.boolean(), false),
      files: z._default(filesSchema, []),
      changelog: z.optional(changelogSchema),
      formats: z._default(z.array(visibleText(40)).check(z.minLength(1), z.maxLength(16)), ['agent-skills']),
      dependencies: z._default(dependenciesSchema, {}),
      price: z.optional(priceSchema).check(z.describe('paid skills only; without one the skill cannot be bought yet')),
      owner: z
        .optional(loginSchema)
        .check(
          z.describe('an organisation to publish into (you must be a maintainer or an owner of it); default: yourself. It counts against your own rate limit'),
        ),
      visibility: z
        ._default(z.enum(['public', 'private']), 'public')
        .check(z.describe("private: an organisation's skill that only its members see and install; it can be made public later, never private again")),
    })
    .check(
      z.superRefine(noPriceWhenFree),
      z.superRefine((body, ctx) => {
        if (body.visibility === 'private' && body.paid) ctx.addIssue({ code: 'custom', path: ['visibility'], message: 'a private skill cannot be paid' });
        if (body.visibility === 'private' && body.owner === undefined)
          ctx.addIssue({ code: 'custom', path: ['visibility'], message: "only an organisation's skill can be private: name it as owner" });
      }),
    ),
);
export type PublishBody = z.output<typeof publishBodySchema>;

/**
 * `PATCH /api/skills/<id>`: what may change after publishing. `price: null` takes the skill off
 * sale; `visibility: "public"` makes a private skill public (never the other way).
 */
export const skillUpdateBodySchema = lazySchema(() =>
  z
    .strictObject({
      price: z.optional(z.nullable(priceSchema)),
      visibility: z
        .optional(z.enum(['public', 'private']))
        .check(z.describe('"public" publishes a private skill; "private" is refused for a public one (409 visibility_locked)')),
    })
    .check(z.refine((body) => body.price !== undefined || body.visibility !== undefined, 'send price, visibility or both')),
);

/** `POST /api/skills/<id>/transfer`: the organisation that is to own the skill. */
export const transferBodySchema = lazySchema(() => z.strictObject({ to: loginSchema.check(z.describe("an organisation's login")) }));
export type SkillUpdateBody = z.output<typeof skillUpdateBodySchema>;

export const versionBodySchema = lazySchema(() =>
  z.strictObject({
    version: z.string().check(z.minLength(1), z.maxLength(limits.versionChars)),
    changelog: z.optional(changelogSchema),
    files: z._default(filesSchema, []),
    dependencies: z._default(dependenciesSchema, {}),
  }),
);
export type VersionBody = z.output<typeof versionBodySchema>;

export const devLoginBodySchema = lazySchema(() => z.strictObject({ login: loginSchema }));

const scopesSchema = lazySchema(() =>
  z.array(z.enum(SCOPES)).check(
    z.minLength(1),
    z.maxLength(SCOPES.length),
    z.refine((scopes) => new Set(scopes).size === scopes.length, 'each scope once'),
  ),
);

export const apiKeyBodySchema = lazySchema(() =>
  z
    .strictObject({
      name: visibleText(100),
      scopes: z
        .optional(scopesSchema)
        .check(
          z.describe(
            'publish: new skills and versions; manage: yank, deprecate, price, visibility, transfer, access; read: private skills, analytics. Default: all three',
          ),
        ),
      org: z.optional(loginSchema).check(z.describe('narrows the key to this organisation and its skills (and nothing user-owned); you must be a member')),
      skills: z
        .optional(
          z.array(z.string().check(z.minLength(1), z.maxLength(128))).check(
            z.minLength(1),
            z.maxLength(limits.keySkills),
            z.refine((ids) => new Set(ids).size === ids.length, 'each skill once'),
          ),
        )
        .check(z.describe('narrows the key to these skills (ids)')),
      expiresInDays: z
        .optional(z.number().check(z.int(), z.minimum(limits.apiKeyDays.min), z.maximum(limits.apiKeyDays.max)))
        .check(z.describe('the key stops working this many days after it is made (401 expired_key); default: never')),
    })
    .check(
      z.refine((body) => body.org === undefined || body.skills === undefined, {
        message: 'narrow a key to an organisation or to skills, not both',
        path: ['skills'],
      }),
    ),
);
export type ApiKeyBody = z.output<typeof apiKeyBodySchema>;

export const downloadTokenBodySchema = lazySchema(() =>
  z.strictObject({
    expiresInSeconds: z
      .optional(z.number().check(z.int(), z.minimum(limits.downloadToken.minSeconds), z.maximum(limits.downloadToken.maxSeconds)))
      .check(z.describe("default: a day for the author's tokens, 10 minutes for a buyer's or grantee's own (at most an hour)")),
    maxUses: z
      .optional(z.number().check(z.int(), z.minimum(1), z.maximum(1_000_000)))
      .check(z.describe("default: unlimited for the author's tokens, one use for a buyer's or grantee's own (at most 10)")),
  }),
);

export const grantBodySchema = lazySchema(() => z.strictObject({ login: loginSchema }));

/** Why a version is yanked, shown beside it in the registry and on the site. */
export const yankBodySchema = lazySchema(() => z.strictObject({ reason: z.optional(visibleText(500)) }));

/** What the skill's page and clients tell people instead of the skill (a successor, a reason). */
export const deprecateBodySchema = lazySchema(() => z.strictObject({ message: visibleText(500) }));

export const deliverySourceSchema = lazySchema(() => z.enum(SOURCES));

/**
 * The query of GET /api/deliver/<skillId>. `version` is checked as strict semver by the handler;
 * `token` is bounded so a huge value is a 400, never a hashing or storage problem.
 */
export const deliverQuerySchema = lazySchema(() =>
  z.object({
    version: z.optional(z.string().check(z.minLength(1), z.maxLength(limits.versionChars))).check(z.describe('exact semver; default the current version')),
    source: z._default(deliverySourceSchema, 'api').check(z.describe('who asks, for the install count')),
    token: z.optional(z.string().check(z.minLength(1), z.maxLength(512))).check(z.describe('a download token for this skill (paid skills)')),
  }),
);
export type DeliverQuery = z.output<typeof deliverQuerySchema>;

// Response shapes, for the OpenAPI document and typed clients.

export const userSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    login: z.string(),
    name: z.optional(z.string()),
    avatarUrl: z.optional(z.string()),
  }),
);
export type User = z.output<typeof userSchema>;

/** The answer of dev sign-in and of `GET /api/me`. */
export const signedInSchema = lazySchema(() => z.object({ user: userSchema }));

/** The answer of `GET /api/me`: who is calling, and whether the dashboard should offer them the admins' reports. */
export const meSchema = lazySchema(() =>
  z.extend(signedInSchema, {
    admin: z.boolean().check(z.describe('whether SKILLPRESS_ADMINS names this user: the reports and quarantine are theirs')),
  }),
);

/** Which sign-in forms the dashboard offers besides GitHub's. */
export const signInMethodsSchema = lazySchema(() => z.object({ devLogin: z.boolean() }));

/** Who owns a skill, as every document shows it. */
export const ownerSchema = lazySchema(() =>
  z.object({
    type: z.enum(['user', 'org']).check(z.describe('a user (the author) or an organisation')),
    login: z.string(),
  }),
);

export const skillSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    description: z.string(),
    category: z.string(),
    author: z.string().check(z.describe("the owner's login: the user's, or the organisation's")),
    owner: ownerSchema,
    visibility: z.enum(['public', 'private']).check(z.describe('private: seen and installed only by the members of the organisation that owns it')),
    paid: z.boolean(),
    price: z.optional(storedPriceSchema).check(z.describe('paid skills that are for sale')),
    currentVersion: z.string(),
    formats: z.array(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
    deprecated: z.optional(z.string()).check(z.describe("the author's deprecation message; absent while the skill is not deprecated")),
  }),
);
export type Skill = z.output<typeof skillSchema>;

const warningsSchema = lazySchema(() =>
  z
    .optional(z.array(z.string()))
    .check(z.describe('present when the SKILL.md front matter has keys the Agent Skills specification does not define: accepted, worth fixing')),
);

/** A version's behaviour (docs/scanning.md, "Behaviour"). */
const behaviourSchema = lazySchema(() =>
  z
    .enum(BEHAVIOURS)
    .check(
      z.describe(
        'pending: it has something to run and the sandbox has not finished running it (installed only by exact version); cleared: seen, or nothing to run; refused: what it did when run refused it (never installed)',
      ),
    ),
);

/**
 * The answer to a new skill: the skill, the scan and behaviour of its first version
 * (docs/scanning.md), and what its `SKILL.md` should fix.
 */
export const publishedSkillSchema = lazySchema(() => z.extend(skillSchema, { scan: scanResultSchema, behaviour: behaviourSchema, warnings: warningsSchema }));

/** A skill as its author sees it in the dashboard: with its quarantine, when it is quarantined. */
export const ownSkillSchema = lazySchema(() =>
  z.extend(skillSchema, {
    quarantine: z
      .optional(z.object({ reason: z.string(), since: z.string() }))
      .check(z.describe('present while the skill is quarantined: out of every listing, not delivered')),
  }),
);
export type OwnSkill = z.output<typeof ownSkillSchema>;
export const skillListSchema = lazySchema(() => z.object({ skills: z.array(ownSkillSchema) }));

export const fileEntrySchema = lazySchema(() => z.object({ filename: z.string(), size: z.number(), sha256: z.string() }));

export const versionCreatedSchema = lazySchema(() =>
  z.object({
    skillId: z.string(),
    version: z.string(),
    changelog: z.string(),
    publishedAt: z.string(),
    files: z.array(fileEntrySchema),
    currentVersion: z.string(),
    scan: scanResultSchema,
    behaviour: behaviourSchema,
    warnings: warningsSchema,
  }),
);

/** How a version fared when run in the sandbox, as those who may publish its versions see it (docs/api.md §7.4). */
export const versionBehaviourSchema = lazySchema(() =>
  z.object({
    skillId: z.string(),
    version: z.string(),
    behaviour: behaviourSchema,
    effects: z
      .optional(effectsSchema)
      .check(z.describe('what running it did outside its folder, each effect with its evidence; absent on versions published before observation')),
    observation: z
      .optional(
        z.object({
          verdict: z.enum(VERDICTS),
          evidence: z
            .array(z.object({ rule: z.string(), verdict: z.enum(VERDICTS), message: z.string() }))
            .check(z.describe('why it was refused or flagged: one line per block, naming the step and the event it rests on')),
          at: z.string().check(z.describe('when the run ended')),
          attempts: z.optional(z.number().check(z.int())).check(z.describe('runs that could not finish before this outcome')),
        }),
      )
      .check(z.describe('absent while pending, and for a version with nothing to run')),
  }),
);

/** A version's lifecycle after a yank or its undo. */
export const versionYankSchema = lazySchema(() =>
  z.object({
    skillId: z.string(),
    version: z.string(),
    yanked: z.boolean(),
    yankReason: z.optional(z.string()),
    currentVersion: z.string().check(z.describe('after the change: a yanked version is never current')),
  }),
);

/** What a key may do and reach, as its owner sees it again. */
const keyLimitsShape = () => ({
  scopes: z.array(z.enum(SCOPES)).check(z.describe('what it may be used for; a key made without scopes has all three')),
  org: z.nullable(z.string()).check(z.describe('the organisation it is narrowed to')),
  skills: z.nullable(z.array(z.string())).check(z.describe('the skills (ids) it is narrowed to')),
  expiresAt: z.nullable(z.string()).check(z.describe('when it stops working; null: never')),
});

export const apiKeyCreatedSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    key: z.string(),
    name: z.string(),
    prefix: z.string(),
    createdAt: z.string(),
    ...keyLimitsShape(),
  }),
);

export const apiKeyListSchema = lazySchema(() =>
  z.object({
    keys: z.array(
      z.object({ id: z.string(), name: z.string(), prefix: z.string(), createdAt: z.string(), lastUsedAt: z.nullable(z.string()), ...keyLimitsShape() }),
    ),
  }),
);

export const deliverySchema = lazySchema(() =>
  z.object({
    skillId: z.string(),
    slug: z.string(),
    version: z.string(),
    files: z.array(z.object({ filename: z.string(), content: z.string(), encoding: z.optional(z.literal('base64')), executable: z.optional(z.literal(true)) })),
  }),
);

const tokenFields = () => ({
  id: z.string(),
  expiresAt: z.string().check(z.describe('ISO 8601; the token stops working at this instant')),
  maxUses: z.nullable(z.number()).check(z.describe('null: any number of uses until it expires')),
});

export const downloadTokenCreatedSchema = lazySchema(() =>
  z.object({ ...tokenFields(), token: z.string().check(z.describe('shown once; send it as ?token=')) }),
);

export const downloadTokenListSchema = lazySchema(() =>
  z.object({
    tokens: z.array(z.object({ ...tokenFields(), createdAt: z.string(), uses: z.number(), lastUsedAt: z.nullable(z.string()) })),
  }),
);

export const grantSchema = lazySchema(() => z.object({ skillId: z.string(), login: z.string(), grantedAt: z.string() }));
export const grantListSchema = lazySchema(() => z.object({ grants: z.array(grantSchema) }));

export const checkoutCreatedSchema = lazySchema(() =>
  z.object({
    url: z.string().check(z.describe('the Stripe Checkout page to send the browser to')),
    sessionId: z.string().check(z.describe('the Checkout Session, as the success page is told it')),
  }),
);

export const purchaseSchema = lazySchema(() =>
  z.object({
    skillId: z.string(),
    slug: z.string(),
    amount: z.number().check(z.int()),
    currency: z.string(),
    status: z
      .enum(['purchased', 'refunded', 'disputed'])
      .check(z.describe('disputed: the buyer disputed the charge with their bank; access is paused until the dispute is won, and ends if it is lost')),
    sessionId: z.string().check(z.describe('the Stripe Checkout Session')),
    purchasedAt: z.string(),
    refundedAt: z.nullable(z.string()),
  }),
);
export const purchaseListSchema = lazySchema(() => z.object({ purchases: z.array(purchaseSchema).check(z.describe('newest first')) }));

export const salesSchema = lazySchema(() =>
  z.object({
    skillId: z.string(),
    count: z.number().check(z.int(), z.describe('completed purchases, refunded ones included')),
    refunds: z.number().check(z.int()),
    gross: z.array(storedPriceSchema).check(z.describe('per currency, before refunds')),
    net: z.array(storedPriceSchema).check(z.describe('per currency, after refunds and disputes not won')),
    sales: z
      .array(z.extend(z.pick(purchaseSchema, { amount: true, currency: true, status: true, purchasedAt: true, refundedAt: true }), { login: z.string() }))
      .check(z.describe('the 100 most recent, newest first')),
  }),
);

export const webhookReceivedSchema = lazySchema(() =>
  z.object({
    received: z.literal(true),
    outcome: z
      .enum(['granted', 'duplicate', 'revoked', 'suspended', 'restored', 'ignored'])
      .check(z.describe('what the event changed; duplicate: a delivery already recorded; suspended and restored: a dispute opened, and won')),
  }),
);

const sourceCountsSchema = lazySchema(() => z.object({ cli: z.number(), web: z.number(), api: z.number() }));

export const analyticsSchema = lazySchema(() =>
  z.object({
    total: z.number().check(z.describe('every install (each counted delivery or download)')),
    last7d: z.number().check(z.describe('today and the 6 previous UTC days')),
    last30d: z.number(),
    bySource: sourceCountsSchema.check(z.describe('all time')),
    byClient: z
      .object({ skillpress: z.number(), skills: z.number(), clawhub: z.number(), other: z.number() })
      .check(z.describe('all time, by the program that installed')),
    distinct: z
      .object({ total: z.number(), last7d: z.number(), last30d: z.number() })
      .check(z.describe('installs by distinct clients (one per client per skill per UTC day): the public figures')),
    daily: z.array(z.extend(sourceCountsSchema, { date: z.string(), distinct: z.number() })).check(z.describe('the last 30 UTC days, oldest first')),
  }),
);

// The static documents (docs/api.md §11). Readers (the site build, the CLI) parse them with these;
// the builders in catalog.ts and registry-document.ts produce exactly these types. Not strict:
// a reader must accept fields added by a newer rebuild.

/** `owner` as static documents carry it: files written before owners were recorded lack it (then `author` is a user). */
const staticOwnerSchema = lazySchema(() =>
  z.optional(ownerSchema).check(z.describe('absent in files written before owners were recorded: then the author, a user')),
);

export const catalogEntrySchema = lazySchema(() =>
  z.extend(
    z.pick(skillSchema, {
      id: true,
      slug: true,
      name: true,
      description: true,
      category: true,
      author: true,
      owner: true,
      currentVersion: true,
      paid: true,
      price: true,
      updatedAt: true,
      deprecated: true,
    }),
    {
      registry: z.string().check(z.describe('/api/registry/<slug>')),
      createdAt: z.optional(z.string()).check(z.describe('when the skill was first published (entries written before it was listed have none)')),
      owner: staticOwnerSchema,
      verdict: z
        .optional(z.enum(VERDICTS))
        .check(
          z.describe(
            "the verdict its current version stands under: the scan's, clean once an admin approved it on appeal (entries written before it was listed have none)",
          ),
        ),
    },
  ),
);

export const catalogDocumentSchema = lazySchema(() =>
  z.object({
    schemaVersion: z.literal(1),
    generatedAt: z.string(),
    count: z.number(),
    skills: z.array(catalogEntrySchema),
  }),
);

export const catalogPageSchema = lazySchema(() =>
  z.object({
    schemaVersion: z.literal(1),
    page: z.number().check(z.int(), z.nonnegative(), z.describe('the page id, as in its path /catalog/page-<page>.json')),
    count: z.number(),
    skills: z.array(catalogEntrySchema).check(z.describe('a run of the catalog, sorted by slug')),
  }),
);

export const catalogIndexSchema = lazySchema(() =>
  z.object({
    schemaVersion: z.literal(1),
    generatedAt: z.string(),
    count: z.number().check(z.describe('skills in all pages')),
    pageSize: z.number().check(z.describe('the most skills a page holds')),
    pages: z
      .array(
        z.object({
          page: z.number().check(z.int(), z.nonnegative()),
          path: z.string().check(z.describe('/catalog/page-<page>.json')),
          first: z.string().check(z.describe('the slug of its first skill')),
          count: z.number(),
          etag: z.string().check(z.describe('the ETag the page is served with while it holds these skills')),
        }),
      )
      .check(z.describe('in slug order: reading the pages in this order reads the catalog')),
  }),
);

export const versionSummarySchema = lazySchema(() =>
  z.object({
    version: z.string(),
    changelog: z.string(),
    publishedAt: z.string(),
    publishedBy: z.optional(z.string()).check(z.describe('the login of the user who published it (registry files written before it was recorded lack it)')),
    integrity: z.string().check(z.describe('sha256-<base64> of the canonical bundle')),
    yanked: z.optional(z.literal(true)).check(z.describe('withdrawn by its author: installable by exact version only, never current, never chosen by a range')),
    yankReason: z.optional(z.string()),
    scan: z.optional(scanResultSchema).check(z.describe('the scan of this version; absent for a version published before scanning, until a rescan')),
    scannedAt: z.optional(z.string()).check(z.describe('when that scan ran: at publish, or at the last rescan')),
    signature: z
      .optional(
        z.object({
          keyid: z.string().check(z.describe('names a key of /.well-known/skillpress/keys.json')),
          sig: z.string().check(z.describe('base64 of the DER ECDSA P-256 signature of the signed message (docs/api.md §11.11)')),
          format: z
            .optional(z.union([z.literal(2), z.literal(3)]))
            .check(
              z.describe(
                '3: the message is the canonical JSON of {format, slug, version, integrity, provenance, verdict, reviewed, yanked, behaviour, effects}; 2: the same without behaviour and effects; absent: format 1, <slug>@<version>:<integrity>',
              ),
            ),
        }),
      )
      .check(z.describe('the registry signature; absent only until the rebuild signs a version published before signatures')),
    provenance: z
      .optional(provenanceSchema)
      .check(z.describe('where a version published from CI with a publish token came from, from the verified OIDC claims; absent for any other publish')),
    source: z
      .optional(versionSourceSchema)
      .check(
        z.describe('where a version published by a GitHub import was read: the repository, the commit and the folder; not a signed claim (that is provenance)'),
      ),
    behaviour: z.optional(behaviourSchema).check(z.describe('absent on versions published before observation: cleared')),
    effects: z
      .optional(effectsSchema)
      .check(
        z.describe(
          'what running it does outside its folder, each effect with its evidence (docs/scanning.md, "Behaviour"); absent on versions published before observation',
        ),
      ),
  }),
);

/** `POST /api/skills/{id}/trusted-publishers`: a CI workflow that may publish the skill's versions. */
export const trustedPublisherBodySchema = lazySchema(() =>
  z.strictObject({
    provider: z.literal('github'),
    repository: z
      .string()
      .check(
        z.maxLength(140),
        z.regex(/^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100}$/, 'owner/repo'),
        z.describe('owner/repo, as GitHub names it (compared ignoring case)'),
      ),
    workflow: z
      .string()
      .check(
        z.maxLength(255),
        z.regex(/^[A-Za-z0-9._-]+\.ya?ml$/, 'a workflow file name such as publish.yml'),
        z.describe('the file name under .github/workflows/, such as publish.yml'),
      ),
    environment: z
      .optional(z.string().check(z.minLength(1), z.maxLength(255), z.regex(/^[^\s].*$/, 'an environment name')))
      .check(z.describe('only jobs that run in this environment')),
  }),
);

export type TrustedPublisherBody = z.output<typeof trustedPublisherBodySchema>;

export const trustedPublisherSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    provider: z.literal('github'),
    repository: z.string(),
    workflow: z.string(),
    environment: z.optional(z.string()),
    createdAt: z.string(),
    createdBy: z.string().check(z.describe('the login of who added it, or last confirmed it by adding it again: it counts on their word')),
    active: z
      .boolean()
      .check(
        z.describe(
          'whether it counts now: only while createdBy may publish the skill, and only for the owner it was added under (a transfer suspends it until the new owning side adds it again)',
        ),
      ),
  }),
);

export const trustedPublishersSchema = lazySchema(() => z.object({ publishers: z.array(trustedPublisherSchema) }));

/** `POST /api/oidc/exchange`: a CI's OIDC ID token (a JWT) for a 15-minute publish token. */
export const oidcExchangeBodySchema = lazySchema(() => z.strictObject({ token: z.string().check(z.minLength(1), z.maxLength(16_384)) }));

export const oidcExchangeAnswerSchema = lazySchema(() =>
  z.object({
    token: z.string().check(z.describe('spt_…: Authorization: Bearer for POST /api/skills/{id}/versions of the skills below, until expiresAt')),
    expiresAt: z.string(),
    skills: z.array(z.string()).check(z.describe('slugs of the skills that trust this workflow')),
  }),
);

export const registryDocumentSchema = lazySchema(() =>
  z.extend(skillSchema, {
    owner: staticOwnerSchema,
    visibility: z.optional(z.enum(['public', 'private'])).check(z.describe('public in every static file; private only from GET /api/me/registry/<slug>')),
    files: z.array(fileEntrySchema).check(z.describe('of the current version')),
    scan: z.optional(scanResultSchema).check(z.describe('of the current version')),
    versions: z.array(versionSummarySchema).check(z.describe('the 5 most recently published, newest first')),
    dependencies: z.record(z.string(), z.string()),
    delivery: z.object({ url: z.string(), bundle: z.optional(z.string()).check(z.describe('free skills: the immutable bundle of the current version')) }),
  }),
);

export const versionsDocumentSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    slug: z.string(),
    currentVersion: z.string(),
    versions: z.array(versionSummarySchema).check(z.describe('every version, newest first')),
  }),
);

/**
 * What `/api/registry/<slug>` and its `/versions` hold while the skill is quarantined: who it is,
 * and nothing to install.
 */
export const quarantinedDocumentSchema = lazySchema(() =>
  z.extend(z.pick(skillSchema, { id: true, slug: true, name: true, author: true }), { status: z.literal('quarantined') }),
);

/**
 * What `/api/registry/<slug>` and its `/versions` hold while no version of a new skill is
 * cleared (its first is being observed): who it is, and nothing to install by default.
 */
export const pendingDocumentSchema = lazySchema(() =>
  z.extend(z.pick(skillSchema, { id: true, slug: true, name: true, author: true }), { status: z.literal('pending') }),
);

/** A skill's public install counts: what anyone may know, unlike the author's analytics. */
export const publicInstallsSchema = lazySchema(() =>
  z.object({
    total: z.number().check(z.describe('distinct installs since the skill was published (one per client per UTC day)')),
    last7d: z._default(z.number(), 0).check(z.describe('distinct installs in the last 7 UTC days, today included')),
    last30d: z.number().check(z.describe('distinct installs in the last 30 UTC days, today included')),
  }),
);

/** `/.well-known/skills-installs.json`: every listed skill's public install counts, as of `generatedAt`. */
export const installsDocumentSchema = lazySchema(() =>
  z.object({
    generatedAt: z.string(),
    skills: z.record(z.string(), publicInstallsSchema).check(z.describe('by slug; a skill with no installs is left out')),
  }),
);

/** `/bundles/<slug>/<version>.json`: a free version's files, as delivery returns them. */
export const bundleDocumentSchema = lazySchema(() => z.pick(deliverySchema, { files: true }));

/** `GET /api/resolve`: the skills to resolve, `slug[@spec]` separated by commas. */
export const resolveQuerySchema = lazySchema(() =>
  z.object({
    skills: z
      .string()
      .check(
        z.minLength(1),
        z.maxLength(limits.resolveChars),
        z.describe(`slug, slug@1.2.3 or slug@range, separated by commas; at most ${limits.resolveSkills}`),
      ),
  }),
);

/** `GET /api/resolve`: one entry per skill asked for, in the order asked (docs/api.md §7.17). */
export const resolveAnswerSchema = lazySchema(() =>
  z.object({
    skills: z.array(
      z.union([
        z.object({
          slug: z.string(),
          registry: z
            .union([z.union([registryDocumentSchema, quarantinedDocumentSchema]), pendingDocumentSchema])
            .check(z.describe('as /api/registry/{slug} holds it')),
          versions: z.optional(versionsDocumentSchema).check(z.describe('as /api/registry/{slug}/versions holds it, when the spec may need an older version')),
        }),
        z.object({ slug: z.string(), error: errorBodySchema.shape.error.check(z.describe("this skill's refusal, as a request for it alone would answer")) }),
      ]),
    ),
  }),
);

export const errorBodySchema = lazySchema(() =>
  z.object({
    error: z.object({ code: z.string(), message: z.string(), details: z.optional(z.unknown()) }),
  }),
);

export const failingRebuildSchema = lazySchema(() =>
  z.object({
    skillId: z.string(),
    slug: z.optional(z.string()).check(z.describe('absent when the skill could not even be read')),
    stage: z.enum(['files', 'indexes']).check(z.describe("files: the skill's registry documents and bundles; indexes: its catalog and discovery entries")),
    attempts: z.number().check(z.int(), z.describe('failed attempts in a row')),
    since: z.string().check(z.describe('when the first of them failed (ISO 8601)')),
    error: z.object({ code: z.string(), message: z.string() }).check(z.describe('the last failure')),
  }),
);
export type FailingRebuild = z.output<typeof failingRebuildSchema>;

/** How many failing skills `/api/health` lists; `rebuild.failing` still counts them all. */
export const HEALTH_LISTS_AT_MOST = 50;

export const healthSchema = lazySchema(() =>
  z.object({
    status: z.enum(['ok', 'degraded']),
    rebuild: z
      .optional(
        z.object({
          failing: z.number().check(z.int(), z.describe('how many skills are failing to rebuild')),
          skills: z.array(failingRebuildSchema).check(z.describe(`the longest failing first, at most ${HEALTH_LISTS_AT_MOST}`)),
        }),
      )
      .check(z.describe('degraded only: the skills whose static files are behind because their rebuild keeps failing (each is retried with backoff)')),
  }),
);
export type Health = z.output<typeof healthSchema>;

/** `/.well-known/agent-skills/index.json` (agentskills.io discovery 0.2.0). */
export const discoveryDocumentSchema = lazySchema(() =>
  z.object({
    $schema: z.string(),
    skills: z.array(
      z.object({
        name: z.string(),
        type: z.enum(['archive', 'skill-md']).check(z.describe('skill-md: the version is its SKILL.md alone, and url names that file')),
        description: z.string(),
        url: z.string(),
        digest: z.string(),
        version: z.string(),
        verdict: z
          .optional(z.enum(VERDICTS.filter((verdict): verdict is Exclude<Verdict, 'clean'> => verdict !== 'clean')))
          .check(z.describe("only in a skill's own index, when its current version does not stand as clean: the shared indexes leave such a skill out")),
      }),
    ),
  }),
);

/** GitHub's `owner/name`: a login of up to 39 characters and a repository name of up to 100. */
const repoNameSchema = lazySchema(() =>
  z.string().check(
    z.maxLength(140),
    z.regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/, 'owner/name, as GitHub names a repository'),
    z.refine((name) => !/\/\.{1,2}$/.test(name), 'owner/name, as GitHub names a repository'),
  ),
);

/** `POST /api/imports`: a GitHub repository whose skill folders are published, and kept in sync. */
export const importBodySchema = lazySchema(() =>
  z.strictObject({
    repo: repoNameSchema.check(z.describe('owner/name of a GitHub repository the caller owns (their account, or an organisation they belong to)')),
    ref: z
      .optional(
        z.string().check(
          z.minLength(1),
          z.maxLength(255),
          z.regex(/^[A-Za-z0-9._/-]+$/, 'a branch, a tag or refs/heads/<branch>'),
          z.refine((ref) => !ref.split('/').some((part) => part === '' || part === '.' || part === '..'), 'a branch, a tag or refs/heads/<branch>'),
        ),
      )
      .check(z.describe("the branch or tag to import and track; default: the repository's default branch")),
    path: z
      .optional(
        z.string().check(
          z.maxLength(1024),
          z.regex(/^[A-Za-z0-9._ -]+(?:\/[A-Za-z0-9._ -]+)*$/, 'a folder of the repository, such as skills'),
          z.refine((path) => !path.split('/').some((part) => part === '.' || part === '..'), 'a folder of the repository, such as skills'),
        ),
      )
      .check(z.describe('a folder of the repository to look for skills in; default: the whole repository')),
    org: z
      .optional(loginSchema)
      .check(z.describe('a Skillpress organisation to publish new skills into (you must be a maintainer or an owner of it); default: yourself')),
  }),
);

export type ImportBody = z.output<typeof importBodySchema>;

/** What an import did with one skill folder. */
export const importFolderSchema = lazySchema(() =>
  z.object({
    path: z.string().check(z.describe("the folder in the repository ('' for its root)")),
    slug: z.optional(z.string()).check(z.describe('the skill it is, when its SKILL.md names one')),
    outcome: z
      .enum(['published', 'versioned', 'unchanged', 'refused'])
      .check(z.describe('published: a new skill at 1.0.0; versioned: a new version; unchanged: the same files as the current version; refused: see error')),
    version: z.optional(z.string()).check(z.describe('the version published, or the current one when unchanged')),
    error: z
      .optional(z.object({ code: z.string(), message: z.string() }))
      .check(z.describe("a refused folder's error, as the publish API would have answered it")),
  }),
);

export type ImportFolder = z.output<typeof importFolderSchema>;

/** An import as its owner sees it. */
export const importSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    repo: z.string(),
    ref: z.string().check(z.describe('the branch or tag tracked')),
    path: z.string().check(z.describe("the folder skills are looked for in ('' for the whole repository)")),
    org: z.optional(z.string()),
    createdAt: z.string(),
    webhookUrl: z
      .string()
      .check(z.describe("the webhook of this import, to add to the repository's settings with the secret (content type application/json, push events)")),
    lastSync: z.optional(z.object({ at: z.string(), commit: z.string() })).check(z.describe('the last import or sync, and the commit it read')),
  }),
);

export type ImportView = z.output<typeof importSchema>;

/** `POST /api/imports` and a sync: the import, and what happened to each skill folder at the commit read. */
export const importResultSchema = lazySchema(() =>
  z.extend(importSchema, {
    commit: z.string().check(z.describe('the commit read')),
    folders: z.array(importFolderSchema),
    webhookSecret: z
      .optional(z.string())
      .check(z.describe("the webhook's secret, in the answer that created the import only: GitHub signs each delivery with it (X-Hub-Signature-256)")),
  }),
);

export type ImportResult = z.output<typeof importResultSchema>;

export const importsSchema = lazySchema(() => z.object({ imports: z.array(importSchema) }));
