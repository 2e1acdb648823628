/**
 * Reads strace's output (`strace -f -y -x -s 4096 --pidns-translation`, one line per system call, prefixed with the
 * process id) into events: programs executed, files opened, renamed, removed or made executable,
 * connections and datagrams, signals and tracing attempts, and the processes each one came from.
 * Relative paths are resolved against each process's working folder, which the reader follows
 * through `chdir` and inherits across `fork`. Pure: lines in, events and processes out.
 */

export interface TracedProcess {
  pid: number;
  parent?: number;
  /** The program it runs (its last successful `execve`), with its arguments. */
  argv: string[];
  /** The step of the run it belongs to (-1: the sandbox's own processes). */
  step: number;
}

export type TraceEvent = { pid: number; ok: boolean; error?: string } & (
  | { kind: 'exec'; path: string; argv: string[] }
  | { kind: 'open'; path: string; write: boolean; flags: string }
  | { kind: 'rename'; from: string; path: string }
  | { kind: 'unlink'; path: string }
  | { kind: 'chmod'; path: string; mode: string }
  | { kind: 'chdir'; path: string }
  | { kind: 'link'; from: string; path: string }
  | { kind: 'connect'; family: string; address: string; port: number }
  | { kind: 'send'; family: string; address: string; port: number; bytes: Uint8Array }
  | { kind: 'signal'; target: number; signal: string }
  | { kind: 'ptrace'; request: string }
  | { kind: 'fork'; child: number }
);

export interface Trace {
  events: TraceEvent[];
  processes: Map<number, TracedProcess>;
}

/** What the orchestrator opens to say a step begins: `/.skillpress-step-<n>`. */
export const STEP_MARKER = /^\/\.skillpress-step-(\d+)$/;

const LINE = /^(\d+) +(?:<\.\.\. (\w+) resumed>|(\w+)\()(.*)$/;
const UNFINISHED = ' <unfinished ...>';

/** Splits a call's arguments at the commas that are not inside quotes, brackets or braces. */
function splitArgs(text: string): string[] {
  const args: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === '[' || c === '{' || c === '(') depth++;
    else if (c === ']' || c === '}' || c === ')') depth--;
    else if (c === ',' && depth === 0) {
      args.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  args.push(text.slice(start).trim());
  return args;
}

const ESCAPES: Record<string, number> = { n: 10, t: 9, r: 13, v: 11, f: 12, a: 7, b: 8, e: 27, '"': 34, '\\': 92, "'": 39 };

/** strace's quoted string (C escapes, `\xHH`, octal) as its bytes. */
export function unquote(text: string): Uint8Array {
  const start = text.indexOf('"');
  const out: number[] = [];
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') break;
    if (c !== '\\') {
      out.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const next = text[++i]!;
    if (next === 'x') {
      out.push(Number.parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (/[0-7]/.test(next)) {
      const octal = /^[0-7]{1,3}/.exec(text.slice(i))![0];
      out.push(Number.parseInt(octal, 8));
      i += octal.length - 1;
    } else out.push(ESCAPES[next] ?? next.charCodeAt(0));
  }
  return Uint8Array.from(out);
}

const str = (text: string | undefined) => (text === undefined ? '' : Buffer.from(unquote(text)).toString('utf8'));

function strings(array: string): string[] {
  const inner = array.trim().replace(/^\[/, '').replace(/\]$/, '');
  return inner
    ? splitArgs(inner)
        .filter((a) => a.startsWith('"'))
        .map(str)
    : [];
}

function joinPath(base: string, path: string): string {
  const parts = (path.startsWith('/') ? path : `${base}/${path}`).split('/');
  const out: string[] = [];
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return `/${out.join('/')}`;
}

/** The folder an `openat`-style descriptor argument stands for: `3</x>` is /x, `AT_FDCWD</x>` too (strace names the working folder), bare `AT_FDCWD` the folder followed. */
function dirOf(arg: string, cwd: string): string {
  const m = /^(?:-?\d+|AT_FDCWD)<(.*)>$/.exec(arg);
  return m ? m[1]! : cwd;
}

/** A socket address as strace prints it: family, address and port. */
function sockaddr(arg: string): { family: string; address: string; port: number } | null {
  const family = /sa_family=(\w+)/.exec(arg)?.[1];
  if (!family) return null;
  const port = Number(/sin6?_port=htons\((\d+)\)/.exec(arg)?.[1] ?? 0);
  const address =
    /inet_addr\("([^"]*)"\)/.exec(arg)?.[1] ?? /inet_pton\(AF_INET6, "([^"]*)"/.exec(arg)?.[1] ?? str(/sun_path=("(?:[^"\\]|\\.)*")/.exec(arg)?.[1]);
  return { family, address, port };
}

/** A call's result: success, the value (a descriptor's path, or a PID as the tracer's namespace numbers it), the error's name. */
function result(text: string): { ok: boolean; value: string; error?: string } {
  const m = /\)\s+= (-?\d+|\?)(?:<([^>]*)>)?(?: \/\* (\d+) in strace's PID NS \*\/)?(?: (E[A-Z0-9]+))?/.exec(text);
  if (!m) return { ok: false, value: '' };
  return { ok: m[1] !== '-1' && m[1] !== '?', value: m[2] ?? m[3] ?? m[1]!, error: m[4] };
}

const WRITE_FLAGS = /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND/;

/** Reads a trace. The processes of step n are those the orchestrator forks after it opened step n's marker, and theirs. */
export function parseTrace(lines: Iterable<string>): Trace {
  const events: TraceEvent[] = [];
  const processes = new Map<number, TracedProcess>();
  const cwd = new Map<number, string>();
  const pending = new Map<number, string>();
  let orchestrator: number | undefined;
  let step = -1;
  const proc = (pid: number) => {
    let p = processes.get(pid);
    if (!p) {
      p = { pid, argv: [], step: -1 };
      processes.set(pid, p);
    }
    return p;
  };
  for (const raw of lines) {
    const m = LINE.exec(raw);
    if (!m) continue;
    const pid = Number(m[1]);
    let call = m[3] ?? m[2]!;
    let rest = m[4]!;
    if (m[2]) {
      // `<... call resumed>` completes the line left unfinished.
      const start = pending.get(pid);
      pending.delete(pid);
      if (start === undefined) continue;
      rest = start + rest;
      call = m[2];
    } else if (rest.endsWith(UNFINISHED)) {
      pending.set(pid, rest.slice(0, -UNFINISHED.length));
      continue;
    }
    // The call's own closing parenthesis is the last one followed by ` = `: an error's explanation has parentheses too.
    const end = [...rest.matchAll(/\)\s+= /g)].at(-1)?.index ?? rest.lastIndexOf(')');
    const args = splitArgs(rest.slice(0, end));
    const res = result(rest.slice(end));
    const here = cwd.get(pid) ?? '/';
    const at = (dirArg: string, pathArg: string) => joinPath(dirOf(dirArg, here), str(pathArg));
    const base = { pid, ok: res.ok, error: res.error };
    switch (call) {
      case 'execve':
      case 'execveat': {
        const [path, argv] = call === 'execve' ? [str(args[0]), strings(args[1] ?? '')] : [at(args[0]!, args[1]!), strings(args[2] ?? '')];
        events.push({ ...base, kind: 'exec', path: joinPath(here, path), argv });
        if (res.ok) {
          proc(pid).argv = argv;
          if (orchestrator === undefined && /python/.test(argv[0] ?? '') && argv.some((a) => a.endsWith('/orchestrator.py'))) orchestrator = pid;
        }
        break;
      }
      case 'open':
      case 'creat':
      case 'openat':
      case 'openat2': {
        const [dirArg, pathArg, flags] =
          call === 'open' || call === 'creat'
            ? ['AT_FDCWD', args[0]!, call === 'creat' ? 'O_CREAT|O_WRONLY' : (args[1] ?? '')]
            : [args[0]!, args[1]!, args[2] ?? ''];
        const path = res.ok && res.value.startsWith('/') ? res.value : at(dirArg, pathArg);
        const marker = STEP_MARKER.exec(path);
        if (pid === orchestrator && marker) step = Number(marker[1]);
        else events.push({ ...base, kind: 'open', path, flags, write: WRITE_FLAGS.test(flags) });
        break;
      }
      case 'truncate':
        events.push({ ...base, kind: 'open', path: joinPath(here, str(args[0])), flags: 'O_TRUNC', write: true });
        break;
      case 'rename':
        events.push({ ...base, kind: 'rename', from: joinPath(here, str(args[0])), path: joinPath(here, str(args[1])) });
        break;
      case 'renameat':
      case 'renameat2':
        events.push({ ...base, kind: 'rename', from: at(args[0]!, args[1]!), path: at(args[2]!, args[3]!) });
        break;
      case 'unlink':
        events.push({ ...base, kind: 'unlink', path: joinPath(here, str(args[0])) });
        break;
      case 'unlinkat':
        events.push({ ...base, kind: 'unlink', path: at(args[0]!, args[1]!) });
        break;
      case 'chmod':
        events.push({ ...base, kind: 'chmod', path: joinPath(here, str(args[0])), mode: args[1] ?? '' });
        break;
      case 'fchmodat':
        events.push({ ...base, kind: 'chmod', path: at(args[0]!, args[1]!), mode: args[2] ?? '' });
        break;
      case 'symlink':
      case 'link':
        events.push({ ...base, kind: 'link', from: str(args[0]), path: joinPath(here, str(args[1])) });
        break;
      case 'symlinkat':
        events.push({ ...base, kind: 'link', from: str(args[0]), path: at(args[1]!, args[2]!) });
        break;
      case 'linkat':
        events.push({ ...base, kind: 'link', from: at(args[0]!, args[1]!), path: at(args[2]!, args[3]!) });
        break;
      case 'chdir':
      case 'fchdir': {
        const path = call === 'chdir' ? joinPath(here, str(args[0])) : dirOf(args[0]!, here);
        if (res.ok) cwd.set(pid, path);
        events.push({ ...base, kind: 'chdir', path });
        break;
      }
      case 'connect': {
        const address = sockaddr(args[1] ?? '');
        // A non-blocking connect answers EINPROGRESS and completes later: it was made.
        if (address) events.push({ ...base, ok: res.ok || res.error === 'EINPROGRESS', kind: 'connect', ...address });
        break;
      }
      case 'sendto':
      case 'sendmsg':
      case 'sendmmsg': {
        const address = sockaddr(rest);
        const data = /"(?:[^"\\]|\\.)*"/.exec(rest)?.[0];
        if (address && address.family !== 'AF_NETLINK' && data) events.push({ ...base, kind: 'send', ...address, bytes: unquote(data) });
        break;
      }
      case 'kill':
      case 'tkill':
        events.push({ ...base, kind: 'signal', target: Number(args[0]), signal: args[1] ?? '' });
        break;
      case 'tgkill':
        events.push({ ...base, kind: 'signal', target: Number(args[0]), signal: args[2] ?? '' });
        break;
      case 'ptrace':
        events.push({ ...base, kind: 'ptrace', request: args[0] ?? '' });
        break;
      case 'clone':
      case 'clone3':
      case 'fork':
      case 'vfork': {
        const child = Number(res.value);
        if (!res.ok || !Number.isFinite(child) || child <= 0) {
          events.push({ ...base, kind: 'fork', child: 0 });
          break;
        }
        const parent = proc(pid);
        const p = proc(child);
        p.parent = pid;
        // A fork runs its parent's program until it executes its own; the orchestrator's is not the skill's.
        if (p.argv.length === 0 && pid !== orchestrator) p.argv = parent.argv;
        p.step = pid === orchestrator ? step : parent.step;
        if (!cwd.has(child)) cwd.set(child, here);
        events.push({ ...base, kind: 'fork', child });
        break;
      }
    }
  }
  return { events, processes };
}
