/**
 * bench:notify — notifications out, through the real notifier (src/integrations/notifier.ts) on
 * the embedded Neo4j to a webhook receiver on 127.0.0.1 (node:http, in this process), signed as
 * in production.
 *
 * - Queued: 10,000 `approval.requested` feed entries are appended (500 per transaction) while the
 *   target's notifier is not running, then it starts and drains them. Measured twice in the same
 *   run: with the cursor written after every delivery (`cursorEvery: 1`, as the notifier did) and
 *   as it is now (once per 50 deliveries and at the end of each batch). Per event: feed append
 *   (its transaction's commit) → receipt at the receiver, p50/p99; throughput over the drain;
 *   Neo4j statements the notifier ran per event; every event must arrive exactly once, in order.
 * - Live: 300 entries appended one at a time, 20 ms apart, to a running, caught-up notifier:
 *   change → receiver p50/p99, polling the feed every second (as it did) vs woken by the feed
 *   tail's bus as `aitia serve` runs it now (the tail reads the store every 250 ms).
 *
 * Ends with `RESULT notify p50_ms=… p99_ms=… per_s=… events=10000 …` (the queued drain as it is
 * now). Options (environment): NEO4J_URI to use an existing Neo4j; AITIA_BENCH_EVENTS (10000).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Driver } from 'neo4j-driver';
import { appendFeedTx, type FeedAppend } from '../src/graph/feed.js';
import { ensureNotificationCursor } from '../src/graph/notifications.js';
import type { NotificationTarget } from '../src/integrations/integrations-file.js';
import { startNotifier } from '../src/integrations/notifier.js';
import { verifyWebhook } from '../src/integrations/webhook-message.js';
import { createLogger } from '../src/log.js';
import { createFeedBus, startFeedTail } from '../src/pipeline/bus.js';
import { benchNeo4j, fmt, percentile } from './support.js';

const EVENTS = Number(process.env.AITIA_BENCH_EVENTS ?? 10_000);
const LIVE = 300;
const APPEND_BATCH = 500;
const DRAIN_LIMIT_MS = 600_000;
const SECRET = 'bench-notify-secret-0123456789';
const run = `bench-notify-${Date.now()}`;
const log = createLogger('silent');

const neo = await benchNeo4j();
console.log(`bench:notify — Neo4j ${neo.via}; ${EVENTS} queued events per mode, ${LIVE} live`);

// The receiver: receipt time by idempotency key, the order each target's keys came in, and a
// signature check on a sample (what a real receiver does; a bad one is counted).
const received = new Map<string, number>();
const order = new Map<string, number[]>();
let badSignatures = 0;
let checked = 0;
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = performance.now();
    const body = Buffer.concat(chunks).toString('utf8');
    const key = String(req.headers['idempotency-key']);
    if (checked++ % 100 === 0) {
      const ok = verifyWebhook(
        SECRET,
        {
          timestamp: req.headers['x-aitia-timestamp'] as string,
          signature: req.headers['x-aitia-signature'] as string,
        },
        body,
        Date.now(),
      );
      if (!ok) badSignatures++;
    }
    const [target, seq] = [key.slice(0, key.lastIndexOf(':')), Number(key.slice(key.lastIndexOf(':') + 1))];
    if (!received.has(key)) received.set(key, at);
    const seen = order.get(target) ?? [];
    seen.push(seq);
    order.set(target, seen);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

/** The driver the notifier uses, counting its statements. */
function counting(driver: Driver): { driver: Driver; statements: () => number } {
  let n = 0;
  const wrapped = new Proxy(driver, {
    get(target, prop) {
      if (prop === 'executeQuery')
        return (...args: Parameters<Driver['executeQuery']>) => {
          n++;
          return target.executeQuery(...args);
        };
      const v = Reflect.get(target, prop) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { driver: wrapped, statements: () => n };
}

const targetOf = (name: string): NotificationTarget => ({
  name,
  kind: 'webhook',
  url,
  secret: SECRET,
  events: ['approval.requested'],
});

const entry = (resource: string, i: number): FeedAppend => ({
  topic: 'approval',
  resourceId: resource,
  change: 'requested',
  at: new Date().toISOString(),
  payload: {
    approval: {
      id: `${resource}-a${i}`,
      status: 'pending',
      action: 'restart',
      targetId: resource,
      targetName: `web${i % 100}`,
      requester: 'agent',
      reason: 'the web tier is wedged; restart it',
      riskClass: 'medium',
      requestedAt: new Date().toISOString(),
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    },
    actor: 'agent',
    redeem: null,
  },
});

/** Appends entries in transactions of `APPEND_BATCH`; the commit time of each sequence. */
async function append(rows: FeedAppend[], appendedAt: Map<number, number>): Promise<void> {
  for (let i = 0; i < rows.length; i += APPEND_BATCH) {
    const session = neo.driver.session();
    try {
      const fed = await session.executeWrite((tx) => appendFeedTx(tx, rows.slice(i, i + APPEND_BATCH)));
      const at = performance.now();
      for (const f of fed) appendedAt.set(f.seq, at);
    } finally {
      await session.close();
    }
  }
}

async function until(what: string, limitMs: number, probe: () => boolean): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`bench:notify: ${what} not within ${limitMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Measured {
  p50: number;
  p99: number;
  perS: number;
  statementsPerEvent: number;
  drainMs: number;
  duplicates: number;
  inOrder: boolean;
}

function measure(name: string, appendedAt: Map<number, number>, startedAt: number, statements: number): Measured {
  const latencies: number[] = [];
  let last = startedAt;
  for (const [seq, at] of appendedAt) {
    const got = received.get(`${name}:${seq}`)!;
    latencies.push(got - at);
    last = Math.max(last, got);
  }
  const seen = order.get(name) ?? [];
  const drainMs = last - startedAt;
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    perS: (appendedAt.size / drainMs) * 1000,
    statementsPerEvent: statements / appendedAt.size,
    drainMs,
    duplicates: seen.length - new Set(seen).size,
    inOrder: seen.every((s, i) => i === 0 || s > seen[i - 1]!),
  };
}

/** 10,000 entries queued, then one notifier drains them. */
async function queued(mode: string, cursorEvery: number, events = EVENTS): Promise<Measured> {
  const name = `${run}-${mode}`;
  const resource = `manual:vm/${name}`;
  await ensureNotificationCursor(neo.driver, name);
  const appendedAt = new Map<number, number>();
  await append(
    Array.from({ length: events }, (_, i) => entry(resource, i)),
    appendedAt,
  );
  const counted = counting(neo.driver);
  const startedAt = performance.now();
  const notifier = startNotifier({
    driver: counted.driver,
    targets: [targetOf(name)],
    publicUrl: url,
    log,
    cursorEvery,
  });
  try {
    await until(`${mode}: ${events} deliveries`, DRAIN_LIMIT_MS, () =>
      [...appendedAt.keys()].every((s) => received.has(`${name}:${s}`)),
    );
  } finally {
    await notifier.stop();
  }
  return measure(name, appendedAt, startedAt, counted.statements());
}

/** A caught-up notifier, entries appended one at a time; `woken`: by a feed tail, as serve runs it. */
async function live(mode: string, woken: boolean): Promise<Measured> {
  const name = `${run}-live-${mode}`;
  const resource = `manual:vm/${name}`;
  await ensureNotificationCursor(neo.driver, name);
  const counted = counting(neo.driver);
  const bus = createFeedBus();
  const tail = woken ? startFeedTail(neo.driver, bus) : null;
  const startedAt = performance.now();
  const notifier = startNotifier({
    driver: counted.driver,
    targets: [targetOf(name)],
    publicUrl: url,
    log,
    wake: woken ? bus : undefined,
  });
  const appendedAt = new Map<number, number>();
  try {
    for (let i = 0; i < LIVE; i++) {
      await append([entry(resource, i)], appendedAt);
      await new Promise((r) => setTimeout(r, 20));
    }
    await until(`live: ${LIVE} deliveries`, 60_000, () =>
      [...appendedAt.keys()].every((s) => received.has(`${name}:${s}`)),
    );
  } finally {
    await notifier.stop();
    await tail?.stop();
  }
  return measure(name, appendedAt, startedAt, counted.statements());
}

const row = (label: string, m: Measured) =>
  `  ${label.padEnd(34)} p50 ${fmt(m.p50, 0).padStart(7)} ms  p99 ${fmt(m.p99, 0).padStart(7)} ms  ` +
  `${fmt(m.perS, 0).padStart(6)} events/s  ${fmt(m.statementsPerEvent, 3)} statements/event  ` +
  `duplicates ${m.duplicates}  in order ${m.inOrder ? 'yes' : 'NO'}`;

let exit = 0;
try {
  // Warm-up (JIT, Neo4j's plans), not reported.
  await queued('warmup', 50, 1000);
  const before = await queued('per-event-cursor', 1);
  const now = await queued('batched-cursor', 50);
  const polled = await live('polled', false);
  const steady = await live('woken', true);
  console.log(
    `\nqueued: ${EVENTS} events appended, then drained (latency = append commit → receipt, so it includes the wait in the queue)`,
  );
  console.log(row('cursor written per delivery (before)', before));
  console.log(row('cursor written per 50 (now)', now));
  console.log(
    `  → ${fmt(now.perS / before.perS, 2)}× the throughput; drain ${fmt(before.drainMs / 1000, 1)} s → ${fmt(now.drainMs / 1000, 1)} s`,
  );
  console.log(`\nlive: ${LIVE} events appended 20 ms apart to a caught-up notifier, change → receiver`);
  console.log(row('polling every 1 s (before)', polled));
  console.log(row('woken by the feed tail (now)', steady));
  console.log(`\nsignatures checked on a sample: ${checked > 0 ? Math.ceil(checked / 100) : 0}, bad: ${badSignatures}`);
  const ok = [before, now, polled, steady].every((m) => m.duplicates === 0 && m.inOrder) && badSignatures === 0;
  if (!ok) exit = 1;
  console.log(
    `RESULT notify p50_ms=${fmt(now.p50, 0)} p99_ms=${fmt(now.p99, 0)} per_s=${fmt(now.perS, 0)} events=${EVENTS} ` +
      `before_per_s=${fmt(before.perS, 0)} before_p50_ms=${fmt(before.p50, 0)} before_p99_ms=${fmt(before.p99, 0)} ` +
      `statements_per_event=${fmt(now.statementsPerEvent, 3)} before_statements_per_event=${fmt(before.statementsPerEvent, 3)} ` +
      `live_p50_ms=${fmt(steady.p50, 0)} live_p99_ms=${fmt(steady.p99, 0)} ` +
      `live_polled_p50_ms=${fmt(polled.p50, 0)} live_polled_p99_ms=${fmt(polled.p99, 0)} exactly_once_in_order=${ok ? 'yes' : 'no'}`,
  );
} catch (err) {
  console.error(err);
  exit = 1;
} finally {
  server.closeAllConnections();
  server.close();
  // What this run left (with NEO4J_URI the graph outlives it), in auto-committed batches.
  const session = neo.driver.session();
  await session
    .run(
      `MATCH (n) WHERE (n:NotificationCursor AND n.target STARTS WITH $run) OR (n:FeedEntry AND n.resourceId STARTS WITH $rid)
       CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS`,
      { run, rid: `manual:vm/${run}` },
    )
    .catch(() => undefined)
    .finally(() => session.close());
  await neo.stop();
}
process.exit(exit);
