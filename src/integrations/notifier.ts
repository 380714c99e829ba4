import type { Driver } from 'neo4j-driver';
import { readFeed } from '../graph/feed.js';
import {
  advanceNotificationCursor,
  ensureNotificationCursor,
  listNotificationDeliveries,
  recordDeadLetter,
  settleNotificationReplay,
} from '../graph/notifications.js';
import type { Logger } from '../log.js';
import { backoffMs, DEFAULT_RETRY, retryLeft, type RetryPolicy } from './backoff.js';
import type { NotificationTarget } from './integrations-file.js';
import { notificationOf, type NotificationMessage } from './notification-events.js';
import { sendNotification } from './send.js';
import { idempotencyKey } from './webhook-message.js';

/**
 * Delivery from the stored feed, one loop per target: read the entries after the target's cursor
 * in order, deliver each the target wants, and move the cursor only after a 2xx (an entry it does
 * not want is passed over). A failure is retried with full-jitter backoff; after the retry budget
 * the delivery is a dead letter (kept with its message, the cursor moved past it) and the loop goes
 * on. A target's deliveries are one at a time, so each arrives in feed order. The cursor is written
 * once per `cursorEvery` deliveries (and at the end of each batch, before a retry's wait, and on
 * stop), not once per delivery: one Neo4j write per event held a queued feed to the speed of that
 * round trip (npm run bench:notify compares the two). A crash after a 2xx and before the cursor's
 * write sends those again — at most `cursorEvery` — which at-least-once allows: receivers drop a
 * repeat by its Idempotency-Key. Queued replays are sent first, once each. Run under the leader's lease
 * (src/integrations/notifications-loop.ts), so the driver here is fenced.
 */

export interface NotifierOptions {
  driver: Driver;
  targets: readonly NotificationTarget[];
  publicUrl: string;
  log: Logger;
  retry?: RetryPolicy;
  /** Milliseconds between looks at the feed once caught up. */
  pollMs?: number;
  /**
   * New feed entries as this process's feed tail publishes them (the bus of src/pipeline/bus.ts):
   * each wakes a caught-up loop at once instead of at its next poll. Never a retry's wait.
   */
  wake?: { subscribe(): AsyncIterableIterator<unknown> };
  timeoutMs?: number;
  /** Feed entries read at a time. */
  batch?: number;
  /** Deliveries between cursor writes (1: after every delivery); default 50. */
  cursorEvery?: number;
  random?: () => number;
}

type Outcome = { ok: true } | { ok: false; error: string; attempts: number } | { stopped: true };

export function startNotifier(o: NotifierOptions): { stop(): Promise<void> } {
  const retry = o.retry ?? DEFAULT_RETRY;
  const pollMs = o.pollMs ?? 1000;
  const timeoutMs = o.timeoutMs ?? 10_000;
  const batch = o.batch ?? 200;
  const cursorEvery = Math.max(1, o.cursorEvery ?? 50);
  let stopped = false;
  const sleepers = new Set<() => void>();
  // The caught-up loops' polls: what a new feed entry cuts short.
  const idle = new Set<() => void>();
  const sleep = (ms: number, idling = false) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        sleepers.delete(wake);
        idle.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      sleepers.add(wake);
      if (idling) idle.add(wake);
    });
  // Counts wake-ups: a loop that was mid-pass when one came looks again instead of sleeping.
  let signals = 0;
  const woken = o.wake?.subscribe();
  const listening = (async () => {
    if (!woken) return;
    for (;;) {
      const step = await woken.next();
      if (step.done || stopped) return;
      signals++;
      for (const wake of [...idle]) wake();
    }
  })().catch((err: unknown) => o.log.warn({ err }, 'notification: feed wake-ups ended; polling'));

  const attempt = async (t: NotificationTarget, m: NotificationMessage): Promise<string | null> => {
    try {
      const answer = await sendNotification(t, m, { publicUrl: o.publicUrl, timeoutMs });
      if (answer.status >= 200 && answer.status < 300) return null;
      return `HTTP ${answer.status}: ${answer.body.slice(0, 200)}`;
    } catch (err) {
      return (err as Error).message;
    }
  };

  const deliver = async (
    t: NotificationTarget,
    m: NotificationMessage,
    beforeWait: () => Promise<void>,
  ): Promise<Outcome> => {
    for (let attempts = 1; ; attempts++) {
      if (stopped) return { stopped: true };
      const error = await attempt(t, m);
      if (error === null) return { ok: true };
      if (!retryLeft(retry, attempts)) return { ok: false, error, attempts };
      // What was delivered before this one is recorded before waiting (a long outage, a restart).
      if (attempts === 1) await beforeWait();
      const wait = backoffMs(retry, attempts, o.random);
      o.log.warn(
        { target: t.name, seq: m.seq, event: m.event, attempts, error, retryInMs: wait },
        'notification: retrying',
      );
      await sleep(wait);
    }
  };

  const replays = async (t: NotificationTarget) => {
    const queued = await listNotificationDeliveries(o.driver, { target: t.name, status: 'queued', limit: 100 });
    for (const d of queued) {
      if (stopped) return;
      const m = d.message as NotificationMessage | null;
      const error = m ? await attempt(t, m) : 'the stored message is unreadable';
      const at = new Date().toISOString();
      await settleNotificationReplay(o.driver, d.id, error === null ? { ok: true, at } : { ok: false, at, error });
      o.log.info({ target: t.name, id: d.id, delivered: error === null, error }, 'notification: replay');
    }
  };

  /** One pass over the feed for a target; true when it read a full batch (more may wait). */
  const pass = async (t: NotificationTarget): Promise<boolean> => {
    await replays(t);
    const cursor = await ensureNotificationCursor(o.driver, t.name);
    const entries = await readFeed(o.driver, { afterSeq: cursor, limit: batch });
    // `passed`: handled (delivered, dead-lettered or not wanted); `written`: what the cursor holds.
    let passed = cursor;
    let written = cursor;
    let unwritten = 0;
    const flush = async () => {
      if (passed > written) await advanceNotificationCursor(o.driver, t.name, passed);
      written = passed;
      unwritten = 0;
    };
    try {
      for (const e of entries) {
        const m = notificationOf(e);
        if (!m || !t.events.includes(m.event)) {
          passed = e.seq;
          continue;
        }
        const outcome = await deliver(t, m, flush);
        if ('stopped' in outcome) return false;
        if (!outcome.ok) {
          const id = idempotencyKey(t.name, m.seq);
          // Moves the cursor past it in its own transaction.
          await recordDeadLetter(o.driver, {
            id,
            target: t.name,
            seq: m.seq,
            event: m.event,
            resourceId: m.resourceId,
            message: m,
            attempts: outcome.attempts,
            lastError: outcome.error,
            at: new Date().toISOString(),
          });
          o.log.error({ target: t.name, id, event: m.event, error: outcome.error }, 'notification: dead letter');
          written = passed = e.seq;
          unwritten = 0;
          continue;
        }
        passed = e.seq;
        if (++unwritten >= cursorEvery) await flush();
      }
    } finally {
      // Stopped, failed or done: what was delivered is recorded (a failed write is retried next pass).
      await flush().catch((err: unknown) => o.log.warn({ err, target: t.name }, 'notification: cursor not written'));
    }
    return entries.length === batch;
  };

  const run = async (t: NotificationTarget) => {
    while (!stopped) {
      let more: boolean;
      const seen = signals;
      try {
        more = await pass(t);
      } catch (err) {
        o.log.warn({ err, target: t.name }, 'notification: pass failed; trying again');
        await sleep(pollMs);
        continue;
      }
      if (!more && !stopped && seen === signals) await sleep(pollMs, true);
    }
  };

  const loops = o.targets.map(run);
  return {
    async stop() {
      stopped = true;
      for (const wake of [...sleepers]) wake();
      await woken?.return?.();
      await Promise.all([...loops, listening]);
    },
  };
}
