import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { create } from 'tar';
import { cliPackageKey, cliPackageVersionKey } from '#core/static-paths';
import type { Deps } from '#functions/platform/composition';
import { publishedKeys } from '#functions/platform/signer';
import type { RegistryKey } from '#core/version-signature';

/**
 * The `skillpress` package as a registry serves it (`GET /cli/skillpress.tgz`, and
 * `/cli/skillpress-<version>.tgz`, docs/api.md §11): what `npm pack` in cli/ would make — its
 * manifest, README, the launcher, the bundle's modules and the grammar's files under `package/` — plus `registry.json`, which
 * makes the origin that serves it the client's default registry and pins that registry's signing
 * keys (cli/packaged-registry.ts). So `npx -y <origin>/cli/skillpress.tgz install <slug>` talks
 * to that origin with nothing installed and no flag, and trusts no signature but its keys' (and
 * those of keys they endorse): a mirror that signs with a key of its own is refused. The registry file is written where the origin is known: at `npm start`
 * (the listening origin, or SITE_ORIGIN) and at `npm run upload-site` on AWS (SITE_ORIGIN).
 *
 * The archive is the same bytes for the same sources and origin (sorted entries, fixed times,
 * no owner names), so the versioned copy changes only when a release bumps cli/package.json's
 * version and the code with it.
 */

// Two folders down from the repository, here and in `npm start`'s bundle (dist/server/), so the
// paths hold in both; cli/bundle.mjs is loaded, not bundled, for its own paths to hold too.
const cli = fileURLToPath(new URL('../../cli/', import.meta.url));
const manifest = JSON.parse(readFileSync(join(cli, 'package.json'), 'utf8')) as { version: string; files: string[]; scripts?: unknown } & Record<
  string,
  unknown
>;

/** The version the package carries (cli/package.json). */
export const CLI_VERSION = manifest.version;

/** Builds the bundle when its sources changed since it was built, as cli/bin.mjs does; gives the files of its dist/. */
async function freshBundle(): Promise<string[]> {
  const { BUNDLE, bundleCli, FINGERPRINT, packagedFiles, sourceFingerprint } = (await import(
    new URL('../../cli/bundle.mjs', import.meta.url).href
  )) as typeof import('../../cli/bundle.mjs');
  const built = existsSync(FINGERPRINT) ? readFileSync(FINGERPRINT, 'utf8').trim() : undefined;
  if (!existsSync(BUNDLE) || built !== sourceFingerprint()) await bundleCli();
  return packagedFiles();
}

/**
 * The package as a gzipped tarball. With `registry`, the client it holds defaults to it, and
 * trusts `keys` (their ids and public keys) for it; without, to the one the client names when
 * none is saved (for the npm registry's copy, see README).
 */
export async function packCli(registry?: string, keys: readonly Pick<RegistryKey, 'keyid' | 'publicKey'>[] = []): Promise<Buffer> {
  const dist = await freshBundle();
  const stage = mkdtempSync(join(tmpdir(), 'skillpress-cli-pack-'));
  try {
    const root = join(stage, 'package');
    mkdirSync(join(root, 'dist'), { recursive: true });
    // The packed manifest needs no build script: the bundle is in it.
    const { scripts: _build, ...packed } = manifest;
    writeFileSync(join(root, 'package.json'), `${JSON.stringify(packed, null, 2)}\n`);
    writeFileSync(join(root, 'README.md'), readFileSync(join(cli, 'README.md')));
    for (const name of dist) {
      writeFileSync(join(root, 'dist', name), readFileSync(join(cli, 'dist', name)), name === 'skillpress.mjs' ? { mode: 0o755 } : undefined);
    }
    const pinned = keys.map(({ keyid, publicKey }) => ({ keyid, publicKey }));
    if (registry !== undefined) writeFileSync(join(root, 'registry.json'), `${JSON.stringify({ registry, ...(pinned.length > 0 ? { keys: pinned } : {}) })}\n`);
    const entries = ['package/package.json', 'package/README.md', ...dist.map((name) => `package/dist/${name}`)];
    if (registry !== undefined) entries.push('package/registry.json');
    const stream = create({ cwd: stage, gzip: { level: 9 }, portable: true, mtime: new Date('2000-01-01T00:00:00Z'), noDirRecurse: true }, entries);
    const chunks: Buffer[] = [];
    for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(Buffer.from(chunk));
    return Buffer.concat(chunks);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * Packs the client for `origin`, pinning the keys the registry publishes, and writes it to the
 * static bucket at both paths. Returns what was written, for the log line.
 */
export async function publishCliPackage(
  deps: Pick<Deps, 'staticStore' | 'signer' | 'config' | 'clock'>,
  origin: string,
): Promise<{ version: string; bytes: number; keys: string[] }> {
  const tarball = await packCli(origin, await publishedKeys(deps.signer, deps.config.signing, deps.clock()));
  const keys = [cliPackageKey, cliPackageVersionKey(CLI_VERSION)];
  for (const key of keys) await deps.staticStore.put(key, tarball);
  return { version: CLI_VERSION, bytes: tarball.byteLength, keys };
}
