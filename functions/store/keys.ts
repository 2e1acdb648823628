/**
 * Every key of the single table, in one place: the partition-key prefixes (which the stack's
 * least-privilege policies and the stream filter name too) and the key of each kind of item.
 * Entity files build their items from these; nothing else spells a prefix.
 */
export const prefix = {
  /** A skill's partition: META and one item per version. */
  skill: 'SKILL#',
  /** A slug's claim, unique across skills. */
  slug: 'SLUG#',
  /** GSI partition: an author's skills (those the author owns). */
  author: 'AUTHOR#',
  /** GSI partition: an organisation's skills. */
  orgSkills: 'ORGSKILLS#',
  user: 'USER#',
  /** A login's claim, so a login names one user. */
  login: 'LOGIN#',
  session: 'SESSION#',
  apiKey: 'APIKEY#',
  /** GSI partition: a user's API keys. */
  apiKeysOf: 'KEYS#',
  downloadToken: 'TOKEN#',
  /** GSI partition: a skill's download tokens. */
  downloadTokensOf: 'TOKENS#',
  grant: 'GRANT#',
  /** GSI partition: a skill's grants. */
  grantsOf: 'GRANTS#',
  /** A skill's purchases, one item per Checkout Session. */
  purchase: 'PURCHASE#',
  /** GSI partition: a buyer's purchases. */
  purchasesOf: 'PURCHASES#',
  /** A Stripe payment (PaymentIntent): which purchase it paid for, and whether it was refunded. */
  payment: 'PAYMENT#',
  /** A skill's install counters, one item per UTC day and a total; a hot skill's shards add `#<n>`. */
  installs: 'DL#',
  /** The secret of one UTC day that distinct installs are hashed with (core/install-visitor.ts). */
  installSecret: 'INSTALLSECRET#',
  /** One network's distinct clients of a skill on a UTC day, as keyed hashes. */
  visitor: 'SEEN#',
  /** A CDN request already counted, so a log record delivered twice counts once. */
  countedRequest: 'CDNREQ#',
  /** The skills installed in one 5-minute window, for the refresh of the public counts. */
  recentInstalls: 'INSTALLED#',
  /** The rate limits of an account: one item per limited action. */
  rateLimit: 'RL#',
  /** The popular skills whose slugs share one lookalike key, for the imitation check. */
  lookalike: 'LOOKALIKE#',
  lock: 'LOCK#',
  /** An organisation: its item (members and roles) and its pending invitations. */
  org: 'ORG#',
  /** GSI partition: a user's pending invitations. */
  invitationsOf: 'INVITES#',
  /** An organisation's audit log, newest last. */
  audit: 'AUDIT#',
  /** A skill's reports, one item per reporter. */
  report: 'REPORT#',
  /** What admins decided about an account's reports: how many were upheld and dismissed. */
  reporter: 'REPORTER#',
  /** GSI partition: every open report, for the admins. */
  openReports: 'REPORTS#open',
  /** A trusted publisher, in the partition of its repository (the OIDC exchange looks them up by it). */
  trust: 'TRUST#',
  /** GSI partition: a skill's trusted publishers. */
  publishersOf: 'PUBLISHERS#',
  /** A CI publish token (`spt_`), by its hash. */
  publishToken: 'PUBLISHTOKEN#',
  /** An OIDC token's `jti`, once exchanged: never again. */
  oidcToken: 'OIDCJTI#',
  /** An appeal of a refused version: what it would publish, waiting for an admin (docs/api.md §7.15). */
  appeal: 'APPEAL#',
  /** GSI partition: an author's appeals. */
  appealsOf: 'APPEALS#',
  /** The pending appeals, oldest first: the admins' queue, one item per appeal. */
  appealQueue: 'APPEALQUEUE',
  /** How many of an author's appeals are pending: the counter their cap is taken from. */
  pendingAppeals: 'PENDINGAPPEALS#',
  /** A GitHub repository imported by a user, which its webhook and "sync now" import again (docs/api.md §7.16). */
  import: 'IMPORT#',
  /** GSI partition: a user's imports. */
  importsOf: 'IMPORTS#',
  /** A file a ClawHub client announced (and then sent) before publishing it, by its ticket's hash. */
  upload: 'UPLOAD#',
} as const;

/** Sort-key prefixes inside a partition. */
export const sortPrefix = {
  version: 'VERSION#',
  day: 'DAY#',
  buyer: 'BUYER#',
  fingerprint: 'FINGERPRINT#',
  /** The registry's signature of a version (store/signatures.ts). */
  signature: 'SIGNATURE#',
  /** In an organisation's partition: a pending invitation, by the invitee's user id. */
  invitation: 'INVITE#',
  /** In a user's partition: an organisation they belong to, for their list of organisations. */
  membership: 'ORG#',
} as const;

export type ItemKey = { pk: string; sk: string };

export const skillKey = (id: string): ItemKey => ({ pk: prefix.skill + id, sk: 'META' });
export const versionKey = (skillId: string, version: string): ItemKey => ({ pk: prefix.skill + skillId, sk: sortPrefix.version + version });
/** Which version of a skill has this ClawHub fingerprint (core/clawhub-fingerprint.ts). */
export const fingerprintKey = (skillId: string, fingerprint: string): ItemKey => ({ pk: prefix.skill + skillId, sk: sortPrefix.fingerprint + fingerprint });
/** The registry's signature of a version (store/signatures.ts). */
export const signatureKey = (skillId: string, version: string): ItemKey => ({ pk: prefix.skill + skillId, sk: sortPrefix.signature + version });
export const slugKey = (slug: string): ItemKey => ({ pk: prefix.slug + slug, sk: 'SLUG' });
export const userKey = (id: string): ItemKey => ({ pk: prefix.user + id, sk: 'USER' });
export const loginKey = (login: string): ItemKey => ({ pk: prefix.login + login.toLowerCase(), sk: 'LOGIN' });
export const sessionKey = (tokenHash: string): ItemKey => ({ pk: prefix.session + tokenHash, sk: 'SESSION' });
export const apiKeyKey = (keyHash: string): ItemKey => ({ pk: prefix.apiKey + keyHash, sk: 'APIKEY' });
export const downloadTokenKey = (tokenHash: string): ItemKey => ({ pk: prefix.downloadToken + tokenHash, sk: 'TOKEN' });
export const grantKey = (skillId: string, userId: string): ItemKey => ({ pk: `${prefix.grant}${skillId}#${userId}`, sk: 'GRANT' });
export const purchaseKey = (skillId: string, userId: string, sessionId: string): ItemKey => ({
  pk: prefix.purchase + skillId,
  sk: `${sortPrefix.buyer}${userId}#${sessionId}`,
});
export const paymentKey = (paymentIntentId: string): ItemKey => ({ pk: prefix.payment + paymentIntentId, sk: 'PAYMENT' });
/** A skill's install counter partition: shard 0 is the skill's own, a hot skill's others are `#1`…`#n-1`. */
export const installPartition = (skillId: string, shard = 0): string => prefix.installs + skillId + (shard === 0 ? '' : `#${shard}`);
export const installDayKey = (skillId: string, day: string, shard = 0): ItemKey => ({ pk: installPartition(skillId, shard), sk: sortPrefix.day + day });
export const installTotalKey = (skillId: string, shard = 0): ItemKey => ({ pk: installPartition(skillId, shard), sk: 'TOTAL' });
/** The skill id and shard of an install counter partition. */
export function installPartitionOf(pk: string): { skillId: string; shard: number } {
  const rest = pk.slice(prefix.installs.length);
  const hash = rest.lastIndexOf('#');
  return hash < 0 ? { skillId: rest, shard: 0 } : { skillId: rest.slice(0, hash), shard: Number(rest.slice(hash + 1)) };
}
export const installSecretKey = (day: string): ItemKey => ({ pk: prefix.installSecret + day, sk: 'SECRET' });
export const visitorKey = (skillId: string, day: string, network: string): ItemKey => ({ pk: `${prefix.visitor}${skillId}#${day}#${network}`, sk: 'SEEN' });
export const recentInstallsKey = (window: number, shard: number): ItemKey => ({ pk: `${prefix.recentInstalls}${window}#${shard}`, sk: 'INSTALLED' });
export const countedRequestKey = (requestId: string): ItemKey => ({ pk: prefix.countedRequest + requestId, sk: 'CDNREQ' });
export const rateLimitKey = (userId: string, action: string): ItemKey => ({ pk: prefix.rateLimit + userId, sk: action });
export const lockKey = (name: string): ItemKey => ({ pk: prefix.lock + name, sk: 'LOCK' });
export const lookalikeKey = (key: string): ItemKey => ({ pk: prefix.lookalike + key, sk: 'LOOKALIKE' });
export const uploadKey = (ticketHash: string): ItemKey => ({ pk: prefix.upload + ticketHash, sk: 'UPLOAD' });
/** A trusted publisher: the repository's partition (ignoring case), one item per skill and publisher. */
export const trustKey = (provider: string, repository: string, skillId: string, publisherId: string): ItemKey => ({
  pk: `${prefix.trust}${provider}#${repository.toLowerCase()}`,
  sk: `${skillId}#${publisherId}`,
});
export const publishTokenKey = (tokenHash: string): ItemKey => ({ pk: prefix.publishToken + tokenHash, sk: 'PUBLISHTOKEN' });
export const oidcTokenKey = (issuer: string, jti: string): ItemKey => ({ pk: `${prefix.oidcToken}${issuer}#${jti}`, sk: 'OIDCJTI' });
export const orgKey = (login: string): ItemKey => ({ pk: prefix.org + login.toLowerCase(), sk: 'ORG' });
export const invitationKey = (org: string, userId: string): ItemKey => ({ pk: prefix.org + org.toLowerCase(), sk: sortPrefix.invitation + userId });
export const membershipKey = (userId: string, org: string): ItemKey => ({ pk: prefix.user + userId, sk: sortPrefix.membership + org.toLowerCase() });
export const auditKey = (org: string, at: string, id: string): ItemKey => ({ pk: prefix.audit + org.toLowerCase(), sk: `${at}#${id}` });
export const reportKey = (skillId: string, userId: string): ItemKey => ({ pk: prefix.report + skillId, sk: prefix.user + userId });
export const reporterKey = (userId: string): ItemKey => ({ pk: prefix.reporter + userId, sk: 'REPORTER' });
export const appealKey = (id: string): ItemKey => ({ pk: prefix.appeal + id, sk: 'APPEAL' });
export const pendingAppealsKey = (userId: string): ItemKey => ({ pk: prefix.pendingAppeals + userId, sk: 'PENDING' });
export const importKey = (id: string): ItemKey => ({ pk: prefix.import + id, sk: 'IMPORT' });
export const appealQueueKey = (createdAt: string, id: string): ItemKey => ({ pk: prefix.appealQueue, sk: `${createdAt}#${id}` });

/**
 * The items whose changes the rebuild follows: a skill's META and its versions. The fingerprint
 * and signature items of the same partition are the rebuild's own output, so they are not among them (else
 * every rebuild would set off another). The stream's filter (infra/) and its handler both read this.
 */
export const rebuildSources = { partitionPrefix: prefix.skill, sortKeyPrefixes: ['META', sortPrefix.version] } as const;

/** The skill a rebuild source's key belongs to (see {@link rebuildSources}), or undefined for any other item. */
export function skillIdOfKey(pk: string | undefined, sk: string | undefined): string | undefined {
  if (!pk?.startsWith(rebuildSources.partitionPrefix) || !rebuildSources.sortKeyPrefixes.some((p) => sk?.startsWith(p))) return undefined;
  return pk.slice(rebuildSources.partitionPrefix.length);
}
