/** Types of bundle.mjs, for scripts/build.ts and the tests (the module itself is plain JavaScript). */
export declare const BUNDLE: string;
export declare const FINGERPRINT: string;
export declare function sourceFingerprint(): string;
/** Builds dist/skillpress.mjs; resolves with its size in bytes. */
export declare function bundleCli(): Promise<number>;
