import { readFileSync } from 'node:fs';
import type { PinnedKey } from './config.ts';

/**
 * The registry this copy of the client came from. A registry serves the `skillpress` package
 * with `registry.json` beside its `dist/` (scripts/release/cli-package.ts), so a client fetched
 * with `npx -y <origin>/cli/skillpress.tgz` talks to that origin with no flag and nothing saved,
 * and trusts for it only the signing keys the file names (and keys they endorse: cli/trust.ts).
 * In the repository, and in a package built without one, there is none.
 */
export interface PackagedRegistry {
  registry: string;
  keys: PinnedKey[];
}

function read(): PackagedRegistry | undefined {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(new URL('../registry.json', import.meta.url), 'utf8'));
  } catch {
    return undefined;
  }
  const { registry, keys } = (value ?? {}) as { registry?: unknown; keys?: unknown };
  if (typeof registry !== 'string' || !/^https?:\/\/[^/?#]+$/.test(registry)) return undefined;
  const pinned = Array.isArray(keys) ? keys.filter((k): k is PinnedKey => typeof k?.keyid === 'string' && typeof k.publicKey === 'string') : [];
  return { registry, keys: pinned.map(({ keyid, publicKey }) => ({ keyid, publicKey })) };
}

/** The packaged registry and its keys, read once. */
export const PACKAGED: PackagedRegistry | undefined = read();
