/**
 * Effects: what following or running a version does outside its own folder, one model for what
 * the static engine reads in the text and what the sandbox sees it do (docs/scanning.md,
 * "Behaviour"). Each effect names its class (a class of the sensitive-classes table), the row of
 * that table it matched (so a reader can look the reason up), what it touched, and its evidence.
 */

/** Secret stores a version may read, by class. */
export const READ_CLASSES = [
  'cloud-credentials',
  'cluster-credentials',
  'ssh-keys',
  'gpg-keys',
  'package-tokens',
  'git-tokens',
  'agent-credentials',
  'browser-data',
  'wallets',
  'keychains',
  'dotenv',
  'secret-env',
] as const;

/**
 * Where a version may write, by class: its project (outside its own folder), the agent's own
 * configuration, developer tools' configuration, system persistence, cloud and cluster
 * privilege grants, and anywhere else outside the project and the temporary folder.
 */
export const WRITE_CLASSES = ['project', 'agent-config', 'developer-tools', 'system-persistence', 'privilege-grant', 'elsewhere'] as const;

/** What a version may run beyond its own files. */
export const EXECUTE_CLASSES = [
  'downloaded-content',
  'decoded-content',
  'package-install',
  'lifecycle-script',
  'foreign-index',
  'interpreter-on-data',
] as const;

/** Whom a version may talk to: a package manager's own registry, or anyone else. */
export const NETWORK_CLASSES = ['package-registry', 'host'] as const;

/** What a version may ask the user for. */
export const ASK_CLASSES = ['secret-prompt'] as const;

export type ReadClass = (typeof READ_CLASSES)[number];
export type WriteClass = (typeof WRITE_CLASSES)[number];
export type ExecuteClass = (typeof EXECUTE_CLASSES)[number];
export type NetworkClass = (typeof NETWORK_CLASSES)[number];
export type AskClass = (typeof ASK_CLASSES)[number];

/** The five kinds of effect, as the fields of `Effects` name them. */
export const EFFECT_KINDS = ['reads', 'writes', 'network', 'executes', 'asks'] as const;
export type EffectKind = (typeof EFFECT_KINDS)[number];

/** Where the static engine read an effect in the text. */
export interface StaticEvidence {
  file: string;
  /** 1-based. */
  line: number;
}

/** What the sandbox saw happen. */
export interface ObservedEvidence {
  /** The step of the run: `SKILL.md:12 (bash)`, `scripts/sync.py --help`, `npm install`. */
  step: string;
  /** The event as the trace or the network sink recorded it, e.g. `openat ~/.aws/credentials (read)`. */
  event: string;
  /** The program that did it, with its arguments (shortened). */
  process?: string;
  /** The run's clock: today, or a year ahead (the pass that finds time bombs). */
  clock: 'now' | 'year-ahead';
}

export type Evidence = StaticEvidence | ObservedEvidence;

export type EffectSource = 'static' | 'observed';

interface EffectBase<Class extends string> {
  class: Class;
  /** The id of the sensitive-classes row it matched; absent for the fallback classes (`project`, `elsewhere`, `host`). */
  row?: string;
  /** Why this class matters: the row's reason, or the fallback's. */
  reason: string;
  /** What was touched: a path (`~/.aws/credentials`, `./.env`), a config key, a command or a host. */
  target: string;
  evidence: Evidence;
  source: EffectSource;
}

export type ReadEffect = EffectBase<ReadClass>;

export interface WriteEffect extends EffectBase<WriteClass> {
  /** Whether the configuration written is the user's own (`global`) or the project's. */
  scope?: 'global' | 'project';
}

export interface NetworkEffect extends EffectBase<NetworkClass> {
  /** The name asked for, or the address when no name was. */
  host: string;
  address?: string;
  port?: number;
  protocol: 'dns' | 'tcp' | 'udp' | 'http' | 'tls';
  /** What was sent: its size, and the honeytokens found in it (by name, with the encoding they were found in). */
  sent?: { bytes: number; honeytokens: HoneytokenHit[] };
}

export type ExecuteEffect = EffectBase<ExecuteClass>;
export type AskEffect = EffectBase<AskClass>;

/** A planted secret found where it should never be: which one, and how it was encoded. */
export interface HoneytokenHit {
  /** The bait's name, e.g. `aws-secret-access-key`. */
  token: string;
  /** The read class of the store it was planted in. */
  class: ReadClass;
  /** The layers it was found under, outermost first (empty when sent as it is). */
  encoding: string[];
}

/** What a version does outside its folder. */
export interface Effects {
  reads: ReadEffect[];
  writes: WriteEffect[];
  network: NetworkEffect[];
  executes: ExecuteEffect[];
  asks: AskEffect[];
}

export function noEffects(): Effects {
  return { reads: [], writes: [], network: [], executes: [], asks: [] };
}

/** Whether a piece of evidence was observed in the sandbox rather than read in the text. */
export function isObserved(evidence: Evidence): evidence is ObservedEvidence {
  return 'event' in evidence;
}

/** One line that says where an effect was found: `scripts/a.sh:3`, or `step: event`. */
export function describeEvidence(evidence: Evidence): string {
  if (!isObserved(evidence)) return `${evidence.file}:${evidence.line}`;
  const clock = evidence.clock === 'year-ahead' ? ' (clock a year ahead)' : '';
  return `${evidence.step}${clock}: ${evidence.event}${evidence.process ? ` by ${evidence.process}` : ''}`;
}
