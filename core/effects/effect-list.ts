import { type AskClass, type EffectSource, type Effects, type Evidence, type ExecuteClass, noEffects, type ReadClass, type WriteClass } from './effect.ts';
import type { SensitiveRow } from './sensitive-classes.ts';

/** At most this many effects of one kind are kept: past it the list has made its point. */
const MAX_PER_KIND = 100;

/**
 * Effects as they are found, one of each (kind, class, row, target): the first evidence is kept.
 * Shared by the static reading (`static-effects.ts`) and the sandbox's (`core/behaviour`).
 */
export class EffectList {
  readonly effects: Effects = noEffects();
  private readonly seen = new Set<string>();

  constructor(private readonly source: EffectSource) {}

  add<K extends keyof Effects>(kind: K, effect: Effects[K][number]): void {
    const key = `${kind}|${effect.class}|${effect.row ?? ''}|${effect.target}`;
    const list = this.effects[kind] as Effects[K][number][];
    if (this.seen.has(key) || list.length >= MAX_PER_KIND) return;
    this.seen.add(key);
    list.push(effect);
  }

  /** The effect a row of the sensitive-classes table describes (a `host` row of kind `network` is the caller's to add). */
  fromRow(row: SensitiveRow, target: string, evidence: Evidence, scope?: 'global' | 'project'): void {
    const base = { row: row.id, reason: row.reason, target, evidence, source: this.source };
    if (row.effect === 'reads') this.add('reads', { ...base, class: row.class as ReadClass });
    else if (row.effect === 'writes') this.add('writes', { ...base, class: row.class as WriteClass, ...(scope ? { scope } : {}) });
    else if (row.effect === 'executes') this.add('executes', { ...base, class: row.class as ExecuteClass });
    else if (row.effect === 'asks') this.add('asks', { ...base, class: row.class as AskClass });
  }
}
