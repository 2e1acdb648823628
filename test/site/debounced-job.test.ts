import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DebouncedJob } from '#scripts/local/debounced-job';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** A job that takes `ms` of (fake) time and counts its runs. */
function slowJob(ms: number) {
  const state = { runs: 0, running: false };
  const job = async () => {
    state.running = true;
    await new Promise((resolve) => setTimeout(resolve, ms));
    state.running = false;
    state.runs += 1;
  };
  return { state, job };
}

describe('the debounced site rebuild', () => {
  it('runs once for a burst of requests, after they pause', async () => {
    const { state, job } = slowJob(100);
    const debounced = new DebouncedJob(job, { debounceMs: 1000, maxWaitMs: 10_000 });
    for (let i = 0; i < 5; i++) {
      debounced.request();
      await vi.advanceTimersByTimeAsync(500);
    }
    expect(state.runs).toBe(0);
    await vi.advanceTimersByTimeAsync(1100);
    expect(state.runs).toBe(1);
    await debounced.idle();
  });

  it('does not let a steady stream of requests postpone the run past maxWaitMs', async () => {
    const { state, job } = slowJob(10);
    const debounced = new DebouncedJob(job, { debounceMs: 1000, maxWaitMs: 3000 });
    for (let i = 0; i < 10; i++) {
      debounced.request();
      await vi.advanceTimersByTimeAsync(400);
    }
    expect(state.runs).toBe(1);
  });

  it('runs once more after a run during which requests came, never two at a time', async () => {
    const { state, job } = slowJob(5000);
    let concurrent = 0;
    let most = 0;
    const debounced = new DebouncedJob(
      async () => {
        most = Math.max(most, ++concurrent);
        await job();
        concurrent -= 1;
      },
      { debounceMs: 100, maxWaitMs: 1000 },
    );
    debounced.request(0);
    await vi.advanceTimersByTimeAsync(50);
    expect(state.running).toBe(true);
    debounced.request();
    debounced.request();
    await vi.advanceTimersByTimeAsync(5000);
    expect(state.runs).toBe(1);
    const idle = debounced.idle();
    await vi.advanceTimersByTimeAsync(5200);
    await idle;
    expect(state.runs).toBe(2);
    expect(most).toBe(1);
  });

  it('reports a failed run and runs again on the next request', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const debounced = new DebouncedJob(
      async () => {
        calls += 1;
        if (calls === 1) throw new Error('astro failed');
      },
      { debounceMs: 10, maxWaitMs: 100, onError: (e) => errors.push(e) },
    );
    debounced.request();
    await vi.advanceTimersByTimeAsync(20);
    expect(errors).toHaveLength(1);
    expect(calls).toBe(1);
    debounced.request();
    await vi.advanceTimersByTimeAsync(20);
    expect(calls).toBe(2);
  });

  it('cancels pending runs on stop', async () => {
    const { state, job } = slowJob(10);
    const debounced = new DebouncedJob(job, { debounceMs: 100, maxWaitMs: 1000 });
    debounced.request();
    await debounced.stop();
    await vi.advanceTimersByTimeAsync(500);
    expect(state.runs).toBe(0);
    debounced.request();
    await vi.advanceTimersByTimeAsync(500);
    expect(state.runs).toBe(0);
  });
});
