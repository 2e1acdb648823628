import { BoundedCache } from '#core/bounded-cache';
import { visibilityOf } from '#core/policy';
import type { SkillItem } from '../store/skills.ts';

/** One version's delivery, as the cache keeps it. */
export interface Delivery {
  skillId: string;
  slug: string;
  version: string;
  /** The response body `{files, skillId, slug, version}`, serialised and encoded once per version. */
  body: Uint8Array<ArrayBuffer>;
  /** What the body takes inside Lambda's response (core/limits.ts `jsonStringBytes`), counted once per version. */
  inlineBytes: number;
  /**
   * Set while the version is being observed: such a payload is not kept, since its run may yet
   * refuse it (core/version-behaviour.ts), and a refused version is never delivered.
   */
  pending?: true;
}

/**
 * What delivery keeps between requests, one per process. A version's payload never changes
 * (versions are immutable), so it is bounded by size and never invalidated. A skill's META is
 * fresh for `skillTtlMs`: of what delivery reads from it only `currentVersion` ever changes, and
 * a write in this process forgets it at once (so the local runtime always delivers the new
 * version). Once past that, the held copy still answers while it is read again behind the answer
 * (stale-while-revalidate), up to twice the TTL; older, it is read before answering. So another
 * process's publish (a deliver Lambda's case) shows within about twice the TTL, well inside the
 * CDN's 5-minute registry TTL, and a skill read once never makes a delivery wait again while it
 * stays in demand: skills first read together no longer all expire, and wait, together.
 * Unknown skills are not remembered, and neither are private ones: a stranger asking for a
 * private skill waits for the same read as one asking for a skill that does not exist.
 */
export class DeliveryCache {
  private readonly skills = new Map<string, { skill: SkillItem; until: number }>();
  /** Skills being read again behind a stale answer: one read each at a time. */
  private readonly refreshing = new Set<string>();
  /** Bumped by every forget, so a read that started before a write is not kept after it. */
  private generation = 0;
  readonly payloads: BoundedCache<string, Delivery>;

  constructor(
    readonly skillTtlMs: number,
    /** Serialised version payloads (bytes); the blobs behind them are cached separately. */
    payloadBytes = 32 * 1024 * 1024,
    private readonly maxSkills = 50_000,
    /** Milliseconds on a monotonic clock; tests pass their own to step time without sleeping. */
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.payloads = new BoundedCache(payloadBytes, (d) => d.body.byteLength);
  }

  async skill(id: string, read: () => Promise<SkillItem | undefined>): Promise<SkillItem | undefined> {
    const now = this.clock();
    const held = this.skills.get(id);
    if (held && held.until > now) return held.skill;
    if (held && held.until + this.skillTtlMs > now) {
      if (!this.refreshing.has(id)) {
        this.refreshing.add(id);
        // A failed read leaves the stale copy until it is too old; then a read fails the request.
        this.load(id, read, now).then(
          () => this.refreshing.delete(id),
          () => this.refreshing.delete(id),
        );
      }
      return held.skill;
    }
    return this.load(id, read, now);
  }

  private async load(id: string, read: () => Promise<SkillItem | undefined>, now: number): Promise<SkillItem | undefined> {
    const generation = this.generation;
    const skill = await read();
    if (skill && visibilityOf(skill) === 'public' && generation === this.generation) {
      this.skills.delete(id);
      this.skills.set(id, { skill, until: now + this.skillTtlMs });
      if (this.skills.size > this.maxSkills) this.skills.delete(this.skills.keys().next().value!);
    }
    return skill;
  }

  /** Called with the skills a committed write changed. */
  forget(ids: string[]): void {
    this.generation += 1;
    for (const id of ids) this.skills.delete(id);
  }
}
