import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchConditions } from '../../../../src/graph/conditions.js';
import { getResourceById } from '../../../../src/graph/resources/read.js';
import { listMissingResources } from '../../../../src/graph/resources/staleness.js';
import type { ProxmoxClient } from '../../../../src/ingest/proxmox/client.js';
import { syncProxmox, type SyncProxmoxOptions } from '../../../../src/ingest/proxmox/sync.js';
import { observe } from '../../../../src/pipeline/observe.js';
import { useGraph } from '../../../support/graph.js';
import { labRoutes, standinClient } from '../../../support/proxmox-lab.js';
import { type ProxmoxStandin, startProxmoxStandin } from '../../../support/proxmox-standin.js';

const { driver, scope } = useGraph();

/** One inventory pass observed as the poller observes it: the observation writes the adapter's conditions. */
async function observedSync(client: ProxmoxClient, options?: SyncProxmoxOptions) {
  const o = await observe(
    { driver, suppression: 'shadow' },
    {
      name: 'inventory',
      pass: async (d) => ({ report: await syncProxmox(d, client, options), observer: 'test', extra: null }),
    },
  );
  return o.report;
}

let standin: ProxmoxStandin;
beforeAll(async () => {
  standin = await startProxmoxStandin();
});
afterAll(async () => {
  await standin.close();
});

/** A snapshot of everything under the cluster's prefix: what a failed pass must leave unchanged. */
async function snapshot(c: string) {
  const prefix = `proxmox:${c}/`;
  const { records } = await driver.executeQuery(
    `MATCH (r:Resource) WHERE r.id STARTS WITH $prefix
     OPTIONAL MATCH (r)-[e]->(:Resource)
     WITH r, count(e) AS out, collect(e.missingSince) AS em
     RETURN r.id AS id, r.state AS state, r.lifecycle AS lifecycle, r.missingSince IS NOT NULL AS missing, out, size(em) AS missingEdges
     ORDER BY id`,
    { prefix },
  );
  return records.map((r) => r.toObject());
}

/**
 * `opens`: whether adapter_unreachable opens on the cluster (the API was not read, or a node online
 * in /cluster/status did not answer with its guests); `node` is then the node its evidence names.
 */
type Scenario = { name: string; opens: boolean; node?: string; inject: (s: ProxmoxStandin, c: string) => void };

const PVE3_GUESTS = ['qemu/103', 'qemu/130', 'lxc/210'];

/**
 * Each scenario: a good first pass, then a second pass where guest lxc/202 has vanished from the
 * listing (a complete pass would mark it missing) AND something fails. Nothing may be marked or
 * deleted, and no state may change.
 */
const SCENARIOS: Scenario[] = [
  {
    name: 'HTTP 401 on every call',
    opens: true,
    inject: (s) => s.fault(/.*/, { kind: 'status', status: 401, message: 'invalid token value!' }),
  },
  {
    name: 'HTTP 500 on /cluster/resources',
    opens: true,
    inject: (s) => s.fault('/cluster/resources', { kind: 'status', status: 500, message: 'cfs-lock timeout' }),
  },
  { name: 'timeout on /cluster/status', opens: true, inject: (s) => s.fault('/cluster/status', { kind: 'hang' }) },
  {
    name: 'truncated JSON from /cluster/resources',
    opens: true,
    inject: (s) => s.fault('/cluster/resources', { kind: 'truncate' }),
  },
  { name: 'connection cut mid-answer', opens: true, inject: (s) => s.fault('/cluster/resources', { kind: 'cut' }) },
  {
    name: 'truncated JSON from one guest config',
    opens: false,
    inject: (s) => s.fault('/nodes/pve2/qemu/110/config', { kind: 'truncate' }),
  },
  {
    name: 'an unreadable status/current body (HTTP 200, no status)',
    opens: false,
    inject: (s) => s.route('GET', '/nodes/pve1/qemu/101/status/current', { body: { data: { vmid: 101 } } }),
  },
  { name: 'node pve3 not answering (595)', opens: true, node: 'pve3', inject: (s) => s.nodeDown('pve3') },
  {
    name: 'node pve3 hanging (timeouts)',
    opens: true,
    node: 'pve3',
    inject: (s) => s.fault(/^\/nodes\/pve3\//, { kind: 'hang' }),
  },
  {
    name: 'pve3 online in /cluster/status, its guests absent from /cluster/resources',
    opens: true,
    node: 'pve3',
    inject: (s, c) => s.routes(labRoutes(c, { without: ['lxc/202'], listingOnly: PVE3_GUESTS })),
  },
  {
    name: 'pve3 online in /cluster/status, absent with its guests from /cluster/resources',
    opens: true,
    node: 'pve3',
    inject: (s, c) => s.routes(labRoutes(c, { without: ['lxc/202'], listingOnly: ['node/pve3', ...PVE3_GUESTS] })),
  },
];

describe('a failed or partial second sync marks nothing stale and deletes nothing', () => {
  SCENARIOS.forEach((scenario, i) => {
    it(scenario.name, async () => {
      const c = `lab-${scope}-f${i}`;
      standin.clearFaults();
      standin.routes(labRoutes(c));
      const good = await observedSync(standinClient(standin));
      expect(good.complete).toBe(true);
      const before = await snapshot(c);
      expect(before).toHaveLength(23);

      standin.routes(labRoutes(c, { without: ['lxc/202'] }));
      scenario.inject(standin, c);
      const bad = await observedSync(standinClient(standin));
      standin.clearFaults();

      expect(bad.complete).toBe(false);
      expect(bad.errors.length).toBeGreaterThan(0);
      expect(bad).toMatchObject({ markedMissing: 0, edgesMarkedMissing: 0, stateChanges: [] });
      expect(await snapshot(c)).toEqual(before);
      expect(await listMissingResources(driver, { scope: `proxmox:${c}` })).toEqual([]);
      const open = await searchConditions(
        driver,
        { resourceId: `proxmox:${c}/cluster`, type: 'adapter_unreachable', status: 'open' },
        { first: 50 },
      );
      expect(open.nodes).toHaveLength(scenario.opens ? 1 : 0);
      if (scenario.node) {
        expect(open.nodes[0]!.evidence).toMatchObject({ kind: 'partial', nodes: [scenario.node] });
        expect(bad.errors.some((e) => e.scope === `proxmox:${c}/node/${scenario.node}`)).toBe(true);
        // The node answering again with its guests resolves it.
        standin.routes(labRoutes(c));
        const again = await observedSync(standinClient(standin));
        expect(again.complete).toBe(true);
        expect(again.conditions.resolved).toEqual([open.nodes[0]!.id]);
      }
    });
  });

  it('a node that does not answer costs one timeout, not one per guest', async () => {
    const c = `lab-${scope}-slow`;
    standin.routes(labRoutes(c));
    standin.fault(/^\/nodes\/pve3\//, { kind: 'hang' });
    const before = standin.requests.length;
    const report = await observedSync(standinClient(standin), { concurrency: 1 });
    standin.clearFaults();
    // The first call to pve3 (its VM list) is tried twice (one retry) and times out; the other 4 are
    // not sent. Otherwise: 5 calls × 2 attempts × 400 ms ≥ 4 s of waiting.
    expect(standin.requests.slice(before).filter((r) => r.path.startsWith('/nodes/pve3/'))).toHaveLength(2);
    // One error per call of pve3, sent or not: its two guest lists and the first-sight configs of its 3 guests.
    expect(
      report.errors
        .filter((e) => e.scope === `proxmox:${c}/node/pve3`)
        .map((e) => e.path)
        .sort(),
    ).toEqual([
      '/nodes/pve3/lxc',
      '/nodes/pve3/lxc/210/config',
      '/nodes/pve3/qemu',
      '/nodes/pve3/qemu/103/config',
      '/nodes/pve3/qemu/130/config',
    ]);
    expect(report.errors.some((e) => /not asked: node pve3 did not answer/.test(e.message))).toBe(true);
    // First sighting from the listing alone: the guests exist, coarsely.
    expect(await getResourceById(driver, `proxmox:${c}/qemu/130`)).toMatchObject({ state: 'running' });
  });
});

describe('adapter_unreachable', () => {
  it('a node online in /cluster/status but offline in /cluster/resources: partial, nothing missing, condition names it', async () => {
    const c = `lab-${scope}-split`;
    standin.routes(labRoutes(c));
    expect((await observedSync(standinClient(standin))).complete).toBe(true);
    standin.routes(labRoutes(c, { without: ['lxc/202'], patchListing: { 'node/pve3': { status: 'offline' } } }));
    const bad = await observedSync(standinClient(standin));
    expect(bad).toMatchObject({ complete: false, markedMissing: 0, edgesMarkedMissing: 0 });
    expect(bad.errors).toContainEqual(
      expect.objectContaining({
        scope: `proxmox:${c}/node/pve3`,
        message: 'node pve3 is online in /cluster/status but /cluster/resources lists it as offline',
      }),
    );
    expect(await listMissingResources(driver, { scope: `proxmox:${c}` })).toEqual([]);
    const open = await searchConditions(
      driver,
      { resourceId: `proxmox:${c}/cluster`, type: 'adapter_unreachable', status: 'open' },
      { first: 50 },
    );
    expect(open.nodes.map((n) => n.evidence)).toEqual([expect.objectContaining({ kind: 'partial', nodes: ['pve3'] })]);
  });

  it('opens on the cluster when the API fails, stays one condition, and resolves on the next success', async () => {
    const c = `lab-${scope}-down`;
    const cluster = `proxmox:${c}/cluster`;
    standin.routes(labRoutes(c));
    await observedSync(standinClient(standin));

    standin.fault(/.*/, { kind: 'status', status: 401, message: 'invalid token value!' });
    const first = await observedSync(standinClient(standin));
    const second = await observedSync(standinClient(standin));
    standin.clearFaults();
    expect(first.conditions.opened).toHaveLength(1);
    expect(second.conditions.opened).toEqual([]);
    expect(first.errors[0]!.message).toMatch(/authentication failed: check AITIA_PROXMOX_TOKEN/);
    const open = await searchConditions(driver, { resourceId: cluster, status: 'open' }, { first: 50 });
    expect(open.nodes).toHaveLength(1);
    expect(open.nodes[0]).toMatchObject({
      type: 'adapter_unreachable',
      evidence: { kind: 'auth', status: 401, path: '/cluster/status' },
    });

    const ok = await observedSync(standinClient(standin));
    expect(ok.conditions.resolved).toEqual([open.nodes[0]!.id]);
    const all = await searchConditions(driver, { resourceId: cluster }, { first: 50 });
    expect(all.nodes.map((x) => x.status)).toEqual(['resolved']);
    expect(all.nodes[0]!.resolvedAt).toMatch(/^\d{4}-/);
  });

  it('a cluster never read gets a placeholder named after the URL, retired once the real cluster answers', async () => {
    const other = await startProxmoxStandin();
    const placeholder = `proxmox:${new URL(other.url).host}/cluster`;
    try {
      other.fault('/cluster/status', { kind: 'status', status: 500, message: 'pve-cluster service not running' });
      const down = await observedSync(standinClient(other));
      expect(down.complete).toBe(false);
      expect(await getResourceById(driver, placeholder)).toMatchObject({
        kind: 'cluster',
        state: 'unreachable',
        lifecycle: 'provisioning',
      });
      const open = await searchConditions(driver, { resourceId: placeholder, status: 'open' }, { first: 50 });
      expect(open.nodes[0]!.evidence).toMatchObject({
        status: 500,
        message: expect.stringContaining('pve-cluster service not running'),
      });

      other.clearFaults();
      const c = `lab-${scope}-new`;
      other.routes(labRoutes(c));
      const up = await observedSync(standinClient(other));
      expect(up.complete).toBe(true);
      expect(up.conditions.resolved).toEqual([open.nodes[0]!.id]);
      expect(await getResourceById(driver, placeholder)).toMatchObject({ lifecycle: 'missing' });
      expect((await getResourceById(driver, `proxmox:${c}/cluster`))!.attributes.api_url).toBe(other.url);
    } finally {
      await other.close();
      await driver.executeQuery('MATCH (n) WHERE n.id STARTS WITH $p DETACH DELETE n', { p: placeholder });
    }
  });
});
