import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A fingerprint of everything a site build is made from apart from the data: the site's
 * sources, the core modules it imports, and the Astro version. The upload records it, so
 * `npm start` rebuilds the site at start when the code changed since the stored site was built.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const INPUTS = ['site/src', 'site/public', 'site/astro.config.mjs', 'core', 'node_modules/astro/package.json'];

export function siteSourceHash(): string {
  const hash = createHash('sha256');
  for (const input of INPUTS) {
    for (const file of walk(join(ROOT, input))) {
      hash.update(relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
    }
  }
  return hash.digest('hex').slice(0, 32);
}

function walk(path: string): string[] {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch {
    return [];
  }
  if (!stat.isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => walk(join(path, name)));
}
