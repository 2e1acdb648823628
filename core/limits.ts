/** The limits of docs/api.md, in one place so the API, the CLI and the docs agree. */
export const limits = {
  bodyBytes: 6 * 1024 * 1024,
  filesPerVersion: 200,
  fileBytes: 1024 * 1024,
  versionBytes: 5 * 1024 * 1024,
  filenameChars: 255,
  /** Per folder or file name, as file systems count it. */
  filenameSegmentBytes: 255,
  /** Semver allows any length; 128 keeps every key and file name derived from a version short. */
  versionChars: 128,
  dependencies: 32,
  publishPerWindow: 5,
  publishWindowSeconds: 60,
  /** New versions of an author's skills; as many as a CI run publishing a folder of skills needs at once. */
  versionsPerWindow: 20,
  versionWindowSeconds: 60,
  /** Reports by one account: enough for anyone reporting what they came across, not for sweeping a catalog. */
  reportsPerWindow: 10,
  reportWindowSeconds: 3600,
  /** New organisations by one account: a team or two a day, not a namespace swept in a second. */
  orgsPerWindow: 10,
  orgWindowSeconds: 86_400,
  /**
   * Checks of files before a publish (the web upload's preview): each is a scan, so they are
   * limited like publishes, but an author fixing a folder checks it again and again.
   */
  checksPerWindow: 30,
  checkWindowSeconds: 60,
  registryVersions: 5,
  /**
   * Skills one batch resolve names (docs/api.md §7.17), and the characters of its list: the
   * skills a project installs at once, in a URL every proxy and CDN passes.
   */
  resolveSkills: 50,
  resolveChars: 4096,
  /** Skill folders one GitHub import publishes; a larger repository is imported a folder (`path`) at a time. */
  importFolders: 100,
  sessionSeconds: 30 * 24 * 60 * 60,
  downloadToken: { minSeconds: 60, maxSeconds: 2_592_000, defaultSeconds: 86_400 },
  /**
   * A buyer's or grantee's own tokens are for their own installs, and die with their access
   * anyway: short and few, so one shared publicly is little use to anyone else.
   */
  entitledToken: { maxSeconds: 3600, defaultSeconds: 600, maxUses: 10, defaultUses: 1 },
  /** An organisation's members and pending invitations together: its roles live in one item. */
  orgMembers: 1000,
  invitationDays: 7,
  apiKeyDays: { min: 1, max: 365 },
  /** Trusted publishers of one skill: a few repositories and environments, never a sweep. */
  trustedPublishers: 20,
  /** A CI publish token's life, from its OIDC exchange. */
  publishTokenSeconds: 15 * 60,
  /** Skills one API key may be narrowed to. */
  keySkills: 100,
  auditPage: 50,
  /**
   * The largest delivery answered in its response: Lambda's 6 MB response less room for the rest
   * of its envelope. Counted as the body takes it inside that envelope, a JSON string, where every
   * `"` and `\` of the body is escaped once more ({@link jsonStringBytes}). A larger one is answered
   * with a link (docs/api.md §7.6).
   */
  inlineDeliveryBytes: 6_000_000,
  /**
   * Files a ClawHub client sends ahead of a publish (docs/api.md §14.3): each at most
   * {@link limits.fileBytes}; an account holds at most `files` of them, `bytes` in all, announced
   * and not yet published (two full versions' worth); a ticket lives `ticketSeconds`, and the
   * bytes sent to it are deleted `keptDays` after they arrived, published or not.
   */
  clawhubUploads: { files: 400, bytes: 10 * 1024 * 1024, ticketSeconds: 60 * 60, keptDays: 1 },
  /**
   * How long the link to a large paid or private delivery works: the client follows the `303` at
   * once, and S3 checks the expiry when a download starts, not while it runs.
   */
  deliveryLinkSeconds: 60,
} as const;

/** The bytes `body` takes as a JSON string: its own, plus one for each `"` and `\` escaped. */
export function jsonStringBytes(body: Uint8Array): number {
  let escaped = 0;
  for (let i = 0; i < body.length; i++) if (body[i] === 0x22 || body[i] === 0x5c) escaped++;
  return body.length + escaped + 2;
}
