import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getResourceById } from '../../../../src/graph/resources/read.js';
import { createProxmoxPollState } from '../../../../src/ingest/proxmox/poll-state.js';
import { observe } from '../../../../src/pipeline/observe.js';
import { proxmoxSource } from '../../../../src/ingest/proxmox/source.js';
import { useGraph } from '../../../support/graph.js';
import { labRoutes, patchData, standinClient, withLabTasks } from '../../../support/proxmox-lab.js';
import { type ProxmoxStandin, type RouteTable, startProxmoxStandin } from '../../../support/proxmox-standin.js';
import { taskEntry, useEventCleanup } from '../../../support/proxmox-tasks.js';

const { driver, scope } = useGraph();
useEventCleanup(driver, scope);

let standin: ProxmoxStandin;
beforeAll(async () => {
  standin = await startProxmoxStandin();
});
afterAll(async () => {
  await standin.close();
});

/** The lab cluster `c` with task lists served from `tasks` (which the test grows between polls). */
function lab(c: string, tasks: Array<Record<string, unknown>>, edit?: (t: RouteTable) => void): RouteTable {
  const table = labRoutes(c);
  withLabTasks(table, () => tasks);
  edit?.(table);
  return table;
}

/** What one pass sent, as the stand-in received it: `GET /nodes/pve1/qemu?full=1` … */
async function passRequests<T>(fn: () => Promise<T>): Promise<{ result: T; sent: string[] }> {
  const before = standin.requests.length;
  const result = await fn();
  const sent = standin.requests
    .slice(before)
    .map((r) => `${r.method} ${r.path}${r.query.toString() ? `?${r.query.toString()}` : ''}`);
  return { result, sent };
}

const deps = () => ({ driver, suppression: 'shadow' as const });
const configs = (sent: string[]) => sent.filter((s) => s.endsWith('/config')).sort();
const isoAgo = (s: number) => DateTime.utc().minus({ seconds: s }).toISO({ suppressMilliseconds: true })!;

const REFRESH_SECONDS = 7 * 86_400;

describe('a poller that reads per node, not per guest', () => {
  const c = `lab-${scope}-poll`;
  const id = (g: string) => `proxmox:${c}/${g}`;
  const tasks: Array<Record<string, unknown>> = [];
  let clock = Date.now();
  const state = createProxmoxPollState();
  // One source for the whole describe, as the poller keeps it (made lazily: the stand-in starts in beforeAll).
  let made: ReturnType<typeof proxmoxSource> | null = null;
  const source = () =>
    (made ??= proxmoxSource(standinClient(standin), {
      state,
      // Long cadences and 1 s between passes: nothing comes due by itself unless a test moves the clock
      // a whole period (which guests come due first is spread by a hash of their ids, i.e. of the scope).
      inventory: { now: () => clock, configRefreshSeconds: REFRESH_SECONDS, agentSeconds: 86_400 },
    }));
  const storedOn = async (g: string) => {
    const { records } = await driver.executeQuery(
      `MATCH (:Resource {id: $id})-[e:STORED_ON]->(s:Resource) RETURN s.id AS s, e.missingSince IS NOT NULL AS missing ORDER BY s`,
      { id: id(g) },
    );
    return records.map((r) => `${r.get('s') as string}${r.get('missing') ? ' (missing)' : ''}`);
  };

  it('the first pass reads every config once and pings the running agents; status comes from the node lists', async () => {
    standin.routes(lab(c, tasks));
    const { result: o, sent } = await passRequests(() => observe(deps(), source()));
    expect(o.report.complete).toBe(true);
    expect(configs(sent)).toHaveLength(10);
    expect(sent.filter((s) => s.endsWith('/status/current'))).toEqual([]);
    expect(sent.filter((s) => /\/nodes\/pve\d\/(qemu|lxc)(\?|$)/.test(s)).sort()).toEqual([
      'GET /nodes/pve1/lxc',
      'GET /nodes/pve1/qemu?full=1',
      'GET /nodes/pve2/lxc',
      'GET /nodes/pve2/qemu?full=1',
      'GET /nodes/pve3/lxc',
      'GET /nodes/pve3/qemu?full=1',
    ]);
    expect(sent.filter((s) => s === 'GET /cluster/status')).toHaveLength(1);
    expect(o.extra.reads).toMatchObject({ configs: { first: 10 }, agentPings: 2, statusFallbacks: 0 });
    expect(o.extra.requests.total).toBe(sent.length);
    expect(await getResourceById(driver, id('qemu/110'))).toMatchObject({
      attributes: { hastate: 'started', ha_managed: true, agent: true, qemu_guest_agent: 'not_running' },
    });
  });

  it('a steady pass with no change costs 2 + 3 × nodes requests and keeps every config-given attribute and edge', async () => {
    clock += 1000;
    const { result: o, sent } = await passRequests(() => observe(deps(), source()));
    expect(o.report).toMatchObject({ complete: true, markedMissing: 0, edgesMarkedMissing: 0, stateChanges: [] });
    const taskLists = sent.filter((s) => /^GET \/nodes\/pve\d\/tasks\?/.test(s));
    expect(taskLists.map((s) => s.split('?')[0]).sort()).toEqual(
      ['pve1', 'pve2', 'pve3'].map((n) => `GET /nodes/${n}/tasks`),
    );
    expect(sent.filter((s) => !taskLists.includes(s)).sort()).toEqual([
      'GET /cluster/resources',
      'GET /cluster/status',
      ...['pve1', 'pve2', 'pve3'].flatMap((n) => [`GET /nodes/${n}/lxc`, `GET /nodes/${n}/qemu?full=1`]),
    ]);
    expect(sent).toHaveLength(2 + 3 * 3);
    expect(await getResourceById(driver, id('qemu/101'))).toMatchObject({
      attributes: { mac_addresses: ['bc:24:11:2c:69:ec'], agent: true, qemu_guest_agent: 'running' },
    });
    expect((await getResourceById(driver, id('qemu/130')))!.attributes).toMatchObject({
      smbios_uuid: '4c4c4544-0031-4d10-8033-b4c04f4e3132',
      serial_number: 'PVE-ESXI-01',
    });
    expect(await storedOn('qemu/113')).toEqual([id('storage/pve2/ceph-rbd'), id('storage/pve2/local-lvm')]);
  });

  it('a config-changing task triggers exactly that guest’s config read, and what it changed is loaded', async () => {
    tasks.push(
      taskEntry({ node: 'pve1', type: 'qmconfig', id: '101', user: 'alice@pve', start: isoAgo(4), end: isoAgo(3) }),
      // A power action changes no config: no read for it.
      taskEntry({ node: 'pve3', type: 'qmstart', id: '103', user: 'alice@pve', start: isoAgo(4), end: isoAgo(3) }),
    );
    standin.routes(
      lab(c, tasks, (t) =>
        patchData(t, 'GET /nodes/pve1/qemu/101/config', { scsi1: 'ceph-rbd:vm-101-disk-1,size=64G' }),
      ),
    );
    clock += 1000;
    const { result: o, sent } = await passRequests(() => observe(deps(), source()));
    expect(o.report.complete).toBe(true);
    expect(o.extra.tasks.configChanged).toEqual([id('qemu/101')]);
    expect(configs(sent)).toEqual(['GET /nodes/pve1/qemu/101/config']);
    expect(o.extra.reads.configs).toEqual({ first: 0, task: 1, placement: 0, refresh: 0 });
    expect(await storedOn('qemu/101')).toEqual([id('storage/pve1/ceph-rbd'), id('storage/pve1/local-lvm')]);

    // The same task listed again (the task window overlaps) is not a new change: no read.
    clock += 1000;
    const again = await passRequests(() => observe(deps(), source()));
    expect(configs(again.sent)).toEqual([]);
    expect(await storedOn('qemu/101')).toEqual([id('storage/pve1/ceph-rbd'), id('storage/pve1/local-lvm')]);
  });

  it('the rolling refresh re-reads every config within its period', async () => {
    clock += REFRESH_SECONDS * 1000;
    const { result: o, sent } = await passRequests(() => observe(deps(), source()));
    expect(o.report.complete).toBe(true);
    expect(configs(sent)).toHaveLength(10);
    expect(o.extra.reads.configs.refresh).toBe(10);
  });

  it('a VM paused on an I/O error is seen from its node list within one poll', async () => {
    standin.routes(
      lab(c, tasks, (t) => patchData(t, 'GET /nodes/pve2/qemu/113/status/current', { qmpstatus: 'running' })),
    );
    clock += 1000;
    const running = await observe(deps(), source());
    expect((await getResourceById(driver, id('qemu/113')))!.state).toBe('running');
    expect(running.report.stateChanges).toEqual([
      expect.objectContaining({ id: id('qemu/113'), from: 'paused_io_error', to: 'running' }),
    ]);

    standin.routes(lab(c, tasks));
    clock += 1000;
    const { result: o, sent } = await passRequests(() => observe(deps(), source()));
    expect(sent.filter((s) => s.includes('/qemu/113'))).toEqual([]);
    expect(o.report.stateChanges).toEqual([
      { id: id('qemu/113'), kind: 'vm', from: 'running', to: 'paused_io_error', rawState: 'running/io-error' },
    ]);
    expect(o.correlation.created.map((t) => `${t.resourceId}:${t.from}->${t.to}`)).toEqual([
      `${id('qemu/113')}:running->paused_io_error`,
    ]);
    expect((await getResourceById(driver, id('qemu/113')))!.attributes.qmpstatus).toBe('io-error');
  });

  it('a 429 makes the poller back off for its Retry-After, and the pass completes', async () => {
    standin.fault('/cluster/resources', { kind: 'status', status: 429, retryAfter: '1' }, { times: 1 });
    clock += 1000;
    const started = Date.now();
    const { result: o, sent } = await passRequests(() => observe(deps(), source()));
    standin.clearFaults();
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(o.report).toMatchObject({ complete: true, errors: [], markedMissing: 0 });
    expect(sent.filter((s) => s === 'GET /cluster/resources')).toHaveLength(2);
    expect(o.extra.requests).toMatchObject({ throttled: 1, retried: 1 });
    expect(o.extra.requests.backoffMs).toBeGreaterThanOrEqual(900);
  });
});
