import type { DynamoDBStreamEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '#functions/platform/log';
import type { SkillFailure } from '#functions/rebuild/skill-failure';
import { batchItemFailures, changedSkillIds } from '#functions/rebuild/stream-event';
import { LocalRebuildTrigger } from '#scripts/local/rebuild-trigger';
import { streamRecord as record } from '../support/lambda-events.ts';

describe('DynamoDB stream adapter', () => {
  it('names each changed skill once and ignores other entities, and the fingerprints the rebuild records itself', () => {
    const event: DynamoDBStreamEvent = {
      Records: [
        record('SKILL#a', 'VERSION#1.1.0'),
        record('SKILL#a', 'META', 'MODIFY'),
        record('SKILL#b', 'META'),
        record('SKILL#c', `FINGERPRINT#${'0'.repeat(64)}`),
        record('SLUG#pretty', 'SLUG'),
        record('APIKEY#abc', 'APIKEY'),
        record('DL#a', 'DAY#2026-01-01', 'MODIFY'),
        record('SESSION#x', 'SESSION', 'REMOVE'),
      ],
    };
    expect(changedSkillIds(event)).toEqual(['a', 'b']);
  });

  it('copes with an empty batch', () => {
    expect(changedSkillIds({ Records: [] })).toEqual([]);
  });

  it('reports the first record of each skill that failed, so the stream retries from there and no further back', () => {
    const event: DynamoDBStreamEvent = {
      Records: [
        record('SKILL#good', 'META', 'INSERT', '100'),
        record('SKILL#bad', 'VERSION#1.0.0', 'INSERT', '200'),
        record('SKILL#bad', 'META', 'MODIFY', '300'),
        record('SKILL#worse', 'META', 'MODIFY', '400'),
        record('SKILL#good', 'VERSION#1.1.0', 'INSERT', '500'),
      ],
    };
    expect(batchItemFailures(event, ['bad', 'worse'])).toEqual({ batchItemFailures: [{ itemIdentifier: '200' }, { itemIdentifier: '400' }] });
    expect(batchItemFailures(event, [])).toEqual({ batchItemFailures: [] });
  });
});

describe('local rebuild trigger', () => {
  const silent = createLogger('silent');
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** Stages that record their batches; a skill's "state" is its id and the run that read it. */
  function recorder(options: { filesMs?: number; indexMs?: number; failFiles?: number; failIndexes?: number } = {}) {
    const files: string[][] = [];
    const indexes: string[][] = [];
    let filesCalls = 0;
    let indexCalls = 0;
    const stages = {
      files: async (ids: string[]) => {
        filesCalls += 1;
        if (filesCalls <= (options.failFiles ?? 0)) throw new Error('S3 is down');
        files.push(ids);
        if (options.filesMs) await pause(options.filesMs);
        return { rebuilt: new Map(ids.map((id) => [id, `${id}@${filesCalls}`])), failed: [] };
      },
      indexes: async (states: string[]) => {
        indexCalls += 1;
        if (options.indexMs) await pause(options.indexMs);
        if (indexCalls <= (options.failIndexes ?? 0)) throw new Error('the lock table is down');
        indexes.push(states);
        return [];
      },
    };
    return { stages, files, indexes };
  }

  afterEach(() => {
    vi.useRealTimers();
  });

  it('coalesces a burst of writes into few runs of each stage that cover every skill', async () => {
    const { stages, files, indexes } = recorder({ filesMs: 20 });
    const trigger = new LocalRebuildTrigger(stages, silent);
    for (let i = 0; i < 50; i++) trigger.enqueue([`s${i % 10}`]);
    await trigger.idle();
    const all = new Set(Array.from({ length: 10 }, (_, i) => `s${i}`));
    expect(files.length).toBeLessThanOrEqual(2);
    expect(new Set(files.flat())).toEqual(all);
    expect(indexes.length).toBeLessThanOrEqual(files.length);
    expect(new Set(indexes.flat().map((state) => state.split('@')[0]))).toEqual(all);
  });

  it('retries a failed file stage until it succeeds, then indexes what it read', async () => {
    const { stages, files, indexes } = recorder({ failFiles: 2 });
    const trigger = new LocalRebuildTrigger(stages, silent);
    trigger.enqueue(['x']);
    await trigger.idle();
    expect(files).toEqual([['x']]);
    expect(indexes).toEqual([['x@3']]);
  });

  it('retries a failed index stage, keeping a newer state handed over meanwhile', async () => {
    const { stages, indexes } = recorder({ indexMs: 30, failIndexes: 1 });
    const trigger = new LocalRebuildTrigger(stages, silent);
    trigger.enqueue(['x']);
    await pause(10); // the first index run (x@1) is under way, and will fail
    trigger.enqueue(['x', 'y']);
    await trigger.idle();
    expect(indexes).toEqual([['x@2', 'y@2']]);
  });

  it('indexes a write after a quiet spell at once, and a burst at most once per interval', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { stages, files, indexes } = recorder();
    const trigger = new LocalRebuildTrigger(stages, silent, { indexIntervalMs: 100 });
    trigger.enqueue(['a']);
    await vi.advanceTimersByTimeAsync(0);
    expect(indexes).toEqual([['a@1']]);

    await vi.advanceTimersByTimeAsync(30);
    trigger.enqueue(['b']);
    await vi.advanceTimersByTimeAsync(0);
    trigger.enqueue(['c']);
    await vi.advanceTimersByTimeAsync(0);
    // Both skills' files are written at once; their index entries wait for the interval.
    expect(files).toEqual([['a'], ['b'], ['c']]);
    expect(indexes).toEqual([['a@1']]);
    let idle = false;
    void trigger.idle().then(() => (idle = true));
    await vi.advanceTimersByTimeAsync(69);
    expect(indexes).toHaveLength(1);
    expect(idle).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(indexes).toEqual([['a@1'], ['b@2', 'c@3']]);
    expect(idle).toBe(true);

    await vi.advanceTimersByTimeAsync(500);
    trigger.enqueue(['d']);
    await vi.advanceTimersByTimeAsync(0);
    expect(indexes).toEqual([['a@1'], ['b@2', 'c@3'], ['d@4']]);
  });

  it('indexes at the longer interval while a burst goes on, and at the short one once it is over', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { stages, indexes } = recorder();
    const trigger = new LocalRebuildTrigger(stages, silent, { indexIntervalMs: 100, burstIndexIntervalMs: 500, burstSkills: 2 });
    const write = async (id: string, afterMs: number) => {
      await vi.advanceTimersByTimeAsync(afterMs);
      trigger.enqueue([id]);
      await vi.advanceTimersByTimeAsync(0);
    };
    await write('a', 0); // t = 0: after a quiet spell, at once
    for (const id of ['b', 'c', 'd']) await write(id, 20); // t = 20, 40, 60
    expect(indexes).toEqual([['a@1']]);
    await vi.advanceTimersByTimeAsync(40); // t = 100: the short interval, three skills at once
    expect(indexes).toEqual([['a@1'], ['b@2', 'c@3', 'd@4']]);

    // More than two skills in one run: a burst. The next run waits 500 ms from the last start.
    await write('e', 20); // t = 120
    await vi.advanceTimersByTimeAsync(479); // t = 599
    expect(indexes).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1); // t = 600
    expect(indexes.at(-1)).toEqual(['e@5']);

    // That run took one skill: the burst is over, and the short interval applies again.
    await write('f', 100); // t = 700
    expect(indexes.at(-1)).toEqual(['f@6']);
    await write('g', 50); // t = 750: within 100 ms of the last start
    expect(indexes).toHaveLength(4);
    await vi.advanceTimersByTimeAsync(50); // t = 800
    expect(indexes.at(-1)).toEqual(['g@7']);
  });

  /**
   * Stages in which the skills of `poisoned` fail (in the files stage, or in the index stage),
   * each on its own, as the Rebuilder reports them, and every other skill succeeds.
   */
  function poisonedStages(poisoned: Set<string>, stage: 'files' | 'indexes' = 'files') {
    const files: string[][] = [];
    const indexes: string[][] = [];
    const failure = (skillId: string): SkillFailure => ({
      skillId,
      slug: `slug-${skillId}`,
      error: { code: 'InternalError', message: 'We encountered an internal error. Please try again.' },
    });
    const failing = (ids: string[]) => (ids.some((id) => poisoned.has(id)) ? ids.filter((id) => poisoned.has(id)) : []);
    const stages = {
      files: async (ids: string[]) => {
        files.push(ids);
        const failed = stage === 'files' ? failing(ids) : [];
        return { rebuilt: new Map(ids.filter((id) => !failed.includes(id)).map((id) => [id, id])), failed: failed.map(failure) };
      },
      indexes: async (states: string[]) => {
        const failed = stage === 'indexes' ? failing(states) : [];
        indexes.push(states.filter((id) => !failed.includes(id)));
        return failed.map(failure);
      },
    };
    return { stages, files, indexes };
  }

  it('indexes every other skill at once while one keeps failing, and retries that one alone with a growing, capped backoff', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
    vi.setSystemTime(new Date('2026-03-01T12:00:00.000Z'));
    const { stages, files, indexes } = poisonedStages(new Set(['bad']));
    const trigger = new LocalRebuildTrigger(stages, silent, { maxBackoffMs: 1000 });
    trigger.enqueue(['bad', 'a']);
    await vi.advanceTimersByTimeAsync(0);
    expect(indexes).toEqual([['a']]);
    // A later write is not held behind the failing skill's retry.
    trigger.enqueue(['b']);
    await vi.advanceTimersByTimeAsync(0);
    expect(files).toEqual([['bad', 'a'], ['b']]);
    expect(indexes).toEqual([['a'], ['b']]);

    // Retries of `bad` alone, 100, 200, 400, 800 ms apart, then every 1000 ms (the cap).
    const retriesAt: number[] = [];
    for (let t = 1; t <= 4000; t++) {
      await vi.advanceTimersByTimeAsync(1);
      if (files.length > 2 + retriesAt.length) retriesAt.push(t);
    }
    expect(retriesAt).toEqual([100, 300, 700, 1500, 2500, 3500]);
    expect(files.slice(2).every((batch) => batch.length === 1 && batch[0] === 'bad')).toBe(true);
    expect(indexes).toEqual([['a'], ['b']]);
    expect(trigger.failing()).toEqual([
      {
        skillId: 'bad',
        slug: 'slug-bad',
        stage: 'files',
        attempts: 7,
        since: '2026-03-01T12:00:00.000Z',
        error: { code: 'InternalError', message: expect.any(String) },
      },
    ]);
    trigger.stop();
  });

  it('reports the failing skills while they fail and forgets each once its retry succeeds', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
    const poisoned = new Set(['bad', 'worse']);
    const { stages, indexes } = poisonedStages(poisoned);
    const reported: string[][] = [];
    const trigger = new LocalRebuildTrigger(stages, silent, { onFailingChanged: (failing) => reported.push(failing.map((f) => `${f.skillId}#${f.attempts}`)) });
    let idle = false;
    trigger.enqueue(['bad', 'worse', 'fine']);
    void trigger.idle().then(() => (idle = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(reported).toEqual([['bad#1', 'worse#1']]);
    expect(indexes).toEqual([['fine']]);

    poisoned.delete('worse'); // its cause is repaired: the next retry succeeds
    await vi.advanceTimersByTimeAsync(100);
    expect(trigger.failing().map((f) => f.skillId)).toEqual(['bad']);
    expect(reported.at(-1)).toEqual(['bad#2']);
    expect(indexes).toEqual([['fine'], ['worse']]);
    expect(idle).toBe(false); // a skill still waits for its retry

    poisoned.delete('bad');
    await vi.advanceTimersByTimeAsync(200);
    expect(trigger.failing()).toEqual([]);
    expect(reported.at(-1)).toEqual([]);
    expect(idle).toBe(true);
  });

  it('rebuilds a failing skill at once when a newer write names it, instead of waiting out its backoff', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
    const poisoned = new Set(['bad']);
    const { stages, files } = poisonedStages(poisoned);
    const trigger = new LocalRebuildTrigger(stages, silent, { maxBackoffMs: 30_000 });
    trigger.enqueue(['bad']);
    for (let i = 0; i < 8; i++) await vi.advanceTimersByTimeAsync(30_000); // the backoff is now long
    const calls = files.length;
    poisoned.delete('bad');
    trigger.enqueue(['bad']);
    await vi.advanceTimersByTimeAsync(0);
    expect(files).toHaveLength(calls + 1);
    expect(trigger.failing()).toEqual([]);
    await trigger.idle();
  });

  it('indexes the others when one skill fails in the index stage, and retries only that one', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
    const poisoned = new Set(['bad']);
    const { stages, files, indexes } = poisonedStages(poisoned, 'indexes');
    const trigger = new LocalRebuildTrigger(stages, silent);
    trigger.enqueue(['a', 'bad', 'b']);
    await vi.advanceTimersByTimeAsync(0);
    expect(indexes).toEqual([['a', 'b']]);
    expect(trigger.failing()).toMatchObject([{ skillId: 'bad', stage: 'indexes', attempts: 1 }]);
    poisoned.delete('bad');
    await vi.advanceTimersByTimeAsync(100);
    expect(indexes).toEqual([['a', 'b'], ['bad']]);
    expect(files).toEqual([['a', 'bad', 'b']]); // its files were fine: only the index stage ran again
    expect(trigger.failing()).toEqual([]);
  });

  it('retries and reports the skills a full rebuild could not rebuild', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
    const { stages, files, indexes } = poisonedStages(new Set());
    const trigger = new LocalRebuildTrigger(stages, silent);
    trigger.retry([{ skillId: 'x', slug: 'slug-x', error: { code: 'TypeError', message: 'damaged' } }]);
    expect(trigger.failing()).toMatchObject([{ skillId: 'x', slug: 'slug-x', stage: 'files', attempts: 1, error: { code: 'TypeError' } }]);
    await vi.advanceTimersByTimeAsync(100);
    expect(files).toEqual([['x']]);
    expect(indexes).toEqual([['x']]);
    expect(trigger.failing()).toEqual([]);
  });
});
