import type { DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../functions/log.ts';
import { LocalRebuildTrigger } from '../../functions/rebuild/local-trigger.ts';
import { changedSkillIds } from '../../functions/rebuild/stream-event.ts';
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

  it('coalesces a burst of writes into few rebuilds that cover every skill', async () => {
    const batches: string[][] = [];
    const trigger = new LocalRebuildTrigger(async (ids) => {
      batches.push(ids);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }, silent);
    for (let i = 0; i < 50; i++) trigger.enqueue([`s${i % 10}`]);
    await trigger.idle();
    expect(batches.length).toBeLessThanOrEqual(2);
    expect(new Set(batches.flat())).toEqual(new Set(Array.from({ length: 10 }, (_, i) => `s${i}`)));
  });

  it('retries a failed rebuild until it succeeds', async () => {
    let calls = 0;
    const built: string[] = [];
    const trigger = new LocalRebuildTrigger(async (ids) => {
      calls += 1;
      if (calls <= 2) throw new Error('S3 is down');
      built.push(...ids);
    }, silent);
    trigger.enqueue(['x']);
    await trigger.idle();
    expect(calls).toBe(3);
    expect(built).toEqual(['x']);
  });
});
