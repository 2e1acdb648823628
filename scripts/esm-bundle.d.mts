/** Types of esm-bundle.mjs, for the TypeScript build scripts and tests (the module itself is plain JavaScript). */
export declare const REQUIRE_BANNER: string;
export declare function statFingerprint(root: string, files: readonly string[]): string | undefined;
export declare function embedGrammar(): import('esbuild').Plugin;
