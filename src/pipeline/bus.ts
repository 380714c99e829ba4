import { createPubSub, type PubSubEventTarget, SlidingBuffer } from 'graphql-yoga';
import type { Driver } from 'neo4j-driver';
import { latestFeedSeq, readFeed } from '../graph/feed.js';
import type { FeedEntry, FeedTopic } from '../model/index.js';

/** Topics of the feed bus and what each carries. */
type FeedTopics = { feed: [FeedEntry] };

/**
 * The in-process bus between the feed (every change stored with its sequence: transitions,
 * conditions, health) and the API's subscribers. Entries reach it from the store, never from the
 * writer directly, so subscribers see one order whoever wrote and whichever process serves them.
 */
export interface FeedBus {
  publish(entry: FeedEntry): void;
  /** Every entry published from now on, until the iterator is returned. */
  subscribe(): AsyncIterableIterator<FeedEntry>;
}

/**
 * A bus on graphql-yoga's createPubSub over one shared event target. Each subscriber gets its own
 * sliding buffer: a slow one drops its oldest undelivered entries instead of overflowing (it can
 * catch up from the store with `since`). One per process, created at start and passed to the
 * feed tail and the API; never a singleton.
 */
export function createFeedBus(): FeedBus {
  const target = new EventTarget() as unknown as PubSubEventTarget<FeedTopics>;
  const publisher = createPubSub<FeedTopics>({ eventTarget: target });
  return {
    publish: (entry) => publisher.publish('feed', entry),
    subscribe: () =>
      createPubSub<FeedTopics>({ eventTarget: target, repeaterBuffer: new SlidingBuffer(1024) }).subscribe(
        'feed',
      ) as AsyncIterableIterator<FeedEntry>,
  };
}

/** How long stop() waits for a read in flight. */
const STOP_GRACE_MS = 1000;

/** A running tail of the feed store. */
export interface FeedTail {
  /** Ends the tail: nothing is published after it resolves. */
  stop(): Promise<void>;
}

/**
 * Reads new feed entries from the store every `intervalMs` and publishes them in sequence order,
 * starting after the newest entry at start (history is for `since`). A read that fails (Neo4j
 * away) is logged and retried at the next interval from the same position: nothing is skipped.
 */
export function startFeedTail(
  driver: Driver,
  bus: FeedBus,
  options: { intervalMs?: number; batch?: number; onError?: (err: unknown) => void } = {},
): FeedTail {
  const intervalMs = options.intervalMs ?? 250;
  const batch = options.batch ?? 1000;
  let stopped = false;
  let wake: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  let position: number | null = null;
  const loop = (async () => {
    while (!stopped) {
      try {
        position ??= await latestFeedSeq(driver);
        for (;;) {
          const entries = await readFeed(driver, { afterSeq: position, limit: batch });
          if (stopped) break;
          for (const e of entries) bus.publish(e);
          if (entries.length > 0) position = entries[entries.length - 1]!.seq;
          if (entries.length < batch) break;
        }
      } catch (err) {
        if (!stopped) options.onError?.(err);
      }
      if (!stopped) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, intervalMs);
        });
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      // Clearing the timer alone would leave the sleep pending forever; end it.
      if (timer) clearTimeout(timer);
      wake?.();
      // A read in flight may be retried by the driver for 30 s when Neo4j is away: abandon it (its
      // result is dropped) rather than hold up shutdown.
      await Promise.race([loop, new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref())]);
    },
  };
}

/**
 * The entries a subscriber asked for: first those stored after `since` (a reconnecting client's
 * last sequence), then live ones, each once, in sequence order, filtered by topic and resource.
 * Subscribes to the bus before reading the store, so nothing published meanwhile is lost.
 * `return()` ends the bus subscription at once: a generator's own return would wait for the
 * entry it is awaiting, so an ended stream held its listener until the bus next published.
 */
export function feedFrom(
  driver: Driver,
  bus: FeedBus,
  query: { topics: readonly FeedTopic[]; resourceId: string | null; since: number | null },
): AsyncIterableIterator<FeedEntry> {
  const live = bus.subscribe();
  const entries = entriesFrom(driver, live, query);
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next: () => entries.next(),
    async return(value?: unknown) {
      // Ending the bus's iterator settles a pending live step with done; the generator then ends.
      await live.return?.();
      return entries.return(value as undefined);
    },
    async throw(err?: unknown) {
      await live.return?.();
      return entries.throw(err);
    },
  };
}

async function* entriesFrom(
  driver: Driver,
  live: AsyncIterableIterator<FeedEntry>,
  query: { topics: readonly FeedTopic[]; resourceId: string | null; since: number | null },
): AsyncGenerator<FeedEntry> {
  const wanted = (e: FeedEntry) =>
    query.topics.includes(e.topic) && (query.resourceId === null || e.resourceId === query.resourceId);
  try {
    let last = query.since;
    if (last !== null) {
      for (;;) {
        const page = await readFeed(driver, {
          afterSeq: last,
          limit: 500,
          topics: query.topics,
          resourceId: query.resourceId,
        });
        for (const e of page) yield e;
        if (page.length > 0) last = page[page.length - 1]!.seq;
        if (page.length < 500) break;
      }
    }
    for await (const e of live) {
      if (last !== null && e.seq <= last) continue;
      if (wanted(e)) yield e;
    }
  } finally {
    await live.return?.();
  }
}
