/**
 * The limits of a run in the sandbox, stated once. The runner (`run-pass.ts`) sets the ones the
 * kernel and bubblewrap enforce (tmpfs sizes, the wall clock of a pass, the trace's size); the
 * sandbox's first process (`inside/orchestrator.py`) receives the rest in its plan and sets them
 * on each step (rlimits, the step's time, its output). `test/reliability/sandbox-attacks.test.ts`
 * attacks each of them.
 */

const MiB = 1024 * 1024;

export const BUDGETS = {
  /** A step (a block of SKILL.md, a script, an install) runs at most this long; then it and what it left behind are killed. */
  stepSeconds: 10,
  /** A version's two passes (today, and the clock a year ahead) together: 60 s, half each. */
  passSeconds: 30,
  /** After the last step, what runs in the background may go on this long before everything ends. */
  graceSeconds: 1,
  /** The runner kills a pass whose sandbox has not ended this long after its budget (the sandbox's own clock failed). */
  killAfterSeconds: 8,
  /** A step's output kept (and read) at most; past it the step's pipe is no longer read. */
  outputBytes: 64 * 1024,
  /** Bytes the network sink records in a pass, all clients together. */
  recordedBytes: 4 * MiB,
  /** How long the sink waits for a client to speak first before it speaks (a reverse shell waits for commands). */
  firstBytesSeconds: 1,
  /** The trace of a pass is read up to this size; a run that writes more is stopped and says so. */
  traceBytes: 256 * MiB,
  /** The home (fake home and project), the temporary folder and /dev/shm: tmpfs of these sizes. */
  homeBytes: 128 * MiB,
  tmpBytes: 64 * MiB,
  shmBytes: 8 * MiB,
  /** A step's disk is full when less than this is free in the home after it. */
  diskFreeBytes: 1 * MiB,
  /** Files written outside the skill's folder whose final content is handed back, and how much of each. */
  snapshotFiles: 200,
  snapshotFileBytes: 64 * 1024,
  /** Per process of a step (setrlimit): data (heap, not the address space WebAssembly reserves), tasks of the sandbox's user, one file's size, open files, no core dumps. */
  rlimits: {
    RLIMIT_DATA: 1024 * MiB,
    RLIMIT_NPROC: 128,
    RLIMIT_FSIZE: 32 * MiB,
    RLIMIT_NOFILE: 256,
    RLIMIT_CORE: 0,
  },
  /** A version's steps: at most this many are planned. */
  steps: 40,
} as const;
