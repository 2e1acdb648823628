import { type Blobs, getFiles } from '../content/blobs.ts';
import type { Logger } from '../platform/log.ts';
import { errorFields } from '../platform/log.ts';
import type { StepFunctions } from '../platform/step-functions.ts';
import { BUDGETS } from '../sandbox/budgets.ts';
import type { Observation } from '#core/behaviour/observation';
import { type ObserverInput, observerInputSchema } from '#core/behaviour/observer-input';
import { observeVersion } from '../sandbox/observe.ts';

/**
 * The sandbox's run on AWS (docs/deploy.md, "The sandbox on AWS"): one ECS task per version,
 * started by the observer state machine with its task token and its execution's ARN. It reads
 * the execution's input (which version, and its files by content hash), reads those files from
 * the content bucket, observes the version (`observeVersion`, the one door that runs a version's
 * content) and hands the observation back by the token; anything that goes wrong is handed back
 * as the task's failure instead, so the state machine never waits for a run that ended. The
 * task hands back the observation alone: which version it is about, the state machine takes
 * from its own input, never from what ran beside the skill's code.
 */

/**
 * The longest a task works once started: both passes to their runner's kill, and room to read
 * the files and hand the result back. Past it the task gives up and says so (the state
 * machine's own timeout, infra/sandbox.ts, adds the time ECS takes to start it).
 */
export const TASK_WORK_SECONDS = 2 * (BUDGETS.passSeconds + BUDGETS.killAfterSeconds) + 30;

/** The errors a task fails with, which the state machine's retries and alarms name. */
export const TASK_ERRORS = { failed: 'Sandbox.RunFailed', timedOut: 'Sandbox.WorkTimeout', badInput: 'Sandbox.BadInput' } as const;

export interface TaskDeps {
  states: StepFunctions;
  blobs: Blobs;
  log: Logger;
  /** The token and execution ECS passed in (SKILLPRESS_TASK_TOKEN, SKILLPRESS_EXECUTION). */
  taskToken: string;
  executionArn: string;
  /** {@link TASK_WORK_SECONDS} unless set (tests). */
  workSeconds?: number;
}

/** Runs the task once: true when the observation was handed back, false when a failure was. */
export async function runObserverTask(deps: TaskDeps): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new TaskError(TASK_ERRORS.timedOut, `no observation within ${deps.workSeconds ?? TASK_WORK_SECONDS} s`)),
      (deps.workSeconds ?? TASK_WORK_SECONDS) * 1000,
    );
  });
  try {
    const { slug, version, observation } = await Promise.race([work(deps), deadline]);
    await deps.states.sendTaskSuccess(deps.taskToken, JSON.stringify(observation));
    deps.log.info('observation handed back', { slug, version, verdict: observation.verdict });
    return true;
  } catch (error) {
    const code = error instanceof TaskError ? error.code : TASK_ERRORS.failed;
    deps.log.error('observation failed', { code, ...errorFields(error) });
    await deps.states.sendTaskFailure(deps.taskToken, code, error instanceof Error ? error.message : String(error));
    return false;
  } finally {
    clearTimeout(timer);
  }
}

async function work(deps: TaskDeps): Promise<ObserverInput & { observation: Observation }> {
  const text = await deps.states.executionInput(deps.executionArn);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new TaskError(TASK_ERRORS.badInput, "the execution's input is not JSON");
  }
  const parsed = observerInputSchema.safeParse(json);
  if (!parsed.success) throw new TaskError(TASK_ERRORS.badInput, `the execution's input is not an observer input: ${parsed.error.issues[0]?.message}`);
  const { slug, version, files } = parsed.data;
  // Read and checked against their hashes (getBlob): the bytes observed are the bytes stored.
  const stored = await getFiles(
    deps.blobs,
    files.map((f) => ({ ...f, encoding: 'utf8' as const })),
  );
  const observation = await observeVersion(stored.map((f) => ({ filename: f.filename, bytes: f.bytes, ...(f.executable ? { executable: true } : {}) })));
  return { slug, version, files, observation };
}

class TaskError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
