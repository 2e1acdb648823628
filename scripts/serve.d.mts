/** Types of serve.mjs, for the tests (the module itself is plain JavaScript). */
/** Builds dist/server/ (or `out`, two folders below the repository root) unless it is fresh; resolves with whether it built. */
export declare function ensureServerBundle(out?: string): Promise<boolean>;
