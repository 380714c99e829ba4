import { DateTime } from 'luxon';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { streamCoverages } from '../../../../src/graph/coverage.js';
import { syncProxmoxTasks } from '../../../../src/ingest/proxmox/tasks-sync.js';
import type { StreamCoverage } from '../../../../src/model/index.js';
import { useGraph } from '../../../support/graph.js';
import { labRoutes, standinClient } from '../../../support/proxmox-lab.js';
import {
  type ProxmoxStandin,
  type RecordedResponse,
  type StandinRequest,
  startProxmoxStandin,
} from '../../../support/proxmox-standin.js';
import { taskEntry, taskListResponder, useEventCleanup } from '../../../support/proxmox-tasks.js';

/** A server that answers at most `max` rows whatever `limit` asks (the envelope's `total` still counts all). */
function cappedAt(max: number, inner: ReturnType<typeof taskListResponder>) {
  return (req: StandinRequest) => {
    const q = new URLSearchParams(req.query);
    q.set('limit', String(Math.min(max, Number(q.get('limit') ?? 50))));
    return inner({ ...req, query: q });
  };
}

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

  it('a window with more tasks than the pass reads is page_truncated before the oldest end it read; after it is covered', async () => {
    entries = [1, 2, 3, 4, 5].map((m) => taskEntry({ node: 'pve1', type: 'qmstart', id: '101', start: iso(m * 2) }));
    await sync({ pageSize: 2, maxPages: 2 });
    const c = await byNode();
    // Read: the four newest by end (2…8 min ago). Every task starting after 8 min ago is among them.
    const proven = NOW.minus({ minutes: 8 }).plus({ seconds: 1 }).toISO({ suppressMilliseconds: true })!;
    expect(c.pve1!.intervals).toEqual([{ from: proven, to: iso(0) }]);
    expect(c.pve1!.gaps).toEqual([
      expect.objectContaining({ from: iso(24 * 60), to: proven, reason: 'page_truncated' }),
    ]);
    expect(c.pve2!.intervals).toHaveLength(1);
  });

  it('a server that honours a smaller limit than asked: paged on by `total`, read completely', async () => {
    entries = [1, 2, 3, 4, 5].map((m) => taskEntry({ node: 'pve1', type: 'qmstart', id: '101', start: iso(m * 2) }));
    standin.route(
      'GET',
      '/nodes/pve1/tasks',
      cappedAt(
        2,
        taskListResponder(() => entries),
      ),
    );
    const r = await sync({ pageSize: 500 });
    expect(r.nodes.find((x) => x.node === 'pve1')).toMatchObject({ complete: true, listed: 5 });
    expect(r.events.created).toBe(5);
    const c = await byNode();
    expect(c.pve1!.intervals).toEqual([{ from: iso(24 * 60), to: iso(0) }]);
    expect(c.pve1!.gaps).toEqual([]);
  });

  it('the same server with too few pages to reach `total`: page_truncated, not complete', async () => {
    entries = [1, 2, 3, 4, 5].map((m) => taskEntry({ node: 'pve1', type: 'qmstart', id: '101', start: iso(m * 2) }));
    standin.route(
      'GET',
      '/nodes/pve1/tasks',
      cappedAt(
        2,
        taskListResponder(() => entries),
      ),
    );
    const r = await sync({ pageSize: 500, maxPages: 1 });
    expect(r.nodes.find((x) => x.node === 'pve1')).toMatchObject({
      complete: false,
      gap: { reason: 'page_truncated' },
    });
    const c = await byNode();
    expect(c.pve1!.gaps[0]).toMatchObject({ from: iso(24 * 60), reason: 'page_truncated' });
    expect(c.pve1!.intervals[0]!.from > iso(24 * 60)).toBe(true);
  });

  it('a list whose `total` promises more than it ever sends: not complete', async () => {
    entries = [taskEntry({ node: 'pve1', type: 'qmstart', id: '101', start: iso(3) })];
    const inner = taskListResponder(() => entries);
    standin.route('GET', '/nodes/pve1/tasks', async (req) => {
      const r = await inner(req);
      return { body: { ...(r.body as object), total: 7 } };
    });
    const r = await sync();
    expect(r.nodes.find((x) => x.node === 'pve1')).toMatchObject({
      complete: false,
      gap: { reason: 'page_truncated' },
    });
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

  it('a task new to the next read that started inside the previous complete read: the node clock is behind', async () => {
    await sync();
    expect((await byNode()).pve1!.clockOffsetSeconds).toBe(0);
    // On pve1's clock it started 45 s before aitia's first read, yet that read did not list it.
    entries = [taskEntry({ node: 'pve1', type: 'qmstop', id: '101', start: NOW.minus({ seconds: 45 }).toSeconds() })];
    const r = await sync({ now: () => NOW.plus({ minutes: 1 }) });
    expect(r.nodes.find((x) => x.node === 'pve1')).toMatchObject({ complete: true, clockBehindSeconds: 45 });
    const c = await byNode();
    expect(c.pve1!.clockOffsetSeconds).toBe(-45);
    expect(c.pve2!.clockOffsetSeconds).toBe(0);
  });

  it('a task re-listed by the overlap (already stored) says nothing of the clock', async () => {
    entries = [taskEntry({ node: 'pve1', type: 'qmstop', id: '101', start: iso(2) })];
    await sync();
    await sync({ now: () => NOW.plus({ minutes: 1 }) });
    expect((await byNode()).pve1!.clockOffsetSeconds).toBe(0);
  });
});
