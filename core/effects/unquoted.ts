import type { Effects } from './effect.ts';

/**
 * A paid skill's effects as its findings are: what kind, which class and where, never the text
 * itself (a target is the command or path as written, or as run): each target names its row of
 * the sensitive-classes table, else its class. What a paid skill's registry document, its check
 * and its behaviour show, so its content reaches no one who has not bought it.
 */
export function unquotedEffects(effects: Effects): Effects {
  const named = <E extends { target: string; row?: string; class: string }>(effect: E): E => ({ ...effect, target: effect.row ?? effect.class });
  return {
    reads: effects.reads.map(named),
    writes: effects.writes.map(named),
    network: effects.network.map(named),
    executes: effects.executes.map(named),
    asks: effects.asks.map(named),
  };
}
