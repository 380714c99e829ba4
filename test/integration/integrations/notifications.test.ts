import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { claimLease, releaseLease } from '../../../src/graph/db/leases.js';
import { appendFeedTx } from '../../../src/graph/feed.js';
import { listNotificationDeliveries, queueNotificationReplay } from '../../../src/graph/notifications.js';
import type { NotificationTarget } from '../../../src/integrations/integrations-file.js';
import { NOTIFIER_LEASE, startNotifications } from '../../../src/integrations/notifications-loop.js';
import { startNotifier } from '../../../src/integrations/notifier.js';
import { verifyWebhook } from '../../../src/integrations/webhook-message.js';
import { createLogger } from '../../../src/log.js';
import { useGraph } from '../../support/graph.js';

/**
 * Notifications out, from the stored feed to a real HTTP receiver this file starts on 127.0.0.1
 * (node:http recording each request as it arrived). The feed is shared with other test files, so
 * every assertion looks only at this file's resources (their ids carry the scope).
 */
const { driver, scope } = useGraph();
const log = createLogger(process.env.AITIA_TEST_LOG ?? 'silent');
const SECRET = `secret-${scope}-0123456789`;
const rid = (name: string) => `manual:vm/${name}-${scope}`;

afterAll(async () => {
  await driver.executeQuery(
    `MATCH (n) WHERE (n:NotificationCursor AND n.target CONTAINS $scope) OR (n:FeedEntry AND n.resourceId CONTAINS $scope)
       OR ((n:Lease OR n:LeaseFence) AND n.name = $lease) DETACH DELETE n`,
    { scope, lease: NOTIFIER_LEASE },
  );
});

interface Arrival {
  headers: IncomingMessage['headers'];
  body: string;
  json: { id: string; event: string; at: string; resource: string; payload: Record<string, unknown> };
}

/** A receiver that answers `status()` and records what it accepted (2xx) — ours only. */
async function receiver(status: () => number = () => 200, port = 0) {
  const accepted: Arrival[] = [];
  let tries = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const json = JSON.parse(body) as Arrival['json'];
      const code = status();
      if (json.resource?.includes(scope)) {
        tries++;
        if (code < 300) accepted.push({ headers: req.headers, body, json });
      }
      res.writeHead(code, { 'content-type': 'text/plain' }).end(code < 300 ? 'ok' : 'not now');
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  const bound = (server.address() as AddressInfo).port;
  return {
    accepted,
    tries: () => tries,
    port: bound,
    url: `http://127.0.0.1:${bound}/hook`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const target = (name: string, url: string): NotificationTarget => ({
  name: `${name}-${scope}`,
  kind: 'webhook',
  url,
  secret: SECRET,
  events: ['approval.requested', 'condition.opened', 'transition.unexplained'],
});

/** Appends approval requests for these resources, one feed entry each, in this order. */
async function requestApprovals(resources: string[]): Promise<number[]> {
  const session = driver.session();
  try {
    const fed = await session.executeWrite((tx) =>
      appendFeedTx(
        tx,
        resources.map((r, i) => ({
          topic: 'approval' as const,
          resourceId: r,
          change: 'requested',
          at: new Date().toISOString(),
          payload: {
            approval: { id: `a-${scope}-${i}`, action: 'vm.stop', targetId: r, targetName: r, requester: 'agent' },
            actor: 'agent',
            redeem: null,
          },
        })),
      ),
    );
    return fed.map((f) => f.seq);
  } finally {
    await session.close();
  }
}

const until = async (what: string, ms: number, probe: () => boolean | Promise<boolean>) => {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};
const fast = { baseMs: 20, capMs: 200, budget: 10_000 };

/** A notifier for one target, returned once it has placed its cursor (so later entries are its to deliver). */
async function startedNotifier(t: NotificationTarget, retry: { baseMs: number; capMs: number; budget: number } = fast) {
  const notifier = startNotifier({ driver, targets: [t], publicUrl: 'http://127.0.0.1:4000', log, pollMs: 50, retry });
  try {
    await until(
      'the cursor',
      5000,
      async () =>
        (await driver.executeQuery('MATCH (c:NotificationCursor {target: $t}) RETURN c', { t: t.name })).records
          .length > 0,
    );
  } catch (err) {
    await notifier.stop();
    throw err;
  }
  return notifier;
}

describe('notifications out', () => {
  it('a webhook gets a signed JSON body whose id is the Idempotency-Key; the signature verifies and the timestamp is present', async () => {
    const rx = await receiver();
    const t = target('signed', rx.url);
    const notifier = await startedNotifier(t);
    try {
      const [seq] = await requestApprovals([rid('web01')]);
      await until('the delivery', 10_000, () => rx.accepted.length === 1);
      const got = rx.accepted[0]!;
      expect(got.headers['x-aitia-timestamp']).toMatch(/^\d+$/);
      expect(Math.abs(Number(got.headers['x-aitia-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      expect(
        verifyWebhook(
          SECRET,
          {
            timestamp: got.headers['x-aitia-timestamp'] as string,
            signature: got.headers['x-aitia-signature'] as string,
          },
          got.body,
          Date.now(),
        ),
      ).toBe(true);
      expect(
        verifyWebhook(
          'another-secret-0123456789',
          {
            timestamp: got.headers['x-aitia-timestamp'] as string,
            signature: got.headers['x-aitia-signature'] as string,
          },
          got.body,
          Date.now(),
        ),
      ).toBe(false);
      expect(got.json).toMatchObject({ id: `${t.name}:${seq}`, event: 'approval.requested', resource: rid('web01') });
      expect(got.headers['idempotency-key']).toBe(got.json.id);
      // ISO-8601 UTC; a whole second is written without its fraction (isoUtcOf), 1 time in 1,000.
      expect(got.json.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/);
      expect(Math.abs(Date.parse(got.json.at) - Date.now())).toBeLessThan(60_000);
    } finally {
      await notifier.stop();
      await rx.close();
    }
  });

  it('receiver down for a while: afterwards every event arrives exactly once per idempotency key, in order per resource', async () => {
    const rx = await receiver();
    const t = target('outage', rx.url);
    const notifier = await startedNotifier(t);
    try {
      await rx.close(); // down: the port refuses connections
      const order = [rid('a'), rid('b'), rid('a'), rid('b'), rid('a'), rid('c')];
      const seqs = await requestApprovals(order);
      await new Promise((r) => setTimeout(r, 800)); // retried while down
      const back = await receiver(() => 200, rx.port);
      try {
        await until('every delivery', 15_000, () => back.accepted.length >= order.length);
        await new Promise((r) => setTimeout(r, 300)); // nothing more arrives
        const ids = back.accepted.map((a) => a.json.id);
        expect(ids).toEqual(seqs.map((s) => `${t.name}:${s}`));
        expect(new Set(ids).size).toBe(order.length);
        for (const r of new Set(order)) {
          const perResource = back.accepted
            .filter((a) => a.json.resource === r)
            .map((a) => Number(a.json.id.split(':').pop()));
          expect(perResource).toEqual([...perResource].sort((x, y) => x - y));
        }
      } finally {
        await back.close();
      }
    } finally {
      await notifier.stop();
    }
  });

  it('after the retry budget a dead letter is kept, listed and replayed by the notifier, with the same idempotency key', async () => {
    let code = 500;
    const rx = await receiver(() => code);
    const t = target('dead', rx.url);
    const notifier = await startedNotifier(t, { baseMs: 5, capMs: 20, budget: 3 });
    try {
      const [seq, next] = await requestApprovals([rid('db01'), rid('db02')]);
      // Other files' entries reach this target too: only this file's resources are looked at.
      const dead = async () =>
        (await listNotificationDeliveries(driver, { target: t.name, status: 'dead', limit: 500 })).filter((d) =>
          d.resourceId.includes(scope),
        );
      await until('two dead letters', 10_000, async () => (await dead()).length === 2);
      const [first] = await dead();
      expect(first).toMatchObject({
        id: `${t.name}:${seq}`,
        target: t.name,
        seq,
        event: 'approval.requested',
        attempts: 3,
        resourceId: rid('db01'),
      });
      expect(first!.lastError).toMatch(/HTTP 500: not now/);
      expect(rx.tries()).toBe(6);
      code = 200;
      const queued = await queueNotificationReplay(driver, first!.id, `operator-${scope}`, new Date().toISOString());
      expect(queued).toMatchObject({ status: 'queued', replayRequestedBy: `operator-${scope}` });
      await until('the replay', 10_000, () => rx.accepted.length === 1);
      expect(rx.accepted[0]!.json.id).toBe(`${t.name}:${seq}`);
      expect(rx.accepted[0]!.headers['idempotency-key']).toBe(`${t.name}:${seq}`);
      await until(
        'replayed',
        5000,
        async () =>
          (await listNotificationDeliveries(driver, { target: t.name, status: 'replayed', limit: 500 })).length === 1,
      );
      expect((await dead()).map((d) => d.seq)).toEqual([next]);
      expect(await queueNotificationReplay(driver, `nothing-${scope}:1`, 'x', new Date().toISOString())).toBeNull();
    } finally {
      await notifier.stop();
      await rx.close();
    }
  });

  it('only the leader delivers: while another replica holds the notifier lease nothing is sent; once it gives it up, this one delivers', async () => {
    const rx = await receiver();
    const t = target('leader', rx.url);
    const other = `other-${scope}`;
    const held = await claimLease(driver, { name: NOTIFIER_LEASE, holder: other, seconds: 60 });
    expect(held.action).not.toBe('wait');
    // The cursor starts where the feed is, as the leader will find it.
    await driver.executeQuery(
      "OPTIONAL MATCH (f:FeedCounter {id: 'feed'}) MERGE (c:NotificationCursor {target: $t}) ON CREATE SET c.seq = coalesce(f.seq, 0)",
      { t: t.name },
    );
    const loop = startNotifications({
      driver,
      integrations: { notifications: [t], alertmanager: null, actors: [] },
      publicUrl: 'http://127.0.0.1:4000',
      lease: { holder: `me-${scope}`, seconds: 2 },
      log,
      tuning: { pollMs: 50, retry: fast },
    });
    try {
      const [seq] = await requestApprovals([rid('ha01')]);
      await new Promise((r) => setTimeout(r, 2000));
      expect(rx.accepted).toEqual([]);
      await releaseLease(driver, { lease: NOTIFIER_LEASE, holder: other, token: held.token });
      await until('the leader delivers', 10_000, () => rx.accepted.length === 1);
      expect(rx.accepted[0]!.json.id).toBe(`${t.name}:${seq}`);
    } finally {
      await loop.stop();
      await rx.close();
    }
  });
});
