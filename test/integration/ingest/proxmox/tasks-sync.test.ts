import { DateTime } from 'luxon';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { getEventsByIds, upsertEvents } from '../../../../src/graph/events.js';
import { getIngestCursor } from '../../../../src/graph/cursors.js';
import { upsertResources } from '../../../../src/graph/resources/upsert.js';
import { VANISHED_TASK_STATUS } from '../../../../src/ingest/proxmox/tasks-recheck.js';
import { syncProxmoxTasks, taskCursorId } from '../../../../src/ingest/proxmox/tasks-sync.js';
import { useGraph } from '../../../support/graph.js';
import { labRoutes, standinClient } from '../../../support/proxmox-lab.js';
import { type ProxmoxStandin, startProxmoxStandin } from '../../../support/proxmox-standin.js';
import { taskEntry, taskEvent, taskListResponder, upidOf, useEventCleanup } from '../../../support/proxmox-tasks.js';

const { driver, scope } = useGraph();
useEventCleanup(driver, scope);

const NOW = DateTime.fromISO('2026-05-14T12:00:00Z', { zone: 'utc' });
const iso = (minutesAgo: number, seconds = 0) =>
  NOW.minus({ minutes: minutesAgo, seconds }).toISO({ suppressMilliseconds: true })!;
const epoch = (minutesAgo: number) => Math.floor(NOW.minus({ minutes: minutesAgo }).toSeconds());

let standin: ProxmoxStandin;
let entries: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  standin = await startProxmoxStandin();
});
afterAll(async () => {
  await standin.close();
});

/** A fresh cluster per test: its own cursors, resources and events. */
let n = 0;
let cluster = '';
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
  standin.requests.length = 0;
});

const sync = (extra: Parameters<typeof syncProxmoxTasks>[2] = {}) =>
  syncProxmoxTasks(driver, standinClient(standin), { now: () => NOW, ...extra });
const sinceAsked = (node: string) =>
  standin.requests
    .filter((r) => r.path === `/nodes/${node}/tasks` && !r.query.has('until'))
    .map((r) => Number(r.query.get('since')));

describe('syncProxmoxTasks: a first pass and the next', () => {
  it('stores tasks, leaves malformed ones in the report, resolves guest kinds, and moves the cursor', async () => {
    await upsertResources(driver, [
      { id: `proxmox:${cluster}/lxc/200`, kind: 'lxc', provider: 'proxmox', name: `ct-${scope}`, state: 'running' },
    ]);
    const stop = taskEntry({
      node: 'pve1',
      type: 'qmstop',
      id: '101',
      user: 'alice@pve',
      start: iso(30),
      end: iso(30, -2),
    });
    const shutdown = taskEntry({
      node: 'pve1',
      type: 'qmshutdown',
      id: '102',
      user: 'bob@pve!ci',
      start: iso(5),
      end: null,
    });
    const haStop = taskEntry({
      node: 'pve2',
      type: 'hastop',
      id: '110',
      user: 'carol@pve',
      start: iso(20),
      end: iso(20, -1),
    });
    const haExec = taskEntry({
      node: 'pve2',
      type: 'qmshutdown',
      id: '110',
      user: 'root@pam',
      start: iso(20, -15),
      end: iso(20, -40),
    });
    const backup = taskEntry({
      node: 'pve1',
      type: 'vzdump',
      id: '200',
      user: 'root@pam',
      start: iso(60),
      end: iso(50),
    });
    const malformed = {
      upid: 'UPID:pve1:ZZZZ:00A1B2C3:6A05A0C0:qmstart:101:root@pam:',
      node: 'pve1',
      starttime: epoch(10),
      type: 'qmstart',
      status: 'OK',
      endtime: epoch(10),
    };
    const contradicting: Record<string, unknown> = {
      ...taskEntry({ node: 'pve1', type: 'qmstart', id: '101', start: iso(8), end: iso(8) }),
      type: 'qmstop',
    };
    entries = [stop, shutdown, haStop, haExec, backup, malformed, contradicting];

    const report = await sync();
    expect(report.errors).toEqual([]);
    expect(report).toMatchObject({
      scope: `proxmox:${cluster}`,
      complete: true,
      events: { transformed: 5, written: 5, created: 5, updated: 0 },
    });
    expect(report.skipped).toHaveLength(2);
    expect(report.skipped).toEqual(
      expect.arrayContaining([
        { what: 'row', id: malformed.upid, reason: expect.stringMatching(/pid "ZZZZ" must be exactly 8 hex digits/) },
        {
          what: 'row',
          id: contradicting.upid,
          reason: expect.stringMatching(/type "qmstop" disagrees with the UPID's "qmstart"/),
        },
      ]),
    );
    const { records } = await driver.executeQuery('MATCH (e:Event) WHERE e.id IN $ids RETURN count(e) AS n', {
      ids: [malformed.upid, contradicting.upid],
    });
    expect(Number(records[0]!.get('n'))).toBe(0);

    const stored = await getEventsByIds(driver, [
      String(stop.upid),
      String(shutdown.upid),
      String(haStop.upid),
      String(backup.upid),
    ]);
    expect(stored.map((e) => [e.rawType, e.resourceId, e.actor, e.actorKind, e.statusClass])).toEqual([
      ['qmstop', `proxmox:${cluster}/qemu/101`, 'alice@pve', 'human', 'ok'],
      ['qmshutdown', `proxmox:${cluster}/qemu/102`, 'bob@pve!ci', 'api_token', 'running'],
      // hastop names only a VMID: the listing's own qmshutdown for 110 says it is a VM.
      ['hastop', `proxmox:${cluster}/qemu/110`, 'carol@pve', 'human', 'ok'],
      // vzdump: the graph knows 200 is a container.
      ['vzdump', `proxmox:${cluster}/lxc/200`, 'root@pam', 'human', 'ok'],
    ]);

    // The first pass reads the initial look-back (24 h); the cursor is the newest start seen.
    expect(sinceAsked('pve1')).toEqual([epoch(24 * 60)]);
    expect((await getIngestCursor(driver, taskCursorId(cluster, 'pve1')))?.position).toBe(epoch(5));
    expect((await getIngestCursor(driver, taskCursorId(cluster, 'pve2')))?.position).toBe(
      Math.floor(NOW.minus({ minutes: 20, seconds: -15 }).toSeconds()),
    );

    // Next pass: from the cursor minus the overlap; the running shutdown is now finished, in place.
    standin.requests.length = 0;
    const finished = taskEntry({
      upid: String(shutdown.upid),
      node: 'pve1',
      type: 'qmshutdown',
      id: '102',
      user: 'bob@pve!ci',
      start: iso(5),
      end: iso(4),
    });
    entries = [stop, finished, haStop, haExec, backup];
    const next = await sync();
    expect(sinceAsked('pve1')).toEqual([epoch(5) - 300]);
    // pve1 re-reads only the shutdown; pve2 its two HA tasks (unchanged).
    expect(next.events).toMatchObject({ transformed: 3, created: 0, updated: 1 });
    const [done] = await getEventsByIds(driver, [String(shutdown.upid)]);
    expect(done).toMatchObject({ statusClass: 'ok', endedAt: iso(4), actor: 'bob@pve!ci', tokenId: 'ci' });
  });
});

describe('syncProxmoxTasks: running tasks the window no longer lists', () => {
  it('re-reads them by start second, type and VMID, and marks a vanished one unknown', async () => {
    const longAgo = {
      node: 'pve3',
      type: 'qmigrate',
      id: '130',
      user: 'alice@pve',
      start: NOW.minus({ days: 2 }).toISO()!,
    };
    const upid = upidOf(longAgo);
    const gone = { node: 'pve3', type: 'vzdump', id: '', user: 'root@pam', start: NOW.minus({ days: 3 }).toISO()! };
    const goneUpid = upidOf(gone);
    await upsertEvents(driver, [
      taskEvent(cluster, { ...longAgo, upid, end: null }),
      taskEvent(cluster, { ...gone, upid: goneUpid, end: null }),
    ]);
    entries = [taskEntry({ ...longAgo, upid, end: NOW.minus({ days: 2, seconds: -90 }).toISO()! })];

    const report = await sync();
    expect(report.errors).toEqual([]);
    expect(report.nodes.find((x) => x.node === 'pve3')).toMatchObject({ listed: 0, rechecked: 2, complete: true });
    const [migrated, vanished] = await getEventsByIds(driver, [upid, goneUpid]);
    expect(migrated).toMatchObject({
      statusClass: 'ok',
      endedAt: NOW.minus({ days: 2, seconds: -90 }).toISO({ suppressMilliseconds: true }),
    });
    expect(vanished).toMatchObject({ statusClass: 'unknown', statusText: VANISHED_TASK_STATUS, endedAt: null });
  });
});

describe('syncProxmoxTasks: paging and failures', () => {
  it('pages until the window is read; a window larger than maxPages keeps the cursor', async () => {
    entries = [1, 2, 3, 4, 5].map((m) =>
      taskEntry({ node: 'pve1', type: 'qmstart', id: '101', start: iso(m * 2), end: iso(m * 2, -1) }),
    );
    const report = await sync({ pageSize: 2 });
    expect(report.nodes.find((x) => x.node === 'pve1')).toMatchObject({ listed: 5, complete: true, cursor: epoch(2) });
    expect(standin.requests.filter((r) => r.path === '/nodes/pve1/tasks').map((r) => r.query.get('start'))).toEqual([
      null,
      '2',
      '4',
    ]);

    const c2 = `lab-${scope}-paging`;
    standin.routes(labRoutes(c2));
    standin.route(
      'GET',
      '/nodes/pve1/tasks',
      taskListResponder(() => entries),
    );
    standin.route(
      'GET',
      '/nodes/pve2/tasks',
      taskListResponder(() => []),
    );
    standin.route(
      'GET',
      '/nodes/pve3/tasks',
      taskListResponder(() => []),
    );
    const capped = await sync({ pageSize: 2, maxPages: 2 });
    expect(capped.complete).toBe(false);
    expect(capped.errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/more than 4 tasks since .*cursor kept/),
    ]);
    expect(capped.events.written).toBe(4);
    expect(await getIngestCursor(driver, taskCursorId(c2, 'pve1'))).toBeNull();
    expect(await getIngestCursor(driver, taskCursorId(c2, 'pve2'))).not.toBeNull();
  });

  it('a node that does not answer keeps its cursor; the others advance', async () => {
    entries = ['pve1', 'pve3'].map((node) =>
      taskEntry({ node, type: 'qmstart', id: '101', start: iso(3), end: iso(3) }),
    );
    standin.nodeDown('pve3');
    const report = await sync();
    expect(report.complete).toBe(false);
    expect(report.errors).toEqual([expect.objectContaining({ scope: `proxmox:${cluster}/node/pve3`, status: 595 })]);
    expect(report.events.written).toBe(1);
    expect(await getIngestCursor(driver, taskCursorId(cluster, 'pve1'))).not.toBeNull();
    expect(await getIngestCursor(driver, taskCursorId(cluster, 'pve3'))).toBeNull();
  });
});
