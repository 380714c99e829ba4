import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFeed } from '../../src/graph/feed.js';
import { proxmoxSource } from '../../src/ingest/proxmox/source.js';
import { startNotifier } from '../../src/integrations/notifier.js';
import { signWebhook, verifyWebhook } from '../../src/integrations/webhook-message.js';
import { createLogger } from '../../src/log.js';
import { observe } from '../../src/pipeline/observe.js';
import { receiveAlerts } from '../../src/services/alerts.js';
import { alertmanagerOrSkip, type RunningAlertmanager, startAlertmanager } from '../support/alertmanager.js';
import { useGraph } from '../support/graph.js';
import { labRoutes, patchData, standinClient, withLabTasks } from '../support/proxmox-lab.js';
import { type ProxmoxStandin, type RouteTable, startProxmoxStandin } from '../support/proxmox-standin.js';
import { taskEntry, useEventCleanup } from '../support/proxmox-tasks.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { principalOf, serviceDeps } from '../support/services.js';
import { until } from '../support/until.js';

/**
 * Alert enrichment in, end to end on the real Alertmanager: Alertmanager's own webhook receiver
 * (configured as docs/notifications.md shows it, bearer token from a file) delivers the alerts
 * posted to it to aitia's POST /integrations/alertmanager; aitia maps each to the VM it names,
 * stores it on the feed with the incident context, and the notifier delivers `alert.received` to a
 * real HTTP receiver this file starts on 127.0.0.1 — "stopped by alice@pve" for alice's stop,
 * "cause unknown" for a stop nobody explains, `matched: false` for an instance aitia does not
 * hold. Then the receiver's refusals over the wire: a bad body, no credentials, a bad signature.
 */
const bin = alertmanagerOrSkip();
const { driver, scope } = useGraph();
useEventCleanup(driver, scope);
const log = createLogger(process.env.AITIA_TEST_LOG ?? 'silent');
const c = `lab-${scope}`;
const id = (g: string) => `proxmox:${c}/${g}`;
// Scoped names, so no other file's web01 makes the match ambiguous.
const NAMES: Record<string, string> = { 'qemu/101': `web01-${scope}`, 'qemu/130': `nested01-${scope}` };
const NODE: Record<string, string> = { 'qemu/101': 'pve1', 'qemu/130': 'pve3' };
const SECRET = `receiver-${scope}-0123456789`;
const TARGET_SECRET = `target-${scope}-0123456789`;

let am: RunningAlertmanager;
let standin: ProxmoxStandin;
let srv: TestServer;
let rx: { server: Server; url: string; got: Arrival[] };
let notifier: { stop(): Promise<void> } | null = null;
const tasks: Array<Record<string, unknown>> = [];
const stopped = new Set<string>();

interface Arrival {
  headers: IncomingMessage['headers'];
  body: string;
  json: { id: string; event: string; resource: string; payload: Record<string, any> };
}

function routes(): RouteTable {
  const patch: Record<string, Record<string, unknown>> = {};
  for (const g of Object.keys(NAMES)) patch[g] = { name: NAMES[g], ...(stopped.has(g) ? { status: 'stopped' } : {}) };
  const table = labRoutes(c, { patchListing: patch });
  for (const g of stopped)
    patchData(table, `GET /nodes/${NODE[g]}/${g}/status/current`, { status: 'stopped', qmpstatus: 'stopped' });
  withLabTasks(table, () => tasks);
  return table;
}

const ago = (s: number) => DateTime.utc().minus({ seconds: s }).toISO({ suppressMilliseconds: true })!;

async function stop(guest: string, by: string | null) {
  if (by)
    tasks.push(
      taskEntry({ node: NODE[guest]!, type: 'qmstop', id: guest.split('/')[1]!, user: by, start: ago(3), end: ago(2) }),
    );
  stopped.add(guest);
  standin.routes(routes());
  await observe({ driver, suppression: 'on' }, proxmoxSource(standinClient(standin)));
}

/** The notification target: records every alert.received naming this file's scope. */
async function receiver() {
  const got: Arrival[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (b: Buffer) => chunks.push(b));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const json = JSON.parse(body) as Arrival['json'];
      if (json.event === 'alert.received' && JSON.stringify(json.payload).includes(scope))
        got.push({ headers: req.headers, body, json });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got };
}

/** What the feed holds of alerts whose labels carry `marker`. */
async function storedWith(marker: string): Promise<number> {
  const { records } = await driver.executeQuery(
    "MATCH (f:FeedEntry {topic: 'alert'}) WHERE f.payload CONTAINS $m RETURN count(f) AS n",
    { m: marker },
  );
  return Number(records[0]!.get('n'));
}

beforeAll(async () => {
  if (!bin) return;
  srv = await startTestServer(driver, {
    tokenPrefix: scope,
    // No enrichment budget to race on this loaded machine (the budget's own case is below).
    http: { alertReceiver: { labels: { instance: '{name}' }, secret: SECRET, enrichBudgetMs: 600_000 } },
  });
  // Alertmanager's webhook receiver for aitia, as docs/notifications.md shows it.
  am = await startAlertmanager(bin, {
    config: (dir) => {
      writeFileSync(join(dir, 'aitia-token'), `${srv.tokens.ingester}\n`, { mode: 0o600 });
      return `route:
  receiver: aitia
  group_by: [alertname, instance]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 4h
receivers:
  - name: aitia
    webhook_configs:
      - url: ${srv.url}/integrations/alertmanager
        send_resolved: true
        http_config:
          authorization:
            type: Bearer
            credentials_file: ${join(dir, 'aitia-token')}
`;
    },
  });
  standin = await startProxmoxStandin();
  standin.routes(routes());
  await observe({ driver, suppression: 'on' }, proxmoxSource(standinClient(standin)));
  rx = await receiver();
  const target = {
    name: `alerts-${scope}`,
    kind: 'webhook' as const,
    url: rx.url,
    secret: TARGET_SECRET,
    events: ['alert.received' as const],
  };
  notifier = startNotifier({ driver, targets: [target], publicUrl: 'http://127.0.0.1:4000', log, pollMs: 100 });
  await until(
    'the cursor',
    10_000,
    async () =>
      (await driver.executeQuery('MATCH (c:NotificationCursor {target: $t}) RETURN c', { t: target.name })).records
        .length > 0,
  );
}, 180_000);

afterAll(async () => {
  await notifier?.stop();
  await new Promise<void>((r) => (rx ? rx.server.close(() => r()) : r()));
  await standin?.close();
  await am?.close();
  await srv?.close();
  await driver.executeQuery(
    `MATCH (n) WHERE (n:NotificationCursor AND n.target CONTAINS $scope) OR (n:FeedEntry AND n.payload CONTAINS $scope)
     DETACH DELETE n`,
    { scope },
  );
});

describe.skipIf(!bin)('alert enrichment in: Alertmanager → aitia → the notification target (real Alertmanager)', () => {
  it("alice's stop is explained, a stop nobody explains is 'cause unknown', an unknown instance arrives unmatched", async () => {
    await stop('qemu/101', 'alice@pve');
    await stop('qemu/130', null);
    const unknown = `nowhere-${scope}`;
    const post = await fetch(`${am.url}/api/v2/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(
        [NAMES['qemu/101']!, NAMES['qemu/130']!, unknown].map((instance) => ({
          labels: { alertname: 'InstanceDown', instance, severity: 'page' },
          annotations: { summary: `${instance} is down` },
          generatorURL: 'http://prometheus.lan/graph',
        })),
      ),
    });
    expect(post.status).toBe(200);

    await until('three alerts at the target', 120_000, () => rx.got.length >= 3);
    const by = (instance: string) => rx.got.filter((a) => a.json.payload.labels.instance === instance);
    for (const a of rx.got)
      expect(
        verifyWebhook(
          TARGET_SECRET,
          { timestamp: a.headers['x-aitia-timestamp'] as string, signature: a.headers['x-aitia-signature'] as string },
          a.body,
          Date.now(),
        ),
      ).toBe(true);

    const [web01] = by(NAMES['qemu/101']!);
    expect(web01!.json.resource).toBe(id('qemu/101'));
    expect(web01!.json.payload).toMatchObject({
      status: 'firing',
      alertname: 'InstanceDown',
      annotations: { summary: `${NAMES['qemu/101']} is down` },
      matched: true,
      resource: { id: id('qemu/101'), name: NAMES['qemu/101'], kind: 'vm' },
      fingerprint: expect.stringMatching(/^[0-9a-f]+$/),
      startsAt: expect.any(String),
    });
    expect(web01!.json.payload.enrichmentError).toBeNull();
    expect(web01!.json.payload.narrative).toMatch(
      /stopped by alice@pve — task qmstop UPID:\S+ at \d\d:\d\d:\d\d UTC, high confidence/,
    );
    expect(web01!.json.payload.narrative).toMatch(/Incident context for vm/);
    expect(web01!.json.payload.narrative).toMatch(/It depends on/);

    const [nested] = by(NAMES['qemu/130']!);
    expect(nested!.json.payload).toMatchObject({ matched: true, resource: { id: id('qemu/130') } });
    expect(nested!.json.payload.narrative).toMatch(/cause unknown/);
    expect(nested!.json.payload.narrative).not.toMatch(/alice@pve/);

    const [lost] = by(unknown);
    expect(lost!.json.payload).toMatchObject({ matched: false, resource: null, narrative: null });
    expect(lost!.json.payload.unmatchedReason).toMatch(new RegExp(`no resource aitia holds has instance="${unknown}"`));
    expect(lost!.json.resource).toBe('alertmanager:unmatched');

    // Resolved in Alertmanager (send_resolved): the target is told that too, with the same resource.
    const resolve = await fetch(`${am.url}/api/v2/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        {
          labels: { alertname: 'InstanceDown', instance: NAMES['qemu/101'], severity: 'page' },
          annotations: { summary: `${NAMES['qemu/101']} is down` },
          generatorURL: 'http://prometheus.lan/graph',
          startsAt: web01!.json.payload.startsAt,
          endsAt: new Date(Date.now() - 1000).toISOString(),
        },
      ]),
    });
    expect(resolve.status).toBe(200);
    await until('the resolved alert', 120_000, () =>
      by(NAMES['qemu/101']!).some((a) => a.json.payload.status === 'resolved'),
    );
    const resolved = by(NAMES['qemu/101']!).find((a) => a.json.payload.status === 'resolved')!;
    expect(resolved.json.payload).toMatchObject({
      matched: true,
      resource: { id: id('qemu/101') },
      fingerprint: web01!.json.payload.fingerprint,
      endsAt: expect.any(String),
    });
    expect(resolved.json.payload.narrative).toMatch(/^Alert InstanceDown \(resolved/);
  }, 240_000);
});

describe.skipIf(!bin)('POST /integrations/alertmanager over the wire', () => {
  const body = (marker: string, over: Record<string, unknown> = {}) =>
    JSON.stringify({
      version: '4',
      status: 'firing',
      receiver: 'aitia',
      groupKey: '{}:{}',
      truncatedAlerts: 0,
      groupLabels: {},
      commonLabels: {},
      commonAnnotations: {},
      externalURL: 'http://am.lan',
      alerts: [
        {
          status: 'firing',
          labels: { alertname: 'Probe', instance: NAMES['qemu/101'], marker },
          annotations: {},
          startsAt: new Date().toISOString(),
          endsAt: '0001-01-01T00:00:00Z',
          generatorURL: '',
          fingerprint: 'f00',
        },
      ],
      ...over,
    });
  const post = (text: string, headers: Record<string, string>) =>
    fetch(`${srv.url}/integrations/alertmanager`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: text,
    });
  const bearer = (role: 'ingester' | 'agent') => ({ authorization: `Bearer ${srv.tokens[role]}` });
  const signed = (text: string, ts: number, secret = SECRET) => ({
    'x-aitia-timestamp': String(ts),
    'x-aitia-signature': signWebhook(secret, String(ts), text),
  });
  const now = () => Math.floor(Date.now() / 1000);

  it('an ingester token stores the alerts and answers with their count and feed sequences', async () => {
    const marker = `ok-${scope}`;
    const res = await post(body(marker), bearer('ingester'));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ received: 1, matched: 1, unmatched: 0, seqs: [expect.any(Number)] });
    expect(await storedWith(marker)).toBe(1);
  });

  it.each([
    ['version', { version: '3' }, /^version: must be "4"/],
    ['alerts', { alerts: [] }, /^alerts: must hold at least one alert/],
    [
      'alerts[0].status',
      { alerts: [{ status: 'pending', labels: {}, startsAt: new Date().toISOString() }] },
      /^alerts\[0\]\.status: /,
    ],
  ])('a bad %s → 400 naming it, nothing stored', async (_, over, error) => {
    const marker = `bad-${scope}`;
    const res = await post(body(marker, over), bearer('ingester'));
    expect(res.status).toBe(400);
    const answer = (await res.json()) as { error: string; code: string };
    expect(answer.code).toBe('BAD_USER_INPUT');
    expect(answer.error).toMatch(error);
    expect(await storedWith(marker)).toBe(0);
  });

  it('an alert whose context is not read within the budget is stored matched, "cause unknown" and the reason', async () => {
    const marker = `budget-${scope}`;
    const got = await receiveAlerts(serviceDeps(driver), principalOf(scope, 'ingester'), {
      body: JSON.parse(body(marker)),
      labels: { instance: '{name}' },
      enrichBudgetMs: 0,
    });
    expect(got).toMatchObject({ received: 1, matched: 1 });
    const entries = await readFeed(driver, { afterSeq: got.seqs[0]! - 1, limit: 1 });
    expect(entries[0]!.payload).toMatchObject({
      matched: true,
      resource: { id: id('qemu/101') },
      narrative: expect.stringMatching(/cause unknown: aitia could not read its incident context\.$/),
      enrichmentError: 'not read within the 0 ms enrichment budget',
    });
  });

  it('not JSON → 400', async () => {
    const res = await post('{"version":', bearer('ingester'));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/^body: not JSON/);
  });

  it('no credentials → 401 saying what to send; an unknown token → 401; an agent token → 403; nothing stored', async () => {
    const marker = `unauth-${scope}`;
    const none = await post(body(marker), {});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/Bearer/);
    expect(((await none.json()) as { error: string }).error).toMatch(/ingester bearer token.*receiver_secret/);
    expect((await post(body(marker), { authorization: 'Bearer aitia_ingester_nope' })).status).toBe(401);
    const agent = await post(body(marker), bearer('agent'));
    expect(agent.status).toBe(403);
    expect(((await agent.json()) as { error: string }).error).toMatch(/lacks permission alert:receive/);
    expect(await storedWith(marker)).toBe(0);
  });

  it('signed with receiver_secret → 200; the same request again → 409; another key, another body or a stale timestamp → 401', async () => {
    const marker = `signed-${scope}`;
    const text = body(marker);
    const headers = signed(text, now());
    expect((await post(text, headers)).status).toBe(200);
    expect((await post(text, headers)).status).toBe(409);
    expect(await storedWith(marker)).toBe(1);

    const other = `badsig-${scope}`;
    // One text per request: body() stamps startsAt, and the signature is over these very bytes.
    const otherText = body(other);
    const wrongKey = await post(otherText, signed(otherText, now(), 'another-secret-0123456789'));
    expect(wrongKey.status).toBe(401);
    expect(((await wrongKey.json()) as { error: string }).error).toMatch(/does not match/);
    const t = now();
    expect((await post(body(other), { ...signed(body(`x-${scope}`), t), 'x-aitia-timestamp': String(t) })).status).toBe(
      401,
    );
    const staleAt = now() - 600;
    const stale = await post(otherText, signed(otherText, staleAt));
    expect(stale.status).toBe(401);
    expect(((await stale.json()) as { error: string }).error).toMatch(/s before the server's clock/);
    expect(await storedWith(other)).toBe(0);
  });
});
