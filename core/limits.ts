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
  registryVersions: 5,
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
} as const;
