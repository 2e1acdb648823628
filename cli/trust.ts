import { keysTrustedFrom, type RegistryKey } from '../core/version-signature.ts';
import { type PinnedKey, readConfig, saveConfig } from './config.ts';
import type { Io } from './io.ts';
import { PACKAGED } from './packaged-registry.ts';

/**
 * Which of a registry's signing keys the client trusts (docs/api.md §11.11). A signature proves
 * only that the key in `keys.json` made it, and `keys.json` comes from whoever serves the
 * registry: a mirror that signs with a key of its own would pass. So the client pins keys: those
 * the package it came from names for its registry (`registry.json`), those a project's lockfile
 * recorded as having signed its skills (`signedBy`), and those saved in `config.json` for that
 * registry URL. It trusts the pinned keys and every key reachable from one through rotation
 * statements (`endorsedBy`, the old key's signature of the new key's id), nothing else. With no
 * pin at all it trusts what it is served, once, and records it (trust on first use).
 */

/** The pins of `registry`: the packaged ones, the saved ones, and `extra` (a lockfile's). */
function pinsOf(env: Io['env'], registry: string, extra: readonly PinnedKey[]): { saved: PinnedKey[]; all: PinnedKey[] } {
  const saved = readConfig(env).keys?.[registry] ?? [];
  const packaged = PACKAGED?.registry === registry ? PACKAGED.keys : [];
  return { saved, all: [...packaged, ...saved, ...extra] };
}

/** Config writes of this process, one after another: two registries' pins must not race for the file. */
let saving: Promise<unknown> = Promise.resolve();

/**
 * Adds `keys` to the pins saved for `registry`. Best effort: a read-only configuration folder
 * must not fail an install, and costs only the pin (the next run trusts on first use again).
 */
function savePins(env: Io['env'], registry: string, keys: readonly RegistryKey[]): Promise<unknown> {
  saving = saving.then(async () => {
    try {
      const config = readConfig(env);
      const saved = config.keys?.[registry] ?? [];
      const added = keys.filter((key) => !saved.some((pin) => pin.keyid === key.keyid)).map(({ keyid, publicKey }) => ({ keyid, publicKey }));
      if (added.length > 0) await saveConfig(env, { keys: { ...config.keys, [registry]: [...saved, ...added] } });
    } catch {
      // The pin is an extra; the install it belongs to goes on.
    }
  });
  return saving;
}

/**
 * The keys of `served` (the registry's `keys.json`) that the client trusts for `registry`, given
 * the lockfile's pins `extra`. Keys newly trusted (the first use, a rotation followed) are saved
 * as pins for next time.
 */
export async function trustedKeys(env: Io['env'], registry: string, served: readonly RegistryKey[], extra: readonly PinnedKey[]): Promise<RegistryKey[]> {
  const { saved, all } = pinsOf(env, registry, extra);
  const trusted = all.length === 0 ? [...served] : keysTrustedFrom(served, all);
  if (trusted.some((key) => !saved.some((pin) => pin.keyid === key.keyid))) await savePins(env, registry, trusted);
  return trusted;
}
