import type { Driver } from 'neo4j-driver';
import { describe, expect, it } from 'vitest';
import type { FeedEntry } from '../../../src/model/index.js';
import { createFeedBus, feedFrom } from '../../../src/pipeline/bus.js';
import type { ServiceDeps } from '../../../src/services/deps.js';
import { transitionFeed } from '../../../src/services/feed.js';

// Live-only reads (since: null) never touch the store.
const noDriver = null as unknown as Driver;

const entry = (seq: number): FeedEntry =>
  ({
    seq,
    topic: 'transition',
    resourceId: 'pve:x/qemu/1',
    change: 'observed',
    at: '2026-12-02T00:00:00.000Z',
    payload: {},
  }) as FeedEntry;

/** Resolves with what `p` settled to, or 'pending' after `ms`. */
const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms))]);

describe('an ended feed subscription', () => {
  it('returns at once while it awaits an entry, and its pending step ends', async () => {
    const bus = createFeedBus();
    const it = feedFrom(noDriver, bus, { topics: ['transition'], resourceId: null, since: null });
    const pending = it.next();
    expect(await within(pending, 50)).toBe('pending');
    expect(await within(it.return!(), 200)).toEqual({ done: true, value: undefined });
    expect(await within(pending, 200)).toEqual({ done: true, value: undefined });
    // Nothing published later reaches it.
    bus.publish(entry(1));
    expect(await within(it.next(), 100)).toEqual({ done: true, value: undefined });
  });

  it('still delivers live entries in order before it is ended', async () => {
    const bus = createFeedBus();
    const it = feedFrom(noDriver, bus, { topics: ['transition'], resourceId: 'pve:x/qemu/1', since: null });
    const first = it.next();
    bus.publish(entry(1));
    bus.publish({ ...entry(2), resourceId: 'pve:x/qemu/2' });
    bus.publish(entry(3));
    expect((await first).value?.seq).toBe(1);
    expect((await it.next()).value?.seq).toBe(3);
    await it.return!();
  });

  it('as a service subscription, returns at once and maps what it delivers', async () => {
    const bus = createFeedBus();
    const deps = { driver: noDriver, bus } as unknown as ServiceDeps;
    const feed = await transitionFeed(deps, { name: 'op', role: 'operator' }, {});
    const iterator = feed[Symbol.asyncIterator]();
    const first = iterator.next();
    bus.publish(entry(7));
    expect((await first).value).toMatchObject({ sequence: 7 });
    const second = iterator.next();
    expect(await within(iterator.return!(), 200)).toEqual({ done: true, value: undefined });
    expect(await within(second, 200)).toEqual({ done: true, value: undefined });
  });
});
