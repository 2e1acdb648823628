import type { DynamoDBStreamEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '#functions/platform/log';
import { LocalRebuildTrigger } from '#scripts/local/rebuild-trigger';
import { changedSkillIds } from '#functions/rebuild/stream-event';
import { streamRecord as record } from '../support/lambda-events.ts';

describe('DynamoDB stream adapter', () => {
  it('names each changed skill once and ignores other entities', () => {
    const event: DynamoDBStreamEvent = {
      Records: [
        record('SKILL#a', 'VERSION#1.1.0'),
        record('SKILL#a', 'META', 'MODIFY'),
        record('SKILL#b', 'META'),
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
        return new Map(ids.map((id) => [id, `${id}@${filesCalls}`]));
      },
      indexes: async (states: string[]) => {
        indexCalls += 1;
        if (options.indexMs) await pause(options.indexMs);
        if (indexCalls <= (options.failIndexes ?? 0)) throw new Error('the lock table is down');
        indexes.push(states);
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
});
