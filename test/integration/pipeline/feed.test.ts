import { describe, expect, it } from 'vitest';
import { appendFeedTx } from '../../../src/graph/feed.js';
import { createFeedBus, feedFrom, startFeedTail } from '../../../src/pipeline/bus.js';
import { useGraph } from '../../support/graph.js';

const { driver, scope } = useGraph();

async function append(resourceId: string, change: string) {
  const session = driver.session();
  try {
    const [entry] = await session.executeWrite((tx) =>
      appendFeedTx(tx, [{ topic: 'health', resourceId, change, at: new Date().toISOString(), payload: { change } }]),
    );
    return entry!;
  } finally {
    await session.close();
  }
}

describe('the feed tail', () => {
  it('publishes stored entries in order and stops promptly mid-sleep', async () => {
    const bus = createFeedBus();
    const tail = startFeedTail(driver, bus, { intervalMs: 60_000 });
    const rid = `pve:${scope}/qemu/1`;
    const seen: number[] = [];
    const reader = (async () => {
      for await (const e of feedFrom(driver, bus, { topics: ['health'], resourceId: rid, since: null })) {
        seen.push(e.seq);
        if (seen.length === 2) return;
      }
    })();
    // The first pass (position at start) happens at once; a long interval then puts the tail to sleep.
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    await tail.stop();
    expect(Date.now() - started).toBeLessThan(5_000);

    // A fresh tail with a short interval delivers what is appended after it started.
    const tail2 = startFeedTail(driver, bus, { intervalMs: 50 });
    await new Promise((r) => setTimeout(r, 200));
    const a = await append(rid, 'one');
    const b = await append(rid, 'two');
    await reader;
    await tail2.stop();
    expect(seen).toEqual([a.seq, b.seq]);
  });

  it('replays from since, then goes live, each entry once', async () => {
    const bus = createFeedBus();
    const rid = `pve:${scope}/qemu/2`;
    const first = await append(rid, 'before');
    const tail = startFeedTail(driver, bus, { intervalMs: 50 });
    const seen: string[] = [];
    const reader = (async () => {
      for await (const e of feedFrom(driver, bus, { topics: ['health'], resourceId: rid, since: first.seq - 1 })) {
        seen.push(e.change);
        if (seen.length === 2) return;
      }
    })();
    await new Promise((r) => setTimeout(r, 200));
    await append(rid, 'after');
    await reader;
    await tail.stop();
    expect(seen).toEqual(['before', 'after']);
  });
});
