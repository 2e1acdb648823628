import { spawn } from 'node:child_process';
import { existsSync, readlinkSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { BUDGETS } from './budgets.ts';

/**
 * One pass of a version in the sandbox: the only place in the project that starts what a skill
 * wrote (STYLE 22). strace, outside the sandbox, traces bubblewrap and everything it starts, into
 * a file the sandbox cannot see; bubblewrap gives the run new user, PID, network, IPC, UTS and
 * mount namespaces, a read-only system, no host home and size-capped tmpfs for the fake home,
 * /tmp and /dev/shm; the sandbox's first process (`inside/orchestrator.py`) runs the steps and
 * is the network sink. Before anything of the sandbox runs (bubblewrap waits on `--block-fd`),
 * the runner routes every address of the sandbox's own network namespace to its loopback and
 * redirects all TCP and UDP there to the sink, so no byte leaves the namespace and every
 * destination answers.
 *
 * Everything here is asynchronous: the caller's event loop never waits on the sandbox.
 */

/** Where the run's folder (`in/`) appears inside the sandbox. */
export const RUN_MOUNT = '/run/skillpress';
/** The ports the sink listens on inside; every TCP connection and UDP datagram is redirected to them. */
export const SINK_TCP_PORT = 10080;
export const SINK_UDP_PORT = 10053;
/** The resolver the sandbox's programs ask (an address of the sink's own range). */
export const SINK_RESOLVER = '198.18.0.53';

const TRACED = [
  'execve',
  'execveat',
  'open',
  'openat',
  'openat2',
  'creat',
  'truncate',
  'rename',
  'renameat',
  'renameat2',
  'unlink',
  'unlinkat',
  'chmod',
  'fchmodat',
  'symlink',
  'symlinkat',
  'link',
  'linkat',
  'chdir',
  'fchdir',
  'connect',
  'sendto',
  'sendmsg',
  'sendmmsg',
  'kill',
  'tkill',
  'tgkill',
  'ptrace',
  'clone',
  'clone3',
  'fork',
  'vfork',
];

/** Host files the sandbox's programs need from /etc (read-only); the rest of /etc stays out (it may hold the host's secrets). */
const HOST_ETC = [
  'alternatives',
  'ssl/openssl.cnf',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'localtime',
  'mime.types',
  'protocols',
  'services',
  'gai.conf',
  'python3',
  'python3.11',
  'python3.12',
  'perl',
];
/**
 * Where the sink writes the run's TLS authority (`inside/orchestrator.py`), and the system's CA
 * bundle points: the host's authorities are of no use where no address is real, and the
 * sandbox's programs then trust the sink's certificates for every name.
 */
export const CA_BUNDLE = '/tmp/.skillpress-tls/authority.pem';
const SYSTEM_CA_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt'];

/** Files of /etc the run writes itself (users, name resolution). */
export const OWN_ETC = ['passwd', 'group', 'hosts', 'resolv.conf', 'nsswitch.conf', 'hostname'];

/** How long the runner lets strace and bubblewrap end by themselves before it ends them. */
const STOP_GRACE_MS = 2000;

/** The sandbox's own user: bubblewrap maps it to the runner's user, or to nobody when the runner is root. */
export const SANDBOX_UID = 1000;
const NOBODY = 65534;

/** What the sandbox's first process hands back, one JSON line each. */
export type PassRecord = { type: string; step: number } & Record<string, unknown>;

export interface PassResult {
  records: PassRecord[];
  /** Budgets the runner itself enforced: `pass-time` (the sandbox outlived its budget), `trace`. */
  budgetsHit: string[];
  /** What strace and bubblewrap said, for a run that failed to start. */
  diagnostics: string;
}

/** The bubblewrap command line of a pass: namespaces, mounts and the first process. */
export function bwrapArgs(inDir: string, planFile: string): string[] {
  const etc = HOST_ETC.filter((name) => existsSync(`/etc/${name}`)).flatMap((name) => ['--ro-bind', `/etc/${name}`, `/etc/${name}`]);
  const own = OWN_ETC.flatMap((name) => ['--ro-bind', `${inDir}/etc/${name}`, `/etc/${name}`]);
  const lib64 = existsSync('/usr/lib64') ? ['--symlink', 'usr/lib64', '/lib64'] : [];
  return [
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    '--as-pid-1',
    '--uid',
    String(SANDBOX_UID),
    '--gid',
    String(SANDBOX_UID),
    '--cap-drop',
    'ALL',
    '--hostname',
    'dev',
    '--info-fd',
    '3',
    '--block-fd',
    '4',
    '--clearenv',
    '--setenv',
    'PATH',
    '/usr/bin:/bin',
    '--ro-bind',
    '/usr',
    '/usr',
    '--symlink',
    'usr/bin',
    '/bin',
    '--symlink',
    'usr/sbin',
    '/sbin',
    '--symlink',
    'usr/lib',
    '/lib',
    ...lib64,
    ...etc,
    ...own,
    ...SYSTEM_CA_BUNDLES.flatMap((path) => ['--symlink', CA_BUNDLE, path]),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--size',
    String(BUDGETS.shmBytes),
    '--tmpfs',
    '/dev/shm',
    '--remount-ro',
    '/dev',
    '--size',
    String(BUDGETS.homeBytes),
    '--tmpfs',
    '/home',
    '--size',
    String(BUDGETS.tmpBytes),
    '--tmpfs',
    '/tmp',
    '--dir',
    '/var/tmp',
    '--ro-bind',
    inDir,
    RUN_MOUNT,
    // Nothing else is writable: the root bubblewrap built is made read-only last.
    '--remount-ro',
    '/',
    '--chdir',
    '/',
    '/usr/bin/python3',
    '-I',
    `${RUN_MOUNT}/orchestrator.py`,
    `${RUN_MOUNT}/${planFile}`,
  ];
}

/** The sandbox's network, set from outside before it runs: every address is local, and all traffic goes to the sink. */
const NFT_RULES = `table inet sink {
  chain out {
    type nat hook output priority -100;
    ip daddr 127.0.0.0/8 return
    ip6 daddr ::1 return
    tcp sport ${SINK_TCP_PORT} return
    udp sport ${SINK_UDP_PORT} return
    meta l4proto tcp redirect to :${SINK_TCP_PORT}
    meta l4proto udp redirect to :${SINK_UDP_PORT}
  }
}
`;

/**
 * A system tool by its absolute path: the runner never looks a program up in PATH, where a
 * package's `node_modules/.bin` could stand in for bubblewrap.
 */
export function systemTool(name: string): string {
  const path = ['/usr/bin', '/usr/sbin', '/bin', '/sbin'].map((dir) => `${dir}/${name}`).find((p) => existsSync(p));
  if (!path) throw new Error(`the sandbox needs ${name} (scripts/ensure-test-deps.sh installs it)`);
  return path;
}

async function run(command: string, args: string[], input?: string): Promise<void> {
  const child = spawn(systemTool(command), args, { stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  // A tool that exits before reading its input (its target process gone) closes the pipe: the
  // write fails with EPIPE, which its exit code already reports, and must not throw elsewhere.
  child.stdin?.on('error', () => undefined).end(input);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', resolve);
  });
  if (code !== 0) throw new Error(`${command} ${args.join(' ')}: ${stderr.trim() || `exit ${code}`}`);
}

async function wireNetwork(pid: number): Promise<void> {
  assertOwnNamespaces(pid);
  const at = ['--target', String(pid), '--net'];
  await run('nsenter', [...at, systemTool('ip'), 'route', 'add', 'local', '0.0.0.0/0', 'dev', 'lo']);
  // A kernel without IPv6 has no IPv6 route to add; the sink is then reached over IPv4 only.
  await run('nsenter', [...at, systemTool('ip'), '-6', 'route', 'add', 'local', '::/0', 'dev', 'lo']).catch(() => undefined);
  await run('nsenter', [...at, systemTool('nft'), '-f', '-'], NFT_RULES);
}

/**
 * The PID of the sandbox's first process, from the JSON object bubblewrap writes on its info
 * descriptor: read whole (a number cut between two reads would name another process).
 */
async function childPid(info: Readable): Promise<number> {
  let text = '';
  for await (const chunk of info) {
    text += chunk;
    try {
      const pid = (JSON.parse(text) as { 'child-pid'?: unknown })['child-pid'];
      if (typeof pid === 'number' && Number.isInteger(pid) && pid > 1) return pid;
    } catch {
      // Not whole yet.
    }
  }
  throw new Error('bubblewrap ended before it started the sandbox');
}

/** The runner changes a network namespace only when it is a new one, the sandbox's: never its own. */
function assertOwnNamespaces(pid: number): void {
  for (const ns of ['net', 'user']) {
    if (readlinkSync(`/proc/${pid}/ns/${ns}`) === readlinkSync(`/proc/self/ns/${ns}`)) {
      throw new Error(`process ${pid} shares the runner's ${ns} namespace: it is not the sandbox`);
    }
  }
}

/**
 * Runs one pass: `inDir` is the run's folder as the sandbox sees it (plan, orchestrator, seed,
 * /etc files), `traceFile` where strace writes, outside it.
 */
export async function runPass(inDir: string, planFile: string, traceFile: string): Promise<PassResult> {
  const asNobody = process.getuid?.() === 0 ? [systemTool('setpriv'), `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--'] : [];
  const strace = [
    '-f',
    '-q',
    '-y',
    '-s',
    '4096',
    '-x',
    '--seccomp-bpf',
    '--pidns-translation',
    '-e',
    `trace=${TRACED.join(',')}`,
    '-e',
    'signal=none',
    '-o',
    traceFile,
    '--',
    ...asNobody,
    systemTool('bwrap'),
    ...bwrapArgs(inDir, planFile),
  ];
  const child = spawn(systemTool('strace'), strace, { stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe'], detached: true });
  const [, stdout, stderr, info, block, records] = child.stdio as unknown as [null, Readable, Readable, Readable, Writable, Readable];
  // The sandbox closes its ends of these pipes when and how it likes; that is no error of the runner's.
  for (const stream of [stdout, stderr, info, block, records]) stream.on('error', () => undefined);
  let diagnostics = '';
  const note = (chunk: Buffer) => {
    if (diagnostics.length < 8192) diagnostics += chunk.toString('utf8');
  };
  stdout.on('data', note);
  stderr.on('data', note);
  const budgetsHit: string[] = [];
  let keepGoing: NodeJS.Timeout | undefined;
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    clearInterval(keepGoing);
    // strace, asked to end, detaches and writes out the lines it holds (killed, it would lose
    // them); then whatever is left, bubblewrap and with it the whole namespace, is killed.
    try {
      process.kill(child.pid!, 'SIGTERM');
    } catch {
      // It ended by itself meanwhile.
    }
    setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Everything ended by itself.
      }
    }, STOP_GRACE_MS).unref();
  };
  const kill = (why: string) => {
    if (!budgetsHit.includes(why)) budgetsHit.push(why);
    stop();
  };
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  child.on('error', (error) => note(Buffer.from(`${error.message}\n`)));
  const clock = setTimeout(() => kill('pass-time'), (BUDGETS.passSeconds + BUDGETS.killAfterSeconds) * 1000);
  const traceWatch = setInterval(() => {
    if (existsSync(traceFile) && statSync(traceFile).size > BUDGETS.traceBytes) kill('trace');
  }, 250);

  const lines: PassRecord[] = [];
  const reading = (async () => {
    for await (const line of createInterface({ input: records })) {
      try {
        const record = JSON.parse(line) as PassRecord;
        lines.push(record);
        // The first process is done: the namespace ends with it, and so should strace soon after.
        if (record.type === 'done') setTimeout(stop, STOP_GRACE_MS).unref();
      } catch {
        // Only the first process writes here; a line that is not JSON is a line cut by the kill.
      }
    }
  })();
  try {
    const pid = await Promise.race([childPid(info), exited.then(() => Promise.reject(new Error('the sandbox did not start')))]);
    await wireNetwork(pid);
    block.end('go');
    // A traced process is stopped by SIGSTOP even as its namespace's init, which the kernel
    // otherwise shields from the signals of its own namespace; a step could freeze the first
    // process that way. The runner, outside, keeps it going.
    keepGoing = setInterval(() => {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // It has ended.
      }
    }, 100);
    await Promise.all([exited, reading]);
  } catch (error) {
    kill('failed');
    await exited;
    throw new Error(`the sandbox could not run: ${(error as Error).message}\n${diagnostics}`);
  } finally {
    clearTimeout(clock);
    clearInterval(traceWatch);
    clearInterval(keepGoing);
  }
  return { records: lines, budgetsHit, diagnostics };
}
