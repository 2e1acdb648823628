import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUDGETS } from '#functions/sandbox/budgets';
import type { Observation } from '#core/behaviour/observation';
import { EDITOR_STEP } from '#core/behaviour/plan';
import { observeVersion } from '#functions/sandbox/observe';

/**
 * The sandbox is attacked too, and holds: each attack is a version whose SKILL.md does it, run
 * for one pass. Throughout, a server of this process on 127.0.0.1 is asked every 200 ms and must
 * answer within a second (the host stays responsive, and nothing in the sandbox reaches it); each
 * run must end within the budget the runner enforces, and leave nothing on the host. In the
 * reliability suite, not `npm test`: there a hundred other files share the two cores, and a
 * probe late by a second would say more about them than about the sandbox.
 */

const RUN = 120_000;
const PASS_LIMIT_MS = (BUDGETS.passSeconds + BUDGETS.killAfterSeconds) * 1000;

let server: Server;
let port = 0;
const requests: string[] = [];
const probes = { sent: 0, answered: 0, late: [] as string[] };
let probing: NodeJS.Timeout;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url !== '/probe') requests.push(req.url ?? '');
    // A fresh connection per probe: a kept-alive one the server times out as the next probe
    // reuses it would fail for a reason that is no concern of this test.
    res.setHeader('Connection', 'close');
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  probing = setInterval(() => {
    probes.sent++;
    const sent = Date.now();
    fetch(`http://127.0.0.1:${port}/probe`, { signal: AbortSignal.timeout(1000) })
      .then(async (r) => {
        await r.text();
        probes.answered++;
      })
      .catch((error: Error) => probes.late.push(`${new Date(sent).toISOString()}: ${error.name} ${String((error.cause as Error | undefined)?.message ?? '')}`));
  }, 200);
});

afterAll(async () => {
  clearInterval(probing);
  await new Promise((resolve) => server.close(resolve));
});

const skill = (body: string) => [{ filename: 'SKILL.md', bytes: Buffer.from(`---\nname: attack\ndescription: attack\n---\n# Attack\n\n${body}`) }];
const bash = (...blocks: string[]) => skill(blocks.map((b) => `\`\`\`bash\n${b}\n\`\`\`\n`).join('\n'));

/** Runs a version for one pass and checks what every attack must leave true: it ended within its budget, by itself. */
async function attack(files: ReturnType<typeof skill>): Promise<Observation> {
  const started = Date.now();
  const observation = await observeVersion(files, { clocks: ['now'] });
  expect(Date.now() - started).toBeLessThan(PASS_LIMIT_MS);
  expect(observation.budgetsHit.map((b) => b.budget)).not.toContain('pass-time');
  // The project opened in an editor is the plan's last step, no attack's: the attacks' steps are checked.
  return { ...observation, steps: observation.steps.filter((s) => s.name !== EDITOR_STEP) };
}

const budgets = (o: Observation) => o.budgetsHit.map((b) => b.budget);

describe('the sandbox under attack', () => {
  it(
    'stops a fork bomb at its process cap and its step’s time, and runs the next step',
    async () => {
      const o = await attack(bash(':(){ :|:& };:', 'echo after'));
      expect(budgets(o)).toEqual(expect.arrayContaining(['processes']));
      expect(o.steps.at(-1)).toMatchObject({ exit: 0, timedOut: false });
    },
    RUN,
  );

  it(
    'refuses memory past its cap: reserving it fails at the cap, filling it ends with the step',
    async () => {
      const o = await attack(
        skill(
          [
            '```python',
            'import ctypes, sys',
            'libc = ctypes.CDLL(None)',
            'libc.malloc.restype = ctypes.c_void_p',
            'got = 0',
            'while got < 64 and libc.malloc(64 << 20):',
            '    got += 1',
            '# 64 MiB blocks: the cap is 1 GiB, so no more than 16 of them.',
            'sys.exit(0 if got <= 16 else 3)',
            '```',
            '',
            '```python',
            'chunks = []',
            'while True:',
            '    chunks.append(bytearray(64 * 1024 * 1024))',
            '```',
            '',
          ].join('\n'),
        ),
      );
      expect(o.steps.map((s) => s.exit)).toEqual([0, expect.any(Number)]);
      expect(o.steps[1]!.exit).not.toBe(0);
    },
    RUN,
  );

  it(
    'caps a disk filler at one file’s size and the home’s size, and leaves / and /dev read-only',
    async () => {
      const o = await attack(
        bash(
          'head -c 100M /dev/zero > ~/one; ls -l ~/one',
          'for i in 1 2 3 4 5 6; do head -c 30M /dev/zero > ~/fill$i; done; df -h ~',
          'head -c 20M /dev/zero > /dev/shm/x; echo x > /fill; echo x > /dev/fill; echo done',
        ),
      );
      expect(budgets(o)).toContain('disk');
      expect(o.steps.at(-1)).toMatchObject({ timedOut: false });
    },
    RUN,
  );

  it(
    'lives through 100,000 files',
    async () => {
      const o = await attack(
        skill(
          '```python\nimport os\nos.makedirs("/home/dev/many", exist_ok=True)\nfor i in range(100_000):\n    open(f"/home/dev/many/{i}", "w").close()\n```\n',
        ),
      );
      expect(o.steps).toHaveLength(1);
    },
    RUN,
  );

  it(
    'caps endless output and ends the step',
    async () => {
      const o = await attack(bash('yes "endless output"', 'echo after'));
      expect(budgets(o)).toContain('output');
      expect(o.steps.at(-1)).toMatchObject({ exit: 0 });
    },
    RUN,
  );

  it(
    'ends `sleep infinity` at the step’s budget',
    async () => {
      const o = await attack(bash('sleep infinity', 'sleep infinity &\necho background'));
      expect(o.budgetsHit).toContainEqual({ budget: 'step-time', step: 'SKILL.md:8 (bash)', clock: 'now' });
      expect(o.steps[0]!.seconds).toBeGreaterThanOrEqual(BUDGETS.stepSeconds - 1);
    },
    RUN,
  );

  it(
    'cannot reach the host’s loopback services: its loopback is its own',
    async () => {
      const o = await attack(
        bash(
          [
            `curl -s -m 3 http://127.0.0.1:${port}/curl-loopback; echo "curl=$?"`,
            `curl -s -m 3 http://localhost:${port}/curl-localhost; echo "curl=$?"`,
            `curl -s -m 3 "http://[::1]:${port}/curl-v6"; echo "curl=$?"`,
            `curl -s -m 3 http://0.0.0.0:${port}/curl-any; echo "curl=$?"`,
            `python3 -c "import socket; s = socket.create_connection(('127.0.0.1', ${port}), 3); s.sendall(b'GET /python HTTP/1.0\\r\\n\\r\\n'); print(s.recv(64))"`,
            `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET /bash HTTP/1.0\\r\\n\\r\\n' >&3; echo "bash=$?"`,
          ].join('\n'),
        ),
      );
      expect(o.steps).toHaveLength(1);
      expect(requests).toEqual([]);
    },
    RUN,
  );

  it(
    'survives signals to its first process and to every other, and runs the next step',
    async () => {
      const o = await attack(
        bash(
          'for s in KILL STOP TERM INT HUP USR1 USR2 SEGV; do kill -$s 1; done\nkill -KILL $PPID\nfor p in $(seq 2 400); do [ "$p" != "$$" ] && kill -STOP "$p" 2>/dev/null; done\nkill -KILL -1\necho sent',
          'echo after',
        ),
      );
      expect(o.steps.map((s) => [s.name, s.exit])).toEqual([
        ['SKILL.md:8 (bash)', expect.anything()],
        ['SKILL.md:16 (bash)', 0],
      ]);
    },
    RUN,
  );

  it(
    'keeps escapes through /proc, mounts, namespaces and tracing from writing anything outside the run',
    async () => {
      const nonce = `escape-${randomBytes(6).toString('hex')}`;
      const places = ['/proc/1/root/tmp', '/proc/self/root/../../../tmp', '/tmp', '/var/tmp', '/root', '/run/skillpress', '/usr', '/', '/proc/1/cwd', '/etc'];
      const o = await attack(
        bash(
          [
            'cat /proc/1/environ; ls -l /proc/1/fd; head -c 64 /proc/1/mem',
            `python3 -c "import ctypes; print('ptrace', ctypes.CDLL(None).ptrace(16, 1, 0, 0))"`,
            'echo x > /proc/sys/kernel/hostname; echo b > /proc/sysrq-trigger; echo 1 > /proc/sys/vm/drop_caches',
            ...places.map((p, i) => `echo x > ${p}/${nonce}-${i}`),
            `ln -s /proc/1/root ~/root-link && echo x > ~/root-link/${nonce}-link`,
            'unshare -Ur true; echo "unshare=$?"; mount -t tmpfs none /mnt; echo "mount=$?"',
            'echo end',
          ].join('\n'),
        ),
      );
      expect(o.steps).toMatchObject([{ exit: 0, timedOut: false }]);
      const found = execFileSync(
        'find',
        ['/tmp', '/var/tmp', '/root', '/run', '/usr/local', '/etc', '/dev/shm', process.cwd(), '-maxdepth', '3', '-name', `${nonce}*`],
        {
          encoding: 'utf8',
        },
      ).trim();
      expect(found).toBe('');
    },
    RUN,
  );

  it('kept the host answering within a second throughout', () => {
    expect(probes.sent).toBeGreaterThan(50);
    expect(probes.late).toEqual([]);
  });
});
