import {
  type AskClass,
  describeEvidence,
  type Effects,
  type ExecuteClass,
  type NetworkEffect,
  type ReadClass,
  type WriteClass,
  type WriteEffect,
} from './effect.ts';

/**
 * Effects as people read them: one sentence each, the same on the skill page ("When run, this
 * skill…") and in `skillpress install` and `update`; and the identity of an effect across
 * versions, so that an update shows only what it adds.
 */

/** One effect with its kind, as {@link listedEffects} gives them. */
export type ListedEffect =
  | { kind: 'reads'; effect: Effects['reads'][number] }
  | { kind: 'writes'; effect: WriteEffect }
  | { kind: 'network'; effect: NetworkEffect }
  | { kind: 'executes'; effect: Effects['executes'][number] }
  | { kind: 'asks'; effect: Effects['asks'][number] };

const READS: Record<ReadClass, string> = {
  'cloud-credentials': 'cloud credentials',
  'cluster-credentials': 'cluster credentials',
  'ssh-keys': 'SSH keys',
  'gpg-keys': 'GPG keys',
  'package-tokens': 'package registry tokens',
  'git-tokens': 'git tokens',
  'agent-credentials': "agent's credentials",
  'browser-data': 'browser data',
  wallets: 'crypto wallets',
  keychains: 'keychains',
  dotenv: '.env files',
  'secret-env': 'secret environment variables',
};

const WRITES: Record<WriteClass, string> = {
  project: 'files in your project',
  'agent-config': "your agent's configuration",
  'developer-tools': "your developer tools' configuration",
  'system-persistence': 'what your system starts on its own (persistence)',
  'privilege-grant': 'cloud or cluster privilege grants',
  elsewhere: 'files outside your project',
};

const EXECUTES: Record<ExecuteClass, string> = {
  'downloaded-content': 'downloaded content',
  'decoded-content': 'decoded content',
  'package-install': 'a package install',
  'lifecycle-script': "a package's install scripts",
  'foreign-index': 'packages from a foreign index',
  'interpreter-on-data': 'an interpreter on a file that is not code',
};

const ASKS: Record<AskClass, string> = { 'secret-prompt': 'asks you for a secret' };

/** Every effect of a version with its kind, in the order reads, writes, network, executes, asks. */
export function listedEffects(effects: Effects): ListedEffect[] {
  return [
    ...effects.reads.map((effect) => ({ kind: 'reads' as const, effect })),
    ...effects.writes.map((effect) => ({ kind: 'writes' as const, effect })),
    ...effects.network.map((effect) => ({ kind: 'network' as const, effect })),
    ...effects.executes.map((effect) => ({ kind: 'executes' as const, effect })),
    ...effects.asks.map((effect) => ({ kind: 'asks' as const, effect })),
  ];
}

/** What sending to a host carried: its size and the planted secrets found in it. */
function sentWords(sent: NetworkEffect['sent']): string {
  if (!sent) return '';
  const secrets = sent.honeytokens.map((hit) => `the planted ${hit.token}${hit.encoding.length > 0 ? ` (${hit.encoding.join(', ')})` : ''}`);
  return `, sending ${sent.bytes} bytes${secrets.length > 0 ? ` with ${secrets.join(' and ')}` : ''}`;
}

/** One effect in plain words, what it touched included: `reads your cloud credentials: ~/.aws/credentials`. */
export function effectSentence({ kind, effect }: ListedEffect): string {
  switch (kind) {
    case 'reads':
      return `reads your ${READS[effect.class]}: ${effect.target}`;
    case 'writes':
      return `writes ${WRITES[effect.class]}${effect.scope ? ` (${effect.scope})` : ''}: ${effect.target}`;
    case 'network': {
      const where = `${effect.host}${effect.port === undefined ? '' : `:${effect.port}`}`;
      return `connects to ${where}${effect.class === 'package-registry' ? ' (a package registry)' : ''}${sentWords(effect.sent)}`;
    }
    case 'executes':
      return `runs ${EXECUTES[effect.class]}: ${effect.target}`;
    case 'asks':
      return `${ASKS[effect.class]}: ${effect.target}`;
  }
}

/**
 * What makes two effects the same across versions: the kind, the class and what was touched (the
 * host, for the network), whatever the evidence and whether it was read or observed. A user who
 * accepted `connects to api.example.com` is not asked again because a line moved.
 */
export function effectKey({ kind, effect }: ListedEffect): string {
  return JSON.stringify([kind, effect.class, kind === 'network' ? effect.host : effect.target]);
}

/** The keys of every effect of a version, sorted and without repeats (what a lockfile records as accepted). */
export function effectKeys(effects: Effects): string[] {
  return [...new Set(listedEffects(effects).map(effectKey))].sort();
}

/** The effects of `effects` that `known` (keys from {@link effectKeys}) lacks: what an update adds. */
export function newEffects(effects: Effects, known: readonly string[]): ListedEffect[] {
  const seen = new Set(known);
  return listedEffects(effects).filter((listed) => !seen.has(effectKey(listed)));
}

/** One effect as people are shown it: its sentence, and every piece of evidence for it, read in the text or observed. */
export interface ShownEffect {
  kind: ListedEffect['kind'];
  class: string;
  target: string;
  sentence: string;
  evidence: { source: 'static' | 'observed'; at: string }[];
}

/** Effects that are the same effect (by {@link effectKey}) as one, with all their evidence, in the order given. */
export function shownEffects(listed: readonly ListedEffect[]): ShownEffect[] {
  const byKey = new Map<string, ShownEffect>();
  for (const item of listed) {
    const key = effectKey(item);
    const shown = byKey.get(key) ?? { kind: item.kind, class: item.effect.class, target: item.effect.target, sentence: effectSentence(item), evidence: [] };
    shown.evidence.push({ source: item.effect.source, at: describeEvidence(item.effect.evidence) });
    byKey.set(key, shown);
  }
  return [...byKey.values()];
}

/** Where an effect was found, as one line: `in the text: SKILL.md:4` or `observed: <step>: <event>`. */
export const evidenceLine = (evidence: ShownEffect['evidence'][number]): string =>
  `${evidence.source === 'observed' ? 'observed' : 'in the text'}: ${evidence.at}`;
