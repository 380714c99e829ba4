import { describe, expect, it } from 'vitest';
import { mapLimit } from '../../../src/ingest/map-limit.js';

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('mapLimit', () => {
  it('starts the items in their order with at most `limit` in flight, and resolves when all are done', async () => {
    const started: number[] = [];
    const done: number[] = [];
    let inFlight = 0;
    let most = 0;
    await mapLimit([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      started.push(n);
      most = Math.max(most, ++inFlight);
      for (let i = 0; i < 8 - n; i++) await tick();
      inFlight--;
      done.push(n);
    });
    expect(started).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
    expect(done.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('runs one at a time below 1, and nothing for no items', async () => {
    let inFlight = 0;
    let most = 0;
    await mapLimit([1, 2, 3], 0, async () => {
      most = Math.max(most, ++inFlight);
      await tick();
      inFlight--;
    });
    expect(most).toBe(1);
    await expect(mapLimit([], 4, () => Promise.reject(new Error('never')))).resolves.toBeUndefined();
  });

  it('rejects with the first failure at once and starts nothing after it; calls in flight finish', async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const run = mapLimit([1, 2, 3, 4, 5], 2, async (n) => {
      started.push(n);
      if (n === 1) throw new Error('one failed');
      await tick();
      await tick();
      finished.push(n);
    });
    await expect(run).rejects.toThrow('one failed');
    for (let i = 0; i < 10; i++) await tick();
    expect(started).toEqual([1, 2]);
    expect(finished).toEqual([2]);
  });
});
