import { bundleIntegrity, decodeFile, fileEntries, type WireFile } from '#core/bundle';
import type { Effects } from '#core/effects/effect';
import { registryPath, SIGNING_KEYS_KEY } from '#core/static-paths';
import type { SignedFacts } from '#core/version-signature';
import { FAKE_KEYS, fakeSignature, type Route } from './fake-registry.ts';

/**
 * A fake registry of one skill with several versions, each with what the registry's observation
 * says of it (`behaviour`, `effects`), as its documents list them; each version delivered by its
 * `?version=`. For the client's side of trust by behaviour: which version it chooses, and what it
 * shows and asks before installing.
 */

export interface ObservedVersion {
  version: string;
  /** Absent: a version listed without one (published before observation). */
  behaviour?: 'pending' | 'cleared' | 'refused';
  /** Absent: never observed. Any JSON, to serve a malformed one. */
  effects?: Effects | unknown;
  files?: WireFile[];
}

const PUBLISHED_AT = '2025-01-01T00:00:00.000Z';

/** Routes serving `slug` with `versions` (oldest first); `current` is the registry's current version (the newest by default). */
export function observedSkillRoutes(slug: string, versions: ObservedVersion[], current = versions.at(-1)!.version): Route {
  const id = `observed-${slug}`;
  const built = versions.map((v) => {
    const files = v.files ?? [{ filename: 'SKILL.md', content: `# ${slug} ${v.version}\n` }];
    const bytes = files.map((file) => decodeFile(file)!);
    const integrity = bundleIntegrity(bytes);
    const summary = {
      version: v.version,
      changelog: `${v.version} notes`,
      publishedAt: PUBLISHED_AT,
      integrity,
      // Signed with what the registry says of it, as signature format 3 covers.
      signature: fakeSignature({
        slug,
        version: v.version,
        integrity,
        ...(v.behaviour ? { behaviour: v.behaviour } : {}),
        ...(v.effects === undefined ? {} : { effects: v.effects }),
      } as SignedFacts),
      ...(v.behaviour ? { behaviour: v.behaviour } : {}),
      ...(v.effects === undefined ? {} : { effects: v.effects }),
    };
    return { version: v.version, files, entries: fileEntries(bytes), summary };
  });
  const newestFirst = [...built].reverse().map((b) => b.summary);
  const currentBuilt = built.find((b) => b.version === current)!;
  const doc = {
    id,
    slug,
    name: slug,
    description: 'A skill whose versions the registry observed.',
    category: 'testing',
    author: 'mallory',
    paid: false,
    currentVersion: current,
    createdAt: PUBLISHED_AT,
    updatedAt: PUBLISHED_AT,
    files: currentBuilt.entries,
    versions: newestFirst.slice(0, 5),
    dependencies: {},
    formats: ['agent-skills'],
    delivery: { url: `/api/deliver/${id}` },
  };
  return (url) => {
    if (url.pathname === registryPath(slug)) return { body: doc };
    if (url.pathname === `${registryPath(slug)}/versions`) return { body: { id, slug, currentVersion: current, versions: newestFirst } };
    if (url.pathname === `/${SIGNING_KEYS_KEY}`) return { body: FAKE_KEYS };
    const delivered = url.pathname === `/api/deliver/${id}` ? built.find((b) => b.version === url.searchParams.get('version')) : undefined;
    return delivered ? { body: { skillId: id, slug, version: delivered.version, files: delivered.files } } : undefined;
  };
}
