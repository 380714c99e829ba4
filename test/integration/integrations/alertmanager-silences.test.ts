import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../../../src/graph/audit.js';
import { upsertEdges } from '../../../src/graph/edges.js';
import { latestFeedSeq } from '../../../src/graph/feed.js';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { listSources } from '../../../src/graph/sources.js';
import { createAlertmanagerClient } from '../../../src/integrations/alertmanager/client.js';
import { type Silencer, startLeaderSilencer, startSilencer } from '../../../src/integrations/alertmanager/silencer.js';
import { createLogger } from '../../../src/log.js';
import { proxmoxSource } from '../../../src/ingest/proxmox/source.js';
import { observe } from '../../../src/pipeline/observe.js';
import type { SuppressionMode } from '../../../src/policy/policy-document.js';
import { startHealthScheduler } from '../../../src/scheduler/health-scheduler.js';
import { createCheck } from '../../../src/services/checks.js';
import { alertmanagerOrSkip, type RunningAlertmanager, startAlertmanager } from '../../support/alertmanager.js';
import { useGraph } from '../../support/graph.js';
import { checkNetworkAllowing } from '../../support/probe-target.js';
import { labRoutes, patchData, standinClient, withLabTasks } from '../../support/proxmox-lab.js';
import { type ProxmoxStandin, type RouteTable, startProxmoxStandin } from '../../support/proxmox-standin.js';
import { taskEntry, useEventCleanup } from '../../support/proxmox-tasks.js';
import { principalOf, serviceDeps } from '../../support/services.js';
import { until } from '../../support/until.js';

/**
 * Silences for intentional changes, on the real Alertmanager: alice stops a VM in the Proxmox
 * stand-in, the real ingest, correlator and health scheduler open an expected condition, and the
 * silencer (reading the stored feed) silences the VM's alerts and its dependent's in
 * Alertmanager, with the narrative in the comment, and expires them when the VM is back. Shadow
 * mode silences nothing and audits what it would; a stop nobody explains silences nothing;
 * Alertmanager down at the stop gets its silence once it is back, once, across silencer restarts.
 */
const bin = alertmanagerOrSkip();
const { driver, scope } = useGraph();
useEventCleanup(driver, scope);
const c = `lab-${scope}`;
const id = (g: string) => `proxmox:${c}/${g}`;
const VM = { web01: 'qemu/101', nested: 'qemu/130' } as const;
const NODE: Record<string, string> = { 'qemu/101': 'pve1', 'qemu/130': 'pve3' };
const pg = `manual:service/pg-${scope}`;
const log = createLogger('silent');
const principal = `silencer-${scope}`;

let am: RunningAlertmanager;
let standin: ProxmoxStandin;
const entries: Array<Record<string, unknown>> = [];
const stopped = new Set<string>();
let startAfter = 0;
let web01Silence = '';

function routes(): RouteTable {
  const patch: Record<string, Record<string, unknown>> = {};
  for (const g of stopped) patch[g] = { status: 'stopped' };
  const table = labRoutes(c, { patchListing: patch });
  for (const g of stopped)
    patchData(table, `GET /nodes/${NODE[g]}/${g}/status/current`, { status: 'stopped', qmpstatus: 'stopped' });
  withLabTasks(table, () => entries);
  return table;
}

const ago = (s: number) => DateTime.utc().minus({ seconds: s }).toISO({ suppressMilliseconds: true })!;

/** Stops (or starts) a guest, by alice's task or by nobody's, and lets ingest and the checks see it (k = 1). */
async function change(guest: string, to: 'stopped' | 'running', by: string | null, mode: SuppressionMode) {
  if (by)
    entries.push(
      taskEntry({
        node: NODE[guest]!,
        type: to === 'stopped' ? 'qmstop' : 'qmstart',
        id: guest.split('/')[1]!,
        user: by,
        start: ago(3),
        end: ago(2),
      }),
    );
  if (to === 'stopped') stopped.add(guest);
  else stopped.delete(guest);
  standin.routes(routes());
  await observe({ driver, suppression: mode }, proxmoxSource(standinClient(standin)));
  const scheduler = startHealthScheduler({
    driver,
    log,
    autoTick: false,
    k: 1,
    conditions: { suppression: mode, policyDigest: null, causeWindowSeconds: 900 },
    network: checkNetworkAllowing('127.0.0.1'),
  });
  await scheduler.runOnce({ all: true });
  await scheduler.stop();
}

const silencers: Silencer[] = [];
function silencer(): Silencer {
  const s = startSilencer({
    driver,
    log,
    client: createAlertmanagerClient({ url: am.url, basicAuth: null, bearerToken: null, timeoutMs: 1_000 }),
    config: { labels: { instance: '{name}' }, silenceDependents: true },
    respectIntentSeconds: () => 3600,
    cursorId: `alertmanager-silencer-${scope}`,
    startAfter,
    autoTick: false,
    principal,
  });
  silencers.push(s);
  return s;
}

async function amGet(path: string): Promise<any> {
  const res = await fetch(`${am.url}${path}`);
  expect(res.status).toBe(200);
  return res.json();
}
const silencesFor = async (instance: string) =>
  ((await amGet(`/api/v2/silences?filter=${encodeURIComponent(`instance="${instance}"`)}`)) as any[]).filter(
    (s) => s.createdBy === 'aitia',
  );
const live = (list: any[]) => list.filter((s) => s.status.state !== 'expired');

beforeAll(async () => {
  if (!bin) return;
  am = await startAlertmanager(bin);
  standin = await startProxmoxStandin();
  standin.routes(routes());
  await observe({ driver, suppression: 'on' }, proxmoxSource(standinClient(standin)));
  await upsertResources(driver, [{ id: pg, kind: 'service', provider: 'manual', name: `pg-${scope}`, state: 'up' }]);
  await upsertEdges(driver, [
    { type: 'RUNS_ON', fromId: pg, toId: id(VM.web01), provenance: 'declared', source: 'test' },
  ]);
  const deps = serviceDeps(driver);
  const operator = principalOf(scope, 'operator');
  for (const g of Object.values(VM)) await createCheck(deps, operator, { resourceId: id(g), kind: 'provider_state' });
  startAfter = await latestFeedSeq(driver);
}, 120_000);
afterAll(async () => {
  for (const s of silencers) await s.stop();
  await standin?.close();
  await am?.close();
  await driver.executeQuery("MATCH (s:IngestSource {name: 'alertmanager'}) DETACH DELETE s");
});

describe.skipIf(!bin)('Alertmanager silences for intentional changes (real Alertmanager)', () => {
  it("alice's stop → a silence for web01 and what runs on it, the narrative in its comment; its alert is suppressed", async () => {
    // A silence somebody else made on the same alerts: aitia never touches it.
    const theirs = await fetch(`${am.url}/api/v2/silences`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        matchers: [{ name: 'instance', value: 'web01', isRegex: false, isEqual: true }],
        startsAt: new Date().toISOString(),
        endsAt: new Date(Date.now() + 7200_000).toISOString(),
        createdBy: 'bob',
        comment: 'maintenance window',
      }),
    });
    expect(theirs.status).toBe(200);

    await change(VM.web01, 'stopped', 'alice@pve', 'on');
    const pass = await silencer().runOnce();
    expect(pass).toMatchObject({ error: null, created: 2 });

    const [silence, ...more] = await silencesFor('web01');
    expect(more).toEqual([]);
    expect(silence.status.state).toBe('active');
    expect(silence.matchers).toEqual([{ name: 'instance', value: 'web01', isRegex: false, isEqual: true }]);
    expect(silence.comment).toMatch(/alice@pve/);
    expect(silence.comment).toMatch(/qmstop/);
    expect(silence.comment).toMatch(/high confidence/);
    expect(silence.comment).toMatch(
      new RegExp(`\\[aitia condition=${id(VM.web01)}#check_failing#\\d+ resource=${id(VM.web01)}\\]$`),
    );
    const hours = (Date.parse(silence.endsAt) - Date.parse(silence.startsAt)) / 3600_000;
    expect(hours).toBeCloseTo(1, 1);
    const dependent = await silencesFor(`pg-${scope}`);
    expect(dependent).toHaveLength(1);
    expect(dependent[0].comment).toContain(`(depends on ${id(VM.web01)})`);

    // An alert for web01, as Prometheus would post it, is silenced by aitia's silence.
    const post = await fetch(`${am.url}/api/v2/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { labels: { alertname: 'InstanceDown', instance: 'web01' }, startsAt: new Date().toISOString() },
      ]),
    });
    expect(post.status).toBe(200);
    const [alert] = await amGet(`/api/v2/alerts?filter=${encodeURIComponent('instance="web01"')}`);
    expect(alert.status.state).toBe('suppressed');
    expect(alert.status.silencedBy).toContain(silence.id);
    web01Silence = silence.id;

    // Another pass, and a new silencer (a restart): nothing is made twice.
    expect(await silencer().runOnce()).toMatchObject({ error: null, created: 0, handled: 0 });
    expect(live(await silencesFor('web01'))).toHaveLength(1);
    const audit = await listAudit(driver, { principal, operation: 'alertmanagerSilenceCreated' }, { first: 10 });
    expect(audit.nodes.map((a) => a.targetIds[0]).sort()).toEqual([pg, id(VM.web01)].sort());
  });

  it('web01 started again → its silences expire; the one aitia did not make stays', async () => {
    await change(VM.web01, 'running', 'alice@pve', 'on');
    const pass = await silencer().runOnce();
    expect(pass).toMatchObject({ error: null, expired: 2 });
    expect(live(await silencesFor('web01'))).toEqual([]);
    expect(live(await silencesFor(`pg-${scope}`))).toEqual([]);
    const all = (await amGet(`/api/v2/silences?filter=${encodeURIComponent('instance="web01"')}`)) as any[];
    expect(all.filter((s) => s.createdBy === 'bob').map((s) => s.status.state)).toEqual(['active']);
    // Still suppressed, by bob's silence alone.
    const [alert] = await amGet(`/api/v2/alerts?filter=${encodeURIComponent('instance="web01"')}`);
    expect(alert.status.silencedBy).not.toContain(web01Silence);
    expect(alert.status.silencedBy).toHaveLength(1);
  });

  it('shadow mode: no silence, an audit line saying what would be silenced', async () => {
    await change(VM.web01, 'stopped', 'alice@pve', 'shadow');
    expect(await silencer().runOnce()).toMatchObject({ error: null, created: 0 });
    expect(live(await silencesFor('web01'))).toEqual([]);
    const audit = await listAudit(driver, { principal, operation: 'alertmanagerSilenceWouldCreate' }, { first: 10 });
    expect(audit.nodes.map((a) => a.targetIds[0]).sort()).toEqual([pg, id(VM.web01)].sort());
    expect(audit.nodes.find((a) => a.targetIds[0] === id(VM.web01))!.detail).toMatch(
      /would silence until .*attribution.suppression is shadow.*\{instance="web01"\}.*alice@pve/,
    );
  });

  it('a stop nobody explains: no silence', async () => {
    await change(VM.nested, 'stopped', null, 'on');
    expect(await silencer().runOnce()).toMatchObject({ error: null, created: 0 });
    expect(await silencesFor('esxi-nested01')).toEqual([]);
  });

  it('Alertmanager down at the stop: reported, retried from the same place, one silence once it is back, across restarts', async () => {
    await change(VM.web01, 'running', 'alice@pve', 'shadow');
    await am.stop();
    await change(VM.web01, 'stopped', 'alice@pve', 'on');
    const first = silencer();
    const failed = await first.runOnce();
    expect(failed.error).toMatch(/Alertmanager/);
    expect(failed.created).toBe(0);
    const source = (await listSources(driver)).find((s) => s.name === 'alertmanager');
    expect(source).toMatchObject({ kind: 'alertmanager', url: am.url, status: 'polling' });
    expect(source!.lastError).toMatch(/Alertmanager/);
    expect((await first.runOnce()).error).toMatch(/Alertmanager/);
    await first.stop();

    await am.start();
    // A new silencer, as after an aitia restart: it resumes from its stored cursor.
    expect(await silencer().runOnce()).toMatchObject({ error: null, created: 2 });
    expect(live(await silencesFor('web01'))).toHaveLength(1);
    expect((await listSources(driver)).find((s) => s.name === 'alertmanager')!.lastError).toBeNull();

    // Made, but aitia stopped before its cursor moved: the next one finds it in Alertmanager.
    await driver.executeQuery('MATCH (c:IntegrationCursor {id: $id}) DETACH DELETE c', {
      id: `alertmanager-silencer-${scope}`,
    });
    await driver.executeQuery('MATCH (m:AlertmanagerSilence) WHERE m.id CONTAINS $scope DETACH DELETE m', { scope });
    expect(await silencer().runOnce()).toMatchObject({ error: null, created: 0 });
    expect(live(await silencesFor('web01'))).toHaveLength(1);
  });

  it('only the leader replica runs it: two replicas, one lease, one silencer running', async () => {
    const replica = (holder: string) =>
      startLeaderSilencer({
        driver,
        log,
        client: createAlertmanagerClient({ url: am.url, basicAuth: null, bearerToken: null, timeoutMs: 1_000 }),
        config: { labels: { instance: '{name}' }, silenceDependents: true },
        respectIntentSeconds: () => 3600,
        cursorId: `alertmanager-silencer-${scope}`,
        principal,
        tickMs: 200,
        lease: { holder: `${holder}-${scope}`, seconds: 3 },
      });
    const [a, b] = [replica('a'), replica('b')];
    try {
      const deadline = Date.now() + 10_000;
      while (!a.fence && !b.fence && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 500));
      expect([a.fence, b.fence].filter(Boolean)).toHaveLength(1);
      // The leader's passes are fenced writes that go through: its cursor and state are current.
      const before = (await listSources(driver)).find((s) => s.name === 'alertmanager')!.lastPassAt!;
      await new Promise((r) => setTimeout(r, 600));
      const after = (await listSources(driver)).find((s) => s.name === 'alertmanager')!;
      expect(Date.parse(after.lastPassAt!)).toBeGreaterThan(Date.parse(before));
      expect(after.lastError).toBeNull();
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it('on its timer: a failed pass is retried with backoff until Alertmanager is back', async () => {
    const timed = startSilencer({
      driver,
      log,
      client: createAlertmanagerClient({ url: am.url, basicAuth: null, bearerToken: null, timeoutMs: 500 }),
      config: { labels: { instance: '{name}' }, silenceDependents: false },
      respectIntentSeconds: () => 3600,
      cursorId: `alertmanager-silencer-${scope}`,
      principal,
      tickMs: 200,
      backoffMs: 100,
      maxBackoffMs: 400,
    });
    silencers.push(timed);
    await change(VM.web01, 'running', 'alice@pve', 'on');
    await until('no live silence for web01', 15_000, async () => live(await silencesFor('web01')).length === 0);
    await am.stop();
    await change(VM.web01, 'stopped', 'alice@pve', 'on');
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await listSources(driver)).find((s) => s.name === 'alertmanager')!.lastError).toMatch(/Alertmanager/);
    await am.start();
    await until('one live silence for web01', 15_000, async () => live(await silencesFor('web01')).length === 1);
    await timed.stop();
  });
});
