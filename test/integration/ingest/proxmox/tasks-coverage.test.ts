import { DateTime } from 'luxon';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { streamCoverages } from '../../../../src/graph/coverage.js';
import { syncProxmoxTasks } from '../../../../src/ingest/proxmox/tasks-sync.js';
import type { StreamCoverage } from '../../../../src/model/index.js';
import { useGraph } from '../../../support/graph.js';
import { labRoutes, standinClient } from '../../../support/proxmox-lab.js';
import { type ProxmoxStandin, type RecordedResponse, startProxmoxStandin } from '../../../support/proxmox-standin.js';
import { taskEntry, taskListResponder, useEventCleanup } from '../../../support/proxmox-tasks.js';

/** What the task stage records as each node's log coverage: complete reads, and why the others were not. */
const { driver, scope } = useGraph();
useEventCleanup(driver, scope);

const NOW = DateTime.fromISO('2026-05-14T12:00:00Z', { zone: 'utc' });
const iso = (minutesAgo: number) => NOW.minus({ minutes: minutesAgo }).toISO({ suppressMilliseconds: true })!;

let standin: ProxmoxStandin;
let entries: Array<Record<string, unknown>> = [];
let cluster = '';
let n = 0;

beforeAll(async () => {
  standin = await startProxmoxStandin();
});
afterAll(async () => {
  await standin.close();
});
beforeEach(() => {
  cluster = `lab-${scope}-${++n}`;
  entries = [];
  standin.routes(labRoutes(cluster));
  for (const node of ['pve1', 'pve2', 'pve3'])
    standin.route(
      'GET',
      `/nodes/${node}/tasks`,
      taskListResponder(() => entries),
    );
  standin.clearFaults();
});

const sync = (extra: Parameters<typeof syncProxmoxTasks>[2] = {}) =>
  syncProxmoxTasks(driver, standinClient(standin), { now: () => NOW, ...extra });
async function byNode(): Promise<Record<string, StreamCoverage>> {
  const all = await streamCoverages(driver, { source: `proxmox:${cluster}`, since: iso(48 * 60), until: iso(0) });
  return Object.fromEntries(all.map((s) => [s.node!, s]));
}

describe('the task stage records log coverage per node', () => {
  it('a complete read covers [since, read]: the first one goes back the backfill', async () => {
    await sync();
    const c = await byNode();
    expect(Object.keys(c).sort()).toEqual(['pve1', 'pve2', 'pve3']);
    expect(c.pve1!.intervals).toEqual([{ from: iso(24 * 60), to: iso(0) }]);
    expect(c.pve1!.gaps).toEqual([]);
    expect(c.pve1!.clockOffsetSeconds).toBe(0);
  });

  it('a window with more tasks than the pass reads is page_truncated and covers nothing', async () => {
    entries = [1, 2, 3, 4, 5].map((m) => taskEntry({ node: 'pve1', type: 'qmstart', id: '101', start: iso(m * 2) }));
    await sync({ pageSize: 2, maxPages: 2 });
    const c = await byNode();
    expect(c.pve1!.intervals).toEqual([]);
    expect(c.pve1!.gaps).toEqual([
      expect.objectContaining({ from: iso(24 * 60), to: iso(0), reason: 'page_truncated' }),
    ]);
    expect(c.pve2!.intervals).toHaveLength(1);
  });

  it('a node that answers an error is task_stage_failed; one the proxy cannot reach (595) source_unreachable', async () => {
    standin.fault('/nodes/pve1/tasks', { kind: 'status', status: 500, message: 'broken' });
    standin.nodeDown('pve2');
    await sync();
    const c = await byNode();
    expect(c.pve1!.gaps[0]).toMatchObject({ reason: 'task_stage_failed', detail: expect.stringContaining('500') });
    expect(c.pve2!.gaps[0]).toMatchObject({ reason: 'source_unreachable' });
    expect(c.pve3!.intervals).toHaveLength(1);
  });

  it('a node offline in /cluster/status is a gap; /cluster/status down puts one on every stream of the API', async () => {
    await sync();
    const status = structuredClone((labRoutes(cluster).get('GET /cluster/status') as RecordedResponse).body) as {
      data: Array<Record<string, unknown>>;
    };
    for (const e of status.data) if (e.name === 'pve3') e.online = 0;
    standin.route('GET', '/cluster/status', { body: status });
    await sync({ now: () => NOW.plus({ minutes: 10 }) });
    expect((await byNode()).pve3!.gaps[0]).toMatchObject({
      reason: 'source_unreachable',
      detail: 'node pve3 offline in /cluster/status',
    });
    standin.fault('/cluster/status', { kind: 'status', status: 595, message: 'no route' });
    await sync({ now: () => NOW.plus({ minutes: 20 }) });
    const c = await byNode();
    for (const node of ['pve1', 'pve2']) expect(c[node]!.gaps[0]).toMatchObject({ reason: 'source_unreachable' });
  });

  it('a task listed as starting after the read: the node clock is ahead', async () => {
    entries = [taskEntry({ node: 'pve1', type: 'qmstart', id: '101', start: iso(-1) })];
    await sync();
    expect((await byNode()).pve1!.clockOffsetSeconds).toBe(60);
  });
});
