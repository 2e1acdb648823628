import { canonicalJson } from '#core/canonical-json';
import type { Deps } from '#functions/platform/composition';
import { listObjects, scanItems } from './store.ts';

/**
 * A picture of everything a stack stores — every DynamoDB item (as canonical JSON) and every
 * object key of both buckets (with its ETag) — so a run of requests can be checked for what it
 * changed. Keys read `pk|sk` for items and `content/<key>` or `static/<key>` for objects.
 */
export interface StoreSnapshot {
  items: Map<string, string>;
  objects: Map<string, string>;
}

export async function snapshotStore(deps: Deps): Promise<StoreSnapshot> {
  const [items, content, statics] = await Promise.all([
    scanItems(deps.db),
    listObjects(deps.s3, deps.config.contentBucket),
    listObjects(deps.s3, deps.config.staticBucket),
  ]);
  return {
    items: new Map(items.map((item) => [`${item.pk}|${item.sk}`, canonicalJson(item)])),
    objects: new Map([...[...content].map(([k, etag]) => [`content/${k}`, etag] as const), ...[...statics].map(([k, etag]) => [`static/${k}`, etag] as const)]),
  };
}

/** The keys added, removed or changed between two snapshots. */
export function changedKeys(before: StoreSnapshot, after: StoreSnapshot): string[] {
  const changed: string[] = [];
  for (const [a, b] of [
    [before.items, after.items],
    [before.objects, after.objects],
  ] as const) {
    for (const key of new Set([...a.keys(), ...b.keys()])) if (a.get(key) !== b.get(key)) changed.push(key);
  }
  return changed.sort();
}

/**
 * What the accepted requests of a run may have changed: exact keys and key prefixes. Anything
 * else that changed was changed by a rejected request.
 */
export class Footprint {
  private readonly exact = new Set<string>();
  private readonly prefixes: string[] = [];

  allow(...keys: string[]): this {
    for (const key of keys) this.exact.add(key);
    return this;
  }

  allowPrefix(...prefixes: string[]): this {
    this.prefixes.push(...prefixes);
    return this;
  }

  covers(key: string): boolean {
    return this.exact.has(key) || this.prefixes.some((p) => key.startsWith(p));
  }
}
