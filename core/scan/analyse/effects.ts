import { describeEvidence, type Effects, type StaticEvidence, type WriteEffect } from '../../effects/effect.ts';
import { effectsOfLines } from '../../effects/static-effects.ts';
import type { FlowFile } from './flows.ts';

/**
 * The static engine's reading of effects (`core/effects/static-effects.ts`, driven by the
 * sensitive-classes table) judged as the sandbox's are (docs/scanning.md, "Behaviour"): a write to
 * the agent's configuration, developer tools, system persistence or a privilege grant is listed
 * (honest skills set up hooks, cron jobs and git hooks; the install shows the effect and asks);
 * the same write whose entry itself talks to a host or runs a download (within a few
 * lines of one command: the hook, the task, the `LocalCommand`, the unit) is refused. A foreign
 * package index is worth a warning. Only the lines the flows read are judged: code, and the
 * commands of prose, with documentation left out.
 */

type Hit = { file: string; line: number; note: string };

/** How far apart the write and what its entry runs may be: the lines of one command or here-document. */
const REACH = 3;
const PERSISTENT = new Set<WriteEffect['class']>(['agent-config', 'developer-tools', 'system-persistence', 'privilege-grant']);

/** One reading per version, shared by the rules below (the flows are the same object for each). */
const read = new WeakMap<readonly FlowFile[], Effects>();
function effectsOf(files: readonly FlowFile[]): Effects {
  const known = read.get(files);
  if (known) return known;
  const effects = effectsOfLines(files);
  read.set(files, effects);
  return effects;
}

const at = (e: { evidence: unknown }) => e.evidence as StaticEvidence;

const HEREDOC = /<<-?\s{0,4}(["']?)([A-Za-z_]\w{0,30})\1/;

/** The last line of a write's entry: the end of the here-document the writing line opens, else a few lines on. */
function entryEnd(files: readonly FlowFile[], write: StaticEvidence): number {
  const lines = files.find((f) => f.filename === write.file)?.lines ?? [];
  const i = lines.findIndex((l) => l.line === write.line);
  const opens = i < 0 ? null : HEREDOC.exec(lines[i]!.text);
  if (!opens) return write.line + REACH;
  const end = lines.slice(i + 1).find((l) => l.text.trim() === opens[2]);
  return end ? end.line : write.line + REACH;
}

/** What, near a write, makes its entry call out: a host that is not a package registry, or a download that runs. */
function callsOut(files: readonly FlowFile[], effects: Effects, write: StaticEvidence): string | undefined {
  const end = entryEnd(files, write);
  const near = (e: { evidence: unknown }) => at(e).file === write.file && at(e).line >= write.line - REACH && at(e).line <= end;
  const host = effects.network.find((n) => n.class === 'host' && near(n));
  if (host) return `talks to ${host.host} (${describeEvidence(host.evidence)})`;
  const run = effects.executes.find((e) => e.class === 'downloaded-content' && near(e));
  return run ? `runs a download (${describeEvidence(run.evidence)})` : undefined;
}

const describe = (w: WriteEffect) => `${w.target}: ${w.class}, ${w.row ?? ''} (${w.reason})`;

/** Writes to a persistent class whose entry does not call out. */
export function sensitiveWrites(files: readonly FlowFile[]): Hit[] {
  const effects = effectsOf(files);
  return effects.writes
    .filter((w) => PERSISTENT.has(w.class) && !callsOut(files, effects, at(w)))
    .map((w) => ({ file: at(w).file, line: at(w).line, note: describe(w) }));
}

/** Writes to a persistent class whose entry talks to a host or runs a download. */
export function sensitiveWritesThatCallOut(files: readonly FlowFile[]): Hit[] {
  const effects = effectsOf(files);
  return effects.writes.flatMap((w) => {
    const out = PERSISTENT.has(w.class) ? callsOut(files, effects, at(w)) : undefined;
    return out ? [{ file: at(w).file, line: at(w).line, note: `${describe(w)}, and ${out}` }] : [];
  });
}

/** Packages installed from an index or registry other than the package manager's own. */
export function foreignIndex(files: readonly FlowFile[]): Hit[] {
  return effectsOf(files)
    .executes.filter((e) => e.class === 'foreign-index')
    .map((e) => ({ file: at(e).file, line: at(e).line, note: e.target }));
}
