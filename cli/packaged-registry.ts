import { readFileSync } from 'node:fs';

/**
 * The registry this copy of the client came from. A registry serves the `skillpress` package
 * with `registry.json` beside its `dist/` (scripts/cli-package.ts), so a client fetched with
 * `npx -y <origin>/cli/skillpress.tgz` talks to that origin with no flag and nothing saved.
 * In the repository, and in a package built without one, there is none.
 */
export function packagedRegistry(): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(new URL('../registry.json', import.meta.url), 'utf8'));
  } catch {
    return undefined;
  }
  const registry = (value as { registry?: unknown } | null)?.registry;
  return typeof registry === 'string' && /^https?:\/\/[^/?#]+$/.test(registry) ? registry : undefined;
}
