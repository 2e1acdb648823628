import { formatOfPath, interpreterOf, looksLikeCode, rowForKey, rowForPath, rowsForCommand, rowsForHost, scopeOf } from '../effects/classify.ts';
import type { Effects, ExecuteClass, NetworkEffect, ObservedEvidence, WriteClass } from '../effects/effect.ts';
import { EffectList } from '../effects/effect-list.ts';
import type { SensitiveRow } from '../effects/sensitive-classes.ts';
import { knownInstallerOnly } from '../scan/analyse/installers.ts';
import { changedKeys } from './config-keys.ts';
import { findHoneytokens } from './honeytoken-search.ts';
import type { Honeytoken } from './honeytokens.ts';
import type { Trace, TracedProcess, TraceEvent } from './trace.ts';

/**
 * Maps what the sandbox saw (the trace, the network sink's records, the files written) to
 * effects, through the sensitive-classes table. Pure: a pass's records in, effects out.
 */

/** Where the sandbox put things: paths inside it. */
export interface SandboxLayout {
  home: string;
  project: string;
  skill: string;
}

/** A record of the network sink, as the sandbox's first process hands it back. */
export type SinkRecord =
  | { type: 'dns'; step: number; name: string; qtype: number }
  | {
      type: 'tcp';
      step: number;
      address: string;
      port: number;
      host?: string | null;
      protocol: 'tcp' | 'http' | 'tls';
      sni?: string | null;
      http?: { method: string; host: string; path: string };
      /** What the client sent (as much as the sink kept). */
      bytes: Uint8Array;
      size: number;
      canary: string;
    }
  | { type: 'udp'; step: number; bytes: Uint8Array };

export interface PassObservation {
  clock: ObservedEvidence['clock'];
  layout: SandboxLayout;
  /** The name of each step, by index. */
  steps: string[];
  trace: Trace;
  sink: SinkRecord[];
  /** Final content of the files written outside the skill's folder, by path inside the sandbox. */
  written: Map<string, Uint8Array>;
  /** What the run planted, by path inside the sandbox: a configuration's keys are compared with it. */
  seeded: Map<string, string>;
  tokens: readonly Honeytoken[];
  /** The text of the skill's own files: code found there was not assembled at run time. */
  skillText: string;
  /** Paths that start with this were named only in the sink's answers: opening or running one ran downloaded content. */
  canaryRoot: string;
}

/** Paths the sandbox's programs touch whatever they do: the system, the run's own files, the terminal's plumbing. */
const NOISE =
  /^\/(?:usr|lib|lib64|bin|sbin|etc\/(?:ld\.so|alternatives|ssl|localtime|passwd|group|nsswitch|hosts|resolv|gai|python|mime|protocols|services|perl)|run\/skillpress|dev\/(?:null|zero|u?random|full|pts|ptmx|shm|fd|std)|proc\/(?:self|thread-self|\d+)\/(?!environ)|sys)(?:\/|$)/;
/** Scratch space: what is written there is gone with the run, and reaches nothing else. */
const SCRATCH = /^\/(?:tmp|var\/tmp|dev\/shm)(?:\/|$)/;

/** The system call an event stands for, as evidence names it. */
const CALLS: Partial<Record<TraceEvent['kind'], string>> = { exec: 'execve', open: 'openat', chdir: 'chdir' };
const PROCESS_CHARS = 160;

/** A sandbox path as the classes table writes it (`~/…`, `./…`, absolute), or null when it is the skill's own. */
function tablePath(layout: SandboxLayout, path: string): string | null {
  if (path === layout.skill || path.startsWith(`${layout.skill}/`)) return null;
  if (path === layout.project || path.startsWith(`${layout.project}/`)) return `./${path.slice(layout.project.length + 1)}`;
  if (path === layout.home || path.startsWith(`${layout.home}/`)) return `~/${path.slice(layout.home.length + 1)}`;
  return path;
}

/** A fallback write's target: its folder two levels down, so a package cache is one effect rather than thousands. */
function folderOf(path: string): string {
  const [root, ...parts] = path.split('/');
  return parts.length > 2 ? `${[root, ...parts.slice(0, 2)].join('/')}/…` : path;
}

const describe = (p: TracedProcess | undefined) => {
  const text = (p?.argv ?? []).join(' ');
  return text.length > PROCESS_CHARS ? `${text.slice(0, PROCESS_CHARS)}…` : text || undefined;
};

const isLoopback = (address: string) => address.startsWith('127.') || address === '::1';

/** Effects of one pass in the sandbox. */
export function observedEffects(pass: PassObservation): Effects {
  const out = new EffectList('observed');
  const { trace } = pass;
  const processOf = (pid: number) => trace.processes.get(pid);
  const stepName = (step: number) => pass.steps[step] ?? 'the sandbox';
  const evidence = (pid: number, event: string): ObservedEvidence => {
    const p = processOf(pid);
    const process = describe(p);
    return { step: stepName(p?.step ?? -1), event, clock: pass.clock, ...(process ? { process } : {}) };
  };
  const skillEvents = trace.events.filter((e) => (processOf(e.pid)?.step ?? -1) >= 0);

  /** Processes that connected off the machine, and files each process wrote: where run content came from. */
  const connected = new Set(
    skillEvents.filter((e) => e.kind === 'connect' && e.ok && e.family.startsWith('AF_INET') && !isLoopback(e.address)).map((e) => e.pid),
  );
  const writerOf = new Map<string, number>();
  for (const e of skillEvents) if ((e.kind === 'open' && e.write && e.ok) || (e.kind === 'rename' && e.ok)) writerOf.set(e.path, e.pid);
  const decoderPids = new Set<number>();

  for (const e of skillEvents) {
    fileEffects(e, out, pass, evidence);
    if (e.kind === 'exec') {
      const rows = rowsForCommand(e.argv);
      for (const row of rows) {
        if (row.class === 'decoded-content') {
          decoderPids.add(e.pid);
          continue;
        }
        out.fromRow(row, e.argv.join(' ').slice(0, PROCESS_CHARS), evidence(e.pid, `execve ${e.argv.join(' ')}${e.ok ? '' : ` (${e.error ?? 'failed'})`}`));
      }
    }
  }
  runContent(pass, skillEvents, out, { connected, writerOf, decoderPids, evidence });
  foreignIndexes(pass, skillEvents, out, evidence);
  networkEffects(pass, out);
  tokensOutsideTheNetwork(pass, skillEvents, out, evidence);
  return out.effects;
}

type Evidencer = (pid: number, event: string) => ObservedEvidence;

function fileEffects(e: TraceEvent, out: EffectList, pass: PassObservation, evidence: Evidencer): void {
  if (e.kind !== 'open' && e.kind !== 'rename' && e.kind !== 'unlink' && e.kind !== 'chmod' && e.kind !== 'link') return;
  if (NOISE.test(e.path) || (e.kind === 'open' && !e.write && SCRATCH.test(e.path))) {
    return;
  }
  // Git and others write `x.lock`, then rename it over `x`: the write is to `x`.
  const target = e.path.replace(/\.lock$/, '');
  const path = tablePath(pass.layout, target);
  if (path === null) return;
  const outcome = e.ok ? '' : ` (refused: ${e.error ?? 'failed'})`;
  if (e.kind === 'open' && !e.write) {
    const row = rowForPath('reads', path) ?? rowForPath('asks', path);
    if (row) out.fromRow(row, path, evidence(e.pid, `openat ${path} (read)${outcome}`));
    return;
  }
  if (SCRATCH.test(e.path) || e.path.startsWith('/dev/')) return;
  const what = e.kind === 'open' ? 'openat' : e.kind;
  const event = `${what} ${path}${e.kind === 'rename' ? ` (from ${tablePath(pass.layout, e.from) ?? e.from})` : ' (write)'}${outcome}`;
  const row = rowForPath('writes', path);
  if (!row) {
    const fallback: WriteClass = path.startsWith('./') ? 'project' : 'elsewhere';
    const reason = fallback === 'project' ? 'changes the project outside the skill’s own folder' : 'writes outside the project and the skill’s folder';
    out.add('writes', { class: fallback, reason, target: folderOf(path), evidence: evidence(e.pid, event), source: 'observed' });
    return;
  }
  const keys = keyRows(path, target, pass);
  if (keys.length === 0 && keysDecide(row, path, target, pass)) {
    out.add('writes', {
      class: 'elsewhere',
      reason: 'writes outside the project and the skill’s folder',
      target: path,
      evidence: evidence(e.pid, event),
      source: 'observed',
    });
    return;
  }
  if (keys.length === 0) out.fromRow(row, path, evidence(e.pid, event), scopeOf(path));
  for (const { key, row: keyRow } of keys) out.fromRow(keyRow, `${path}: ${key}`, evidence(e.pid, `${event}, key ${key}`), scopeOf(path));
}

/** Whether a write to a file whose entries decide (`keysDecide`) left it with content that was read: then the keys it changed are the whole story. */
function keysDecide(row: SensitiveRow, path: string, sandboxPath: string, pass: PassObservation): boolean {
  return 'path' in row.match && row.match.keysDecide === true && formatOfPath(path) !== undefined && pass.written.has(sandboxPath);
}

/** The keys a write changed in a configuration file, each with the row it falls under. */
function keyRows(path: string, sandboxPath: string, pass: PassObservation): Array<{ key: string; row: SensitiveRow }> {
  const format = formatOfPath(path);
  const after = pass.written.get(sandboxPath);
  if (!format || !after) return [];
  return changedKeys(format, pass.seeded.get(sandboxPath) ?? '', new TextDecoder().decode(after)).flatMap((key) => {
    const row = rowForKey(format, key);
    return row ? [{ key, row }] : [];
  });
}

/** Content the run made (downloaded, decoded) that was then run, and what a package install ran. */
function runContent(
  pass: PassObservation,
  events: TraceEvent[],
  out: EffectList,
  seen: { connected: Set<number>; writerOf: Map<string, number>; decoderPids: Set<number>; evidence: Evidencer },
): void {
  const { evidence } = seen;
  const stepOf = (pid: number) => pass.trace.processes.get(pid)?.step ?? -1;
  const decoderSteps = new Set([...seen.decoderPids].map(stepOf));
  const canaries = new Map(pass.sink.flatMap((r) => (r.type === 'tcp' ? [[r.canary, r] as const] : [])));
  const add = (cls: ExecuteClass, reason: string, target: string, pid: number, event: string) =>
    out.add('executes', { class: cls, reason, target, evidence: evidence(pid, event), source: 'observed' });
  for (const e of events) {
    const path = 'path' in e ? e.path : '';
    if (path.startsWith(pass.canaryRoot)) {
      const nonce = path.slice(pass.canaryRoot.length).split('/')[0]!;
      const served = canaries.get(nonce);
      const from = served ? (served.http ? `${served.http.host}${served.http.path}` : `${served.host ?? served.address}:${served.port}`) : 'a download';
      // A tool's installer from its vendor's own host and path is that tool installed, as the static reading holds.
      const vendor = served?.http !== undefined && knownInstallerOnly(`https://${from}`);
      add(
        vendor ? 'package-install' : 'downloaded-content',
        vendor
          ? 'runs a tool’s installer from its vendor’s own host and path, as the tool documents'
          : 'runs what it downloaded: code that was never in the skill',
        from,
        e.pid,
        `${CALLS[e.kind] ?? e.kind} of the canary in the answer from ${from}`,
      );
      continue;
    }
    if (e.kind !== 'exec' || !e.ok) continue;
    const interpreter = interpreterOf(e.argv[0] ?? e.path);
    const writer = seen.writerOf.get(e.path);
    const scriptArg = interpreter ? e.argv.slice(1).find((a) => !a.startsWith('-')) : undefined;
    const scriptWriter = scriptArg ? seen.writerOf.get(scriptArg.startsWith('/') ? scriptArg : '') : undefined;
    const madeBy = writer ?? scriptWriter;
    if (madeBy !== undefined && seen.connected.has(madeBy)) {
      add(
        'downloaded-content',
        'runs what it downloaded: code that was never in the skill',
        e.argv.join(' '),
        e.pid,
        `execve ${e.argv.join(' ')} of a file written by a process that had connected out`,
      );
      continue;
    }
    if (madeBy !== undefined && seen.decoderPids.has(madeBy)) {
      add(
        'decoded-content',
        'runs what a decoder produced: code nobody could read in the skill',
        e.argv.join(' '),
        e.pid,
        `execve ${e.argv.join(' ')} of a file a decoder wrote`,
      );
      continue;
    }
    if (!interpreter) continue;
    const inlineAt = e.argv.findIndex((a) => interpreter.inline.includes(a.toLowerCase()));
    const code = inlineAt > 0 ? (e.argv[inlineAt + 1] ?? '') : undefined;
    const fromStdin = code === undefined && scriptArg === undefined;
    const assembled = code !== undefined && code.trim().length > 0 && !pass.skillText.includes(code.trim());
    if ((fromStdin || assembled) && decoderSteps.has(stepOf(e.pid))) {
      const how = fromStdin ? 'reads its program from a pipe' : 'runs code given inline that is not in the skill';
      add(
        'decoded-content',
        'runs what a decoder produced: code nobody could read in the skill',
        e.argv.join(' ').slice(0, PROCESS_CHARS),
        e.pid,
        `execve ${e.argv[0]}, which ${how}, after a decoder ran in the same step`,
      );
      continue;
    }
    if (scriptArg && !looksLikeCode(scriptArg) && inlineAt < 0) {
      add('interpreter-on-data', 'runs a file that is not code as a program: data hiding a script', scriptArg, e.pid, `execve ${e.argv.join(' ')}`);
    }
    const installer = ancestors(pass.trace, e.pid).find((p) => rowsForCommand(p.argv).some((r) => r.class === 'package-install'));
    if (installer && code !== undefined) {
      add(
        'lifecycle-script',
        'a package’s install script ran with the user’s rights',
        code.slice(0, PROCESS_CHARS),
        e.pid,
        `execve ${e.argv.join(' ')} under ${installer.argv.slice(0, 3).join(' ')}`,
      );
    }
  }
}

/**
 * A package install that fetched from a host other than its ecosystem's registry (an index, a
 * mirror or a URL its manifest named): whoever runs that host chooses what is installed. Seen
 * where a process under an install connects to an address the sink gave a name that no
 * registry row of the table knows.
 */
function foreignIndexes(pass: PassObservation, events: TraceEvent[], out: EffectList, evidence: Evidencer): void {
  const hostOf = new Map(pass.sink.flatMap((r) => (r.type === 'tcp' ? [[r.address, r.host ?? r.sni ?? r.http?.host ?? r.address] as const] : [])));
  for (const e of events) {
    if (e.kind !== 'connect' || !e.ok || !e.family.startsWith('AF_INET')) continue;
    const host = hostOf.get(e.address);
    if (!host || rowsForHost(host).some((row) => row.effect === 'network')) continue;
    const process = pass.trace.processes.get(e.pid);
    const installer = [...(process ? [process] : []), ...ancestors(pass.trace, e.pid)].find((p) =>
      rowsForCommand(p.argv).some((r) => r.class === 'package-install'),
    );
    if (!installer) continue;
    out.add('executes', {
      class: 'foreign-index',
      reason: 'installs packages from a host that is not its ecosystem’s registry: whoever runs that host chooses what is installed',
      target: host,
      evidence: evidence(e.pid, `connect to ${host} (${e.address}:${e.port}) under ${installer.argv.slice(0, 4).join(' ')}`),
      source: 'observed',
    });
  }
}

function ancestors(trace: Trace, pid: number): TracedProcess[] {
  const out: TracedProcess[] = [];
  let p = trace.processes.get(trace.processes.get(pid)?.parent ?? -1);
  while (p && out.length < 64) {
    out.push(p);
    p = trace.processes.get(p.parent ?? -1);
  }
  return out;
}

function networkEffects(pass: PassObservation, out: EffectList): void {
  const connectedHosts = new Set<string>();
  for (const r of pass.sink) {
    if (r.type !== 'tcp') continue;
    const host = r.host ?? r.sni ?? (r.http?.host || r.address);
    connectedHosts.add(host);
    const detail = r.http
      ? `${r.protocol === 'tls' ? 'HTTPS' : 'HTTP'} ${r.http.method} ${r.http.host}${r.http.path}`
      : r.protocol === 'tls'
        ? `TLS to ${r.sni ?? host}`
        : `TCP to ${host}`;
    const evidence: ObservedEvidence = {
      step: pass.steps[r.step] ?? 'the sandbox',
      event: `${detail} (${r.address}:${r.port}), ${r.size} bytes sent`,
      clock: pass.clock,
    };
    addNetwork(out, { host, address: r.address, port: r.port, protocol: r.protocol, bytes: r.bytes, size: r.size, evidence }, pass.tokens);
  }
  for (const r of pass.sink) {
    if (r.type === 'dns') {
      const evidence: ObservedEvidence = { step: pass.steps[r.step] ?? 'the sandbox', event: `DNS query for ${r.name}`, clock: pass.clock };
      const name = Buffer.from(`${r.name}\n${r.name.replace(/\./g, '')}`);
      const tokens = findHoneytokens(name, pass.tokens);
      // A name looked up and never connected to still told a resolver something; one connected to is said above.
      if (!connectedHosts.has(r.name) || tokens.length)
        addNetwork(out, { host: r.name, protocol: 'dns', bytes: name, size: r.name.length, evidence }, pass.tokens);
    } else if (r.type === 'udp') {
      const evidence: ObservedEvidence = { step: pass.steps[r.step] ?? 'the sandbox', event: `UDP datagram, ${r.bytes.length} bytes`, clock: pass.clock };
      addNetwork(out, { host: 'a UDP destination', protocol: 'udp', bytes: r.bytes, size: r.bytes.length, evidence }, pass.tokens);
    }
  }
}

/** Request headers that present a credential to the service a request is for. */
const CREDENTIAL_HEADERS = /^(?:authorization|proxy-authorization|x-api-key|api-key|private-token|x-auth-token|cookie)[ \t]*:.*$/gim;

/**
 * The honeytokens in bytes sent to `host`, but for a secret presented to its own service: to a
 * host of the token's audience, what its credential headers carry is the secret used (a
 * token in the body, the address or any other header there, or anywhere to any other host, is
 * sent away).
 */
function sentAway(bytes: Uint8Array, host: string, tokens: readonly Honeytoken[]) {
  const forHost = (t: Honeytoken) => (t.audience ?? []).some((a) => host === a || host.endsWith(`.${a}`));
  const own = tokens.filter(forHost);
  const hits = findHoneytokens(bytes, own.length ? tokens.filter((t) => !forHost(t)) : tokens);
  if (own.length) hits.push(...findHoneytokens(Buffer.from(bytes).toString('latin1').replace(CREDENTIAL_HEADERS, ''), own));
  return hits;
}

function addNetwork(
  out: EffectList,
  r: { host: string; address?: string; port?: number; protocol: NetworkEffect['protocol']; bytes: Uint8Array; size: number; evidence: ObservedEvidence },
  tokens: readonly Honeytoken[],
): void {
  const honeytokens = sentAway(r.bytes, r.host, tokens);
  const rows = rowsForHost(r.host);
  const registry = rows.find((row) => row.effect === 'network');
  const target = `${r.host}${r.port ? `:${r.port}` : ''}`;
  out.add('network', {
    class: registry ? 'package-registry' : 'host',
    ...(registry ? { row: registry.id } : {}),
    reason: registry?.reason ?? 'talks to a host on the network',
    target: honeytokens.length ? `${target} (${honeytokens.map((h) => h.token).join(', ')})` : target,
    host: r.host,
    ...(r.address ? { address: r.address } : {}),
    ...(r.port ? { port: r.port } : {}),
    protocol: r.protocol,
    sent: { bytes: r.size, honeytokens },
    evidence: r.evidence,
    source: 'observed',
  });
  for (const row of rows.filter((x) => x.effect === 'reads')) out.fromRow(row, r.host, r.evidence);
  for (const hit of honeytokens) {
    if (hit.token.startsWith('env:'))
      out.add('reads', {
        class: 'secret-env',
        reason: 'holds a secret in the environment, as CI and developers keep tokens',
        target: hit.token.slice(4),
        evidence: r.evidence,
        source: 'observed',
      });
  }
}

/** Secrets of the environment that show up in a command line or a written file: read, though not necessarily sent. */
function tokensOutsideTheNetwork(pass: PassObservation, events: TraceEvent[], out: EffectList, evidence: Evidencer): void {
  const envTokens = pass.tokens.filter((t) => t.name.startsWith('env:'));
  for (const e of events) {
    if (e.kind !== 'exec') continue;
    for (const hit of findHoneytokens(e.argv.join(' '), envTokens)) {
      out.add('reads', {
        class: 'secret-env',
        reason: 'holds a secret in the environment, as CI and developers keep tokens',
        target: hit.token.slice(4),
        evidence: evidence(e.pid, `execve ${e.argv[0]} with the variable’s value in its arguments`),
        source: 'observed',
      });
    }
  }
}
