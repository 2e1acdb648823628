/** Types of bundle.mjs, for scripts/build.ts and the tests (the module itself is plain JavaScript). */
/** The package's bin: the launcher that runs the bundle. */
export declare const BUNDLE: string;
export declare const FINGERPRINT: string;
export declare function sourceFingerprint(): string;
/** Builds dist/cli.mjs and its launcher dist/skillpress.mjs; resolves with the bundle's size in bytes. */
export declare function bundleCli(): Promise<number>;
/** Where the build writes the package's files. */
export declare const DIST: string;
/** The files of the package's dist/ as the last build left them. */
export declare function packagedFiles(): string[];
