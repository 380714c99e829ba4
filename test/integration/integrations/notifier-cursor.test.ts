import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { appendFeedTx } from '../../../src/graph/feed.js';
import { ensureNotificationCursor } from '../../../src/graph/notifications.js';
import type { NotificationTarget } from '../../../src/integrations/integrations-file.js';
import { startNotifier } from '../../../src/integrations/notifier.js';
import { createLogger } from '../../../src/log.js';
import { createFeedBus, startFeedTail } from '../../../src/pipeline/bus.js';
import { useGraph } from '../../support/graph.js';
import { until } from '../../support/until.js';

/**
 * The notifier writes a target's cursor once per `cursorEvery` deliveries, not after each one
 * (bench:notify: one Neo4j write per event was its bottleneck), yet what was delivered is recorded
 * at the end of a batch, before a retry's wait and on stop: a notifier started again sends nothing
 * twice, and a receiver going down leaves the cursor at the last delivery. A caught-up notifier
 * given the feed tail's bus (as aitia serve runs it) is woken by a new entry, not its next poll.
 */
const { driver, scope } = useGraph();
const log = createLogger(process.env.AITIA_TEST_LOG ?? 'silent');
const resource = `manual:vm/cursor-${scope}`;

afterAll(async () => {
  await driver.executeQuery(
    `MATCH (n) WHERE (n:NotificationCursor AND n.target CONTAINS $scope) OR (n:FeedEntry AND n.resourceId = $rid)
     DETACH DELETE n`,
    { scope, rid: resource },
  );
});

async function receiver(status: (n: number) => number) {
  const accepted: string[] = [];
  let tries = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const code = status(++tries);
      if (code < 300) accepted.push(String(req.headers['idempotency-key']));
      res.writeHead(code).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    accepted,
    tries: () => tries,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

const target = (name: string, url: string): NotificationTarget => ({
  name: `${name}-${scope}`,
  kind: 'webhook',
  url,
  secret: `secret-${scope}-0123456789`,
  events: ['approval.requested'],
});

async function append(n: number): Promise<number[]> {
  const session = driver.session();
  try {
    const rows = Array.from({ length: n }, (_, i) => ({
      topic: 'approval' as const,
      resourceId: resource,
      change: 'requested',
      at: new Date().toISOString(),
      payload: { approval: { id: `a-${scope}-${i}`, targetId: resource }, actor: 'agent', redeem: null },
    }));
    return (await session.executeWrite((tx) => appendFeedTx(tx, rows))).map((f) => f.seq);
  } finally {
    await session.close();
  }
}

const cursorOf = async (name: string) =>
  Number(
    (
      await driver.executeQuery('MATCH (c:NotificationCursor {target: $t}) RETURN c.seq AS s', { t: name })
    ).records[0]?.get('s'),
  );

describe('the notifier’s cursor', () => {
  it('written per 50, yet a notifier started again sends none of 120 twice', async () => {
    const rx = await receiver(() => 200);
    const t = target('batched', rx.url);
    await ensureNotificationCursor(driver, t.name);
    const seqs = await append(120);
    // Batches of 30 read at a time: the cursor is written at each batch's end and every 50.
    const first = startNotifier({
      driver,
      targets: [t],
      publicUrl: rx.url,
      log,
      pollMs: 50,
      batch: 30,
      cursorEvery: 50,
    });
    await until('120 deliveries', 30_000, () => rx.accepted.length === 120);
    await first.stop();
    expect(await cursorOf(t.name)).toBe(seqs.at(-1));
    const again = startNotifier({ driver, targets: [t], publicUrl: rx.url, log, pollMs: 50, cursorEvery: 50 });
    const more = await append(1);
    await until('the next one', 30_000, () => rx.accepted.length === 121);
    await again.stop();
    expect(rx.accepted).toEqual([...seqs, ...more].map((s) => `${t.name}:${s}`));
    await rx.close();
  });

  it('a receiver going down: what was delivered is recorded before the retry’s wait', async () => {
    const rx = await receiver((n) => (n <= 7 ? 200 : 503));
    const t = target('down', rx.url);
    await ensureNotificationCursor(driver, t.name);
    const seqs = await append(20);
    const notifier = startNotifier({
      driver,
      targets: [t],
      publicUrl: rx.url,
      log,
      pollMs: 50,
      cursorEvery: 50,
      retry: { baseMs: 200, capMs: 400, budget: 1000 },
    });
    try {
      await until('a retry', 30_000, () => rx.tries() >= 9);
      // Seven delivered, the eighth failing and retried: the cursor holds the seventh.
      expect(await cursorOf(t.name)).toBe(seqs[6]);
    } finally {
      await notifier.stop();
      await rx.close();
    }
    expect(await cursorOf(t.name)).toBe(seqs[6]);
  });

  it('woken by the feed tail: a new entry is delivered long before the next poll', async () => {
    const rx = await receiver(() => 200);
    const t = target('woken', rx.url);
    const bus = createFeedBus();
    const tail = startFeedTail(driver, bus, { intervalMs: 100 });
    // A poll an hour apart: only a wake-up can deliver within the wait below.
    const notifier = startNotifier({ driver, targets: [t], publicUrl: rx.url, log, pollMs: 3_600_000, wake: bus });
    try {
      await until('the cursor', 30_000, async () => !Number.isNaN(await cursorOf(t.name)));
      const [seq] = await append(1);
      await until('the woken delivery', 20_000, () => rx.accepted.length === 1);
      expect(rx.accepted).toEqual([`${t.name}:${seq}`]);
    } finally {
      await notifier.stop();
      await tail.stop();
      await rx.close();
    }
  });
});
