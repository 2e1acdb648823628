import { generateKeyPair, type KeyObject, randomInt } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Effects, noEffects, type ObservedEvidence } from '#core/effects/effect';
import { plantHoneytokens, type RandomText } from '#core/behaviour/honeytokens';
import { judgeBehaviour } from '#core/behaviour/judge';
import type { BudgetHit, Observation } from '#core/behaviour/observation';
import { observedEffects, type SandboxLayout, type SinkRecord } from '#core/behaviour/observed-effects';
import { type PlanFile, type PlannedStep, planSteps } from '#core/behaviour/plan';
import { tablePrograms } from '#core/effects/classify';
import { parseTrace } from '#core/behaviour/trace';
import { BUDGETS } from './budgets.ts';
import { CA_BUNDLE, OWN_ETC, type PassRecord, RUN_MOUNT, runPass, SANDBOX_UID, SINK_RESOLVER, SINK_TCP_PORT, SINK_UDP_PORT } from './run-pass.ts';

/**
 * Observing a version: its files are laid into a fake project in a fresh fake home seeded with
 * honeytokens, its steps (`core/behaviour/plan.ts`) are run in the sandbox twice, today and
 * with the clock a year ahead, and what the trace and the network sink recorded is mapped to
 * effects. Everything that executes a skill's content goes through here and `run-pass.ts`.
 */

const LAYOUT: SandboxLayout = { home: '/home/dev', project: '/home/dev/work/app', skill: '/home/dev/work/app/.claude/skills/skill' };
const CANARY_ROOT = '/skillpress-canary/';
const ORCHESTRATOR = fileURLToPath(new URL('./inside/orchestrator.py', import.meta.url));
const OPEN_FOLDER = fileURLToPath(new URL('./inside/open-folder.py', import.meta.url));
/** Where the stand-ins for absent programs lie inside the sandbox: last in PATH, so an installed program always wins. */
const ABSENT = `${RUN_MOUNT}/absent`;
const BLOCK_EXTENSIONS: Record<string, string> = { bash: 'sh', node: 'mjs', python3: 'py', ruby: 'rb' };

export interface ObserveOptions {
  /** The passes to run (both by default): today, and the clock a year ahead. */
  clocks?: ObservedEvidence['clock'][];
}

const secureRandom: RandomText = (length, alphabet) => Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join('');

/** The preloaded library that moves the clock (Debian's `faketime` package). */
function fakeTimeLibrary(): string {
  const found = readdirSync('/usr/lib', { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => `/usr/lib/${d.name}/faketime/libfaketime.so.1`)
    .find((path) => existsSync(path));
  if (!found) throw new Error('the sandbox needs libfaketime (Debian package faketime) for its pass a year ahead');
  return found;
}

const homePath = (tablePath: string) => (tablePath.startsWith('./') ? join(LAYOUT.project, tablePath.slice(2)) : join(LAYOUT.home, tablePath.slice(2)));

/** Writes a file under the run's seed (the home as the sandbox will see it), world-readable: the sandbox's user is not the runner's. */
function seed(inDir: string, sandboxPath: string, content: Uint8Array | string, mode = 0o644): void {
  const path = join(inDir, 'seed', sandboxPath.slice(LAYOUT.home.length));
  mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
  writeFileSync(path, content);
  chmodSync(path, mode);
}

/** The configuration files a real developer has: what a version writes into them is compared with this. */
const ORDINARY_FILES: Record<string, string> = {
  '~/.gitconfig': '[user]\n\tname = Dev\n\temail = dev@example.com\n',
  '~/.claude/settings.json': '{\n  "permissions": {\n    "allow": []\n  }\n}\n',
  '~/.bashrc': '# ~/.bashrc\nexport PATH="$HOME/.local/bin:$PATH"\n',
  './.git/config':
    '[core]\n\trepositoryformatversion = 0\n\tbare = false\n[remote "origin"]\n\turl = https://github.com/dev/app.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n',
  './.git/HEAD': 'ref: refs/heads/main\n',
  './README.md': '# app\n',
};

function prepare(files: readonly PlanFile[], steps: PlannedStep[], inDir: string) {
  mkdirSync(join(inDir, 'etc'), { recursive: true });
  mkdirSync(join(inDir, 'steps'), { recursive: true });
  copyFileSync(ORCHESTRATOR, join(inDir, 'orchestrator.py'));
  copyFileSync(OPEN_FOLDER, join(inDir, 'open-folder.py'));
  standIns(join(inDir, 'absent'));
  const etc: Record<string, string> = {
    passwd: `dev:x:${SANDBOX_UID}:${SANDBOX_UID}:Dev:${LAYOUT.home}:/bin/bash\n`,
    group: `dev:x:${SANDBOX_UID}:\n`,
    hosts: '127.0.0.1 localhost\n::1 localhost\n',
    'resolv.conf': `nameserver ${SINK_RESOLVER}\noptions timeout:2 attempts:1\n`,
    'nsswitch.conf': 'passwd: files\ngroup: files\nhosts: files dns\n',
    hostname: 'dev\n',
  };
  for (const name of OWN_ETC) writeFileSync(join(inDir, 'etc', name), etc[name]!);
  const bait = plantHoneytokens(secureRandom);
  const seeded = new Map<string, string>();
  for (const [path, content] of [...Object.entries(ORDINARY_FILES), ...bait.files.map((f) => [f.path, f.content] as const)]) {
    seed(inDir, homePath(path), content);
    seeded.set(homePath(path), content);
  }
  mkdirSync(join(inDir, 'seed', 'work/app/.git/hooks'), { recursive: true });
  for (const file of files) seed(inDir, join(LAYOUT.skill, file.filename), file.bytes, file.executable ? 0o755 : 0o644);
  const argv = steps.map((step, i) => {
    if ('argv' in step) return step.argv;
    if ('editor' in step) return ['python3', '-I', `${RUN_MOUNT}/open-folder.py`, LAYOUT.project, LAYOUT.skill];
    const name = `${i}.${BLOCK_EXTENSIONS[step.interpreter]}`;
    writeFileSync(join(inDir, 'steps', name), step.block);
    return [step.interpreter, `${RUN_MOUNT}/steps/${name}`];
  });
  // The sandbox's user reads the run's folder from another uid; scripts keep their executable bit.
  for (const path of [inDir, ...readdirSync(inDir, { recursive: true, encoding: 'utf8' }).map((p) => join(inDir, p))]) {
    const stat = statSync(path);
    chmodSync(path, stat.isDirectory() || stat.mode & 0o100 ? 0o755 : 0o644);
  }
  return { bait, seeded, argv };
}

const rsaKeys = promisify(generateKeyPair);
const TLS_KEY_FILE = 'tls-key.pem';

/**
 * The run's TLS authority and the key of the certificates the sink makes with it
 * (`inside/orchestrator.py`): the sandbox trusts only this authority, so what a version sends
 * over HTTPS is read as plainly as HTTP. Made afresh for each run; the authority's key is handed
 * to the sink as its modulus and private exponent, which is all an RSA signature needs.
 */
async function tlsAuthority(inDir: string) {
  const [authority, leaf] = await Promise.all([rsaKeys('rsa', { modulusLength: 2048 }), rsaKeys('rsa', { modulusLength: 2048 })]);
  writeFileSync(join(inDir, TLS_KEY_FILE), leaf.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const jwk = authority.privateKey.export({ format: 'jwk' });
  const hex = (b64url: string | undefined) => Buffer.from(b64url ?? '', 'base64url').toString('hex');
  const spki = (key: KeyObject) => key.export({ type: 'spki', format: 'der' }).toString('base64');
  return {
    caN: hex(jwk.n),
    caD: hex(jwk.d),
    caSpki: spki(authority.publicKey),
    leafSpki: spki(leaf.publicKey),
    leafKeyFile: `${RUN_MOUNT}/${TLS_KEY_FILE}`,
    caFile: CA_BUNDLE,
  };
}

/**
 * Stand-ins for the programs the classes table names that this system lacks (an AI agent's
 * CLI, a cloud's, a keychain's): each does nothing and succeeds, so a step that runs one is
 * seen running it, with its arguments, as it would be on a developer's machine.
 */
function standIns(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const installed = (name: string) => ['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin'].some((d) => existsSync(`${d}/${name}`));
  for (const name of tablePrograms().filter((p) => !installed(p))) writeFileSync(join(dir, name), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
}

function passPlan(steps: PlannedStep[], argv: string[][], env: Record<string, string>, nonce: string, tls: Awaited<ReturnType<typeof tlsAuthority>>) {
  return {
    limits: BUDGETS,
    nonce,
    tls,
    home: LAYOUT.home,
    skill: LAYOUT.skill,
    seed: `${RUN_MOUNT}/seed`,
    udpPort: SINK_UDP_PORT,
    tcpPort: SINK_TCP_PORT,
    env,
    steps: steps.map((step, i) => ({ argv: argv[i], cwd: LAYOUT.skill, ...('afterBare' in step && step.afterBare ? { afterBare: true } : {}) })),
  };
}

const BASE_ENV: Record<string, string> = {
  HOME: LAYOUT.home,
  USER: 'dev',
  LOGNAME: 'dev',
  SHELL: '/bin/bash',
  PATH: `${LAYOUT.home}/.local/bin:/usr/local/bin:/usr/bin:/bin:${ABSENT}`,
  LANG: 'C.UTF-8',
  TERM: 'dumb',
  TMPDIR: '/tmp',
  CLAUDE_PROJECT_DIR: LAYOUT.project,
  NO_UPDATE_NOTIFIER: '1',
  npm_config_update_notifier: 'false',
  PIP_DISABLE_PIP_VERSION_CHECK: '1',
  PYTHONDONTWRITEBYTECODE: '1',
  // Go builds with the toolchain it has and the modules a version names, as `go run` on a developer's machine does.
  GOTOOLCHAIN: 'local',
  GOFLAGS: '-mod=mod',
  // Node keeps its own list of authorities: the sandbox's is added to it (the system's bundle is the sandbox's alone).
  NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt',
};

function sinkRecords(records: PassRecord[]): SinkRecord[] {
  return records.flatMap((r): SinkRecord[] => {
    const bytes = typeof r.bytes === 'string' ? Buffer.from(r.bytes, 'base64') : new Uint8Array();
    if (r.type === 'dns') return [{ type: 'dns', step: r.step, name: String(r.name), qtype: Number(r.qtype) }];
    if (r.type === 'udp') return [{ type: 'udp', step: r.step, bytes }];
    if (r.type === 'tcp') return [{ ...(r as unknown as Extract<SinkRecord, { type: 'tcp' }>), bytes }];
    return [];
  });
}

/** Adds the effects of a later pass that an earlier one did not already show. */
function merge(into: Effects, more: Effects): void {
  for (const kind of Object.keys(into) as (keyof Effects)[]) {
    const list = into[kind] as Effects[typeof kind][number][];
    const known = new Set(list.map((e) => `${e.class}|${e.row ?? ''}|${e.target}`));
    for (const effect of more[kind]) if (!known.has(`${effect.class}|${effect.row ?? ''}|${effect.target}`)) list.push(effect);
  }
}

/**
 * Runs a version in the sandbox and returns what it did outside its folder, and the verdict on
 * it. A version with
 * nothing to run (no script, manifest or code block) is not run. Asynchronous throughout: the
 * sandbox is a child process, and the caller's event loop goes on.
 */
export async function observeVersion(files: readonly PlanFile[], options: ObserveOptions = {}): Promise<Observation> {
  const steps = planSteps(files, BUDGETS.steps);
  const observation: Observation = { effects: noEffects(), verdict: 'clean', evidence: [], budgetsHit: [], steps: [] };
  if (steps.length === 0) return observation;
  const runDir = mkdtempSync(join(tmpdir(), 'skillpress-sandbox-'));
  chmodSync(runDir, 0o755);
  try {
    const inDir = join(runDir, 'in');
    const { bait, seeded, argv } = prepare(files, steps, inDir);
    const tls = await tlsAuthority(inDir);
    chmodSync(join(inDir, TLS_KEY_FILE), 0o644);
    const skillText = files.map((f) => new TextDecoder().decode(f.bytes)).join('\n');
    for (const clock of options.clocks ?? (['now', 'year-ahead'] as const)) {
      const nonce = secureRandom(16, 'abcdefghijklmnopqrstuvwxyz0123456789');
      const env = { ...BASE_ENV, ...bait.env };
      if (clock === 'year-ahead') Object.assign(env, { LD_PRELOAD: fakeTimeLibrary(), FAKETIME: '+365d', FAKETIME_DONT_FAKE_MONOTONIC: '1' });
      const planFile = `plan-${clock}.json`;
      writeFileSync(join(inDir, planFile), JSON.stringify(passPlan(steps, argv, env, nonce, tls)));
      chmodSync(join(inDir, planFile), 0o644);
      const traceFile = join(runDir, `trace-${clock}.txt`);
      const result = await runPass(inDir, planFile, traceFile);
      const trace = parseTrace(existsSync(traceFile) ? readFileSync(traceFile, 'latin1').split('\n') : []);
      const stepNames = steps.map((s) => s.name);
      const written = new Map(result.records.filter((r) => r.type === 'file').map((r) => [String(r.path), Buffer.from(String(r.content), 'base64')]));
      const effects = observedEffects({
        clock,
        layout: LAYOUT,
        steps: stepNames,
        trace,
        sink: sinkRecords(result.records),
        written,
        seeded,
        tokens: bait.tokens,
        skillText,
        canaryRoot: CANARY_ROOT,
      });
      merge(observation.effects, effects);
      observation.budgetsHit.push(
        ...budgetsOf(
          result.records,
          result.budgetsHit,
          stepNames,
          clock,
          trace.events.some((e) => e.kind === 'fork' && e.error === 'EAGAIN' && (trace.processes.get(e.pid)?.step ?? -1) >= 0),
        ),
      );
      for (const r of result.records.filter((x) => x.type === 'step')) {
        observation.steps.push({
          name: stepNames[Number(r.index)]!,
          clock,
          exit: r.exit as number | null,
          timedOut: Boolean(r.timedOut),
          seconds: Number(r.seconds),
        });
      }
    }
    return { ...observation, ...judgeBehaviour(observation.effects, observation.budgetsHit) };
  } finally {
    rmSync(runDir, { recursive: true, force: true });
  }
}

function budgetsOf(records: PassRecord[], runner: string[], steps: string[], clock: ObservedEvidence['clock'], forkRefused: boolean): BudgetHit[] {
  const hits: BudgetHit[] = [];
  for (const r of records) {
    const step = steps[Number(r.index)];
    if (r.type === 'step' && r.timedOut) hits.push({ budget: 'step-time', step, clock });
    if (r.type === 'step' && r.outputCapped) hits.push({ budget: 'output', step, clock });
    if (r.type === 'step' && r.diskFull) hits.push({ budget: 'disk', step, clock });
  }
  if (records.some((r) => r.type === 'skipped')) hits.push({ budget: 'version-time', clock });
  if (forkRefused) hits.push({ budget: 'processes', clock });
  for (const why of runner) if (why === 'pass-time' || why === 'trace') hits.push({ budget: why, clock });
  return hits;
}
