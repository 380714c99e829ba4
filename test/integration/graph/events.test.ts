import { describe, expect, it } from 'vitest';
import { candidateWindow } from '../../../correlator/window.js';
import type { EventRecord } from '../../../src/model/index.js';
import { appendEvents } from '../../../src/graph/events-append.js';
import {
  findCandidateEvents,
  getEventsByIds,
  linkEventsToResources,
  listEvents,
  upsertEvents,
} from '../../../src/graph/events.js';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { useGraph } from '../../support/graph.js';
import { taskEvent, upidOf } from '../../support/proxmox-tasks.js';

const { driver, scope } = useGraph();
const cluster = `lab-${scope}`;
const node = `n${scope}`;
const vm = (vmid: string) => `proxmox:${cluster}/qemu/${vmid}`;

async function eventCount(id: string): Promise<number> {
  const { records } = await driver.executeQuery('MATCH (e:Event {id: $id}) RETURN count(e) AS n', { id });
  return Number(records[0]!.get('n'));
}

async function concerns(id: string): Promise<string[]> {
  const { records } = await driver.executeQuery(
    'MATCH (:Event {id: $id})-[:CONCERNS]->(r:Resource) RETURN r.id AS id',
    { id },
  );
  return records.map((r) => r.get('id') as string);
}

describe('upsertEvents: idempotent on the event id', () => {
  it('the same UPID twice is one event, and the second write changes nothing', async () => {
    const upid = upidOf({ node, type: 'qmstop', id: '101', user: 'alice@pve', start: '2026-05-14T02:08:29Z' });
    const e = taskEvent(cluster, {
      upid,
      node,
      type: 'qmstop',
      start: '2026-05-14T02:08:29Z',
      end: '2026-05-14T02:08:30Z',
    });
    const first = await upsertEvents(driver, [e], { at: '2026-05-14T02:09:00Z' });
    const second = await upsertEvents(driver, [e], { at: '2026-05-14T02:10:00Z' });
    expect(first).toMatchObject({ written: 1, created: 1, updated: 0 });
    expect(second).toMatchObject({ written: 1, created: 0, updated: 0 });
    expect(await eventCount(upid)).toBe(1);
    const [stored] = await getEventsByIds(driver, [upid]);
    expect(stored).toMatchObject({ ...e, ingestedAt: '2026-05-14T02:09:00Z', updatedAt: null });
  });

  it('a running task seen finished later is updated in place', async () => {
    const upid = upidOf({ node, type: 'qmshutdown', id: '102', user: 'bob@pve', start: '2026-05-14T03:00:00Z' });
    const running = taskEvent(cluster, { upid, node, type: 'qmshutdown', start: '2026-05-14T03:00:00Z', end: null });
    const finished = taskEvent(cluster, {
      upid,
      node,
      type: 'qmshutdown',
      start: '2026-05-14T03:00:00Z',
      end: '2026-05-14T03:01:02Z',
    });
    expect(await upsertEvents(driver, [running], { at: '2026-05-14T03:00:10Z' })).toMatchObject({
      created: 1,
      updated: 0,
    });
    expect(await upsertEvents(driver, [finished], { at: '2026-05-14T03:01:30Z' })).toMatchObject({
      created: 0,
      updated: 1,
    });
    expect(await eventCount(upid)).toBe(1);
    const [stored] = await getEventsByIds(driver, [upid]);
    expect(stored).toMatchObject({
      statusClass: 'ok',
      statusText: 'OK',
      endedAt: '2026-05-14T03:01:02Z',
      updatedAt: '2026-05-14T03:01:30Z',
    });

    // A stale read that still shows it running does not turn it back.
    expect(await upsertEvents(driver, [running])).toMatchObject({ created: 0, updated: 0 });
    expect((await getEventsByIds(driver, [upid]))[0]).toMatchObject({
      statusClass: 'ok',
      endedAt: '2026-05-14T03:01:02Z',
    });
  });

  it('the same id twice in one call is one event', async () => {
    const upid = upidOf({ node, type: 'qmstart', id: '103', start: '2026-05-14T04:00:00Z' });
    const e = taskEvent(cluster, { upid, node, type: 'qmstart', start: '2026-05-14T04:00:00Z' });
    expect(await upsertEvents(driver, [e, e])).toMatchObject({ written: 1, created: 1 });
    expect(await eventCount(upid)).toBe(1);
  });

  it('a bad row fails the call, naming its field, and writes nothing', async () => {
    const good = taskEvent(cluster, { node, type: 'qmstart', id: '104', start: '2026-05-14T04:00:00Z' });
    const bad = {
      ...taskEvent(cluster, { node, type: 'qmstop', id: '104', start: '2026-05-14T04:01:00Z' }),
      startedAt: 'yesterday',
    };
    await expect(upsertEvents(driver, [good, bad])).rejects.toThrow(/events\[1\]\.startedAt: must be an ISO-8601 time/);
    expect(await eventCount(good.id)).toBe(0);
  });
});

/** A vCenter event (history: append-only), its id in this file's scope. */
const vcEvent = (key: number, over: Partial<EventRecord> = {}): EventRecord => ({
  id: `vcenter:vc-${scope}/event/${key}`,
  provider: 'vcenter',
  resourceId: null,
  resourceKind: null,
  objectId: 'vm-101',
  hostId: null,
  node: null,
  sourceNode: null,
  type: 'vm_stop',
  rawType: 'VmPoweredOffEvent',
  actor: 'VSPHERE.LOCAL\\alice',
  actorKind: 'human',
  tokenId: null,
  startedAt: '2026-05-14T02:08:30Z',
  endedAt: '2026-05-14T02:08:30Z',
  statusClass: 'ok',
  statusText: null,
  chainId: String(key),
  message: 'web-01 is powered off',
  pid: null,
  pstart: null,
  ...over,
});

async function storedContent(id: string): Promise<string | null> {
  const [e] = await getEventsByIds(driver, [id]);
  return e ? `${e.actor} ${e.type} ${e.startedAt} ${e.message}` : null;
}

describe('appendEvents: history is append-only, decided inside the write', () => {
  it('creates, keeps the same content (another zone notation too), refuses other content naming the fields', async () => {
    const e = vcEvent(1);
    expect(await appendEvents(driver, [e])).toMatchObject({ written: 1, created: 1, conflicts: [] });
    const before = await getEventsByIds(driver, [e.id]);
    const again = await appendEvents(driver, [{ ...e, startedAt: '2026-05-14T04:08:30+02:00' }]);
    expect(again).toMatchObject({ written: 1, created: 0, updated: 0, conflicts: [] });
    const other = await appendEvents(driver, [
      { ...e, actor: 'VSPHERE.LOCAL\\mallory', endedAt: null, statusClass: 'error', message: null },
    ]);
    expect(other).toMatchObject({
      written: 0,
      created: 0,
      conflicts: [{ id: e.id, fields: ['actor', 'endedAt', 'statusClass', 'message'] }],
    });
    expect(await getEventsByIds(driver, [e.id])).toEqual(before);
  });

  it.each([10, 20])(
    '%i concurrent writers of one id with different content: one content stored, the rest conflicts',
    async (n) => {
      const key = 100 + n;
      const copies = Array.from({ length: n }, (_, i) =>
        vcEvent(key, { actor: `VSPHERE.LOCAL\\user${i}`, message: `copy ${i}` }),
      );
      const results = await Promise.all(copies.map((c) => appendEvents(driver, [c])));
      const winners = results.flatMap((r, i) => (r.created === 1 ? [i] : []));
      expect(winners).toHaveLength(1);
      expect(results.filter((r) => r.conflicts.length === 1 && r.written === 0)).toHaveLength(n - 1);
      for (const r of results) if (r.conflicts.length > 0) expect(r.conflicts[0]!.fields).toEqual(['actor', 'message']);
      expect(await eventCount(copies[0]!.id)).toBe(1);
      const w = copies[winners[0]!]!;
      expect(await storedContent(w.id)).toBe(`${w.actor} vm_stop 2026-05-14T02:08:30Z ${w.message}`);
    },
  );

  it('concurrent writers of the same content: one creates, the others are the same event', async () => {
    const e = vcEvent(200);
    const results = await Promise.all(Array.from({ length: 12 }, () => appendEvents(driver, [e])));
    expect(results.map((r) => r.created).reduce((a, b) => a + b)).toBe(1);
    expect(results.every((r) => r.written === 1 && r.conflicts.length === 0)).toBe(true);
  });

  it('an event already written by upsertEvents is compared too; a conflicting row in a batch leaves the others written', async () => {
    const legacy = vcEvent(300);
    await upsertEvents(driver, [legacy]);
    const res = await appendEvents(driver, [
      vcEvent(301),
      { ...legacy, type: 'vm_start', rawType: 'VmPoweredOnEvent' },
      vcEvent(302),
    ]);
    expect(res).toMatchObject({ written: 2, created: 2, conflicts: [{ id: legacy.id, fields: ['type', 'rawType'] }] });
    expect((await getEventsByIds(driver, [legacy.id]))[0]).toMatchObject({ type: 'vm_stop' });
  });

  it('the same id twice in one call is refused, naming both, and nothing is written', async () => {
    const a = vcEvent(400);
    await expect(appendEvents(driver, [vcEvent(401), a, { ...a }])).rejects.toThrow(
      /^events\[2\]\.id: .*\/event\/400 is also events\[1\]/,
    );
    expect(await eventCount(vcEvent(401).id)).toBe(0);
  });

  it('the same content again may link a resource found since; a conflicting row links nothing', async () => {
    const rid = `vcenter:vc-${scope}/vm/vm-501`;
    const e = vcEvent(500);
    await appendEvents(driver, [e]);
    await upsertResources(driver, [{ id: rid, kind: 'vm', provider: 'vcenter', name: `w-${scope}`, state: 'running' }]);
    const conflicting = await appendEvents(driver, [{ ...e, actor: null, resourceId: rid, resourceKind: 'vm' }]);
    expect(conflicting.conflicts).toHaveLength(1);
    expect(await concerns(e.id)).toEqual([]);
    const linked = await appendEvents(driver, [{ ...e, resourceId: rid, resourceKind: 'vm' }]);
    expect(linked).toMatchObject({ written: 1, updated: 1, conflicts: [] });
    expect(await concerns(e.id)).toEqual([rid]);
  });
});

describe('upsertEvents: the resource link', () => {
  it('links CONCERNS when the resource exists, keeps resourceId when it does not, links later', async () => {
    await upsertResources(driver, [
      { id: vm('201'), kind: 'vm', provider: 'proxmox', name: `known-${scope}`, state: 'running' },
    ]);
    const known = taskEvent(cluster, { node, type: 'qmreset', id: '201', start: '2026-05-14T05:00:00Z' });
    const unknown = taskEvent(cluster, { node, type: 'qmreset', id: '202', start: '2026-05-14T05:00:00Z' });
    const res = await upsertEvents(driver, [known, unknown]);
    expect(res.unlinkedResourceIds).toEqual([vm('202')]);
    expect(await concerns(known.id)).toEqual([vm('201')]);
    expect(await concerns(unknown.id)).toEqual([]);
    expect((await getEventsByIds(driver, [unknown.id]))[0]!.resourceId).toBe(vm('202'));

    await upsertResources(driver, [
      { id: vm('202'), kind: 'vm', provider: 'proxmox', name: `later-${scope}`, state: 'running' },
    ]);
    expect(await linkEventsToResources(driver, [vm('202')])).toBe(1);
    expect(await linkEventsToResources(driver, [vm('202')])).toBe(0);
    expect(await concerns(unknown.id)).toEqual([vm('202')]);
  });

  it('a later read that cannot name the resource does not unset it', async () => {
    const upid = upidOf({ node, type: 'hastop', id: '203', user: 'carol@pve', start: '2026-05-14T06:00:00Z' });
    const resolved = taskEvent(cluster, { upid, node, type: 'hastop', start: '2026-05-14T06:00:00Z' });
    await upsertEvents(driver, [resolved]);
    await upsertEvents(driver, [{ ...resolved, resourceId: null, resourceKind: null }]);
    expect((await getEventsByIds(driver, [upid]))[0]).toMatchObject({ resourceId: vm('203'), resourceKind: 'vm' });
  });
});

describe('findCandidateEvents: by resource and start window, on the index', () => {
  const rid = vm('301');
  const observedAt = '2026-05-14T12:00:00Z';

  it('returns tasks started in the window and running tasks started before it, nothing else', async () => {
    const inWindow = taskEvent(cluster, {
      node,
      type: 'qmshutdown',
      id: '301',
      start: '2026-05-14T11:59:00Z',
      end: '2026-05-14T11:59:58Z',
    });
    const longRunning = taskEvent(cluster, {
      node,
      type: 'qmigrate',
      id: '301',
      start: '2026-05-14T08:00:00Z',
      end: null,
    });
    const longAgo = taskEvent(cluster, {
      node,
      type: 'qmstart',
      id: '301',
      start: '2026-05-14T08:00:01Z',
      end: '2026-05-14T08:00:05Z',
    });
    const afterwards = taskEvent(cluster, { node, type: 'qmstart', id: '301', start: '2026-05-14T12:00:30Z' });
    const otherVm = taskEvent(cluster, { node, type: 'qmstop', id: '302', start: '2026-05-14T11:59:59Z' });
    const otherCluster = taskEvent(`other-${scope}`, {
      node,
      type: 'qmstop',
      id: '301',
      start: '2026-05-14T11:59:59Z',
    });
    await upsertEvents(driver, [inWindow, longRunning, longAgo, afterwards, otherVm, otherCluster]);
    const found = await findCandidateEvents(driver, rid, candidateWindow(observedAt)!);
    expect(found.map((e) => e.id)).toEqual([longRunning.id, inWindow.id]);
    expect(found[1]).toMatchObject({ startedAt: '2026-05-14T11:59:00Z', endedAt: '2026-05-14T11:59:58Z' });
  });

  it('the planner seeks the (resourceId, startedAt) index instead of scanning events', async () => {
    const w = candidateWindow(observedAt)!;
    const { summary } = await driver.executeQuery(
      `EXPLAIN MATCH (e:Event) WHERE e.resourceId = $rid AND e.startedAt >= datetime($from) AND e.startedAt <= datetime($to) RETURN e`,
      { rid, from: w.from, to: w.to },
    );
    const ops: string[] = [];
    const walk = (p: { operatorType: string; children: unknown[] }) => {
      ops.push(p.operatorType);
      p.children.forEach((c) => walk(c as never));
    };
    walk(summary.plan as never);
    expect(ops.some((o) => /NodeIndexSeek/.test(o))).toBe(true);
    expect(ops.some((o) => /NodeByLabelScan|AllNodesScan/.test(o))).toBe(false);
  });
});

describe('listEvents', () => {
  it("lists a resource's events newest first, since a time", async () => {
    const rid = vm('401');
    const a = taskEvent(cluster, { node, type: 'qmstart', id: '401', start: '2026-05-14T10:00:00Z' });
    const b = taskEvent(cluster, { node, type: 'qmstop', id: '401', start: '2026-05-14T11:00:00Z' });
    const c = taskEvent(cluster, { node, type: 'qmstart', id: '401', start: '2026-05-14T12:00:00Z' });
    await upsertEvents(driver, [a, b, c]);
    expect((await listEvents(driver, { resourceId: rid })).map((e) => e.id)).toEqual([c.id, b.id, a.id]);
    expect(
      (await listEvents(driver, { resourceId: rid, since: '2026-05-14T10:30:00Z', first: 1 })).map((e) => e.id),
    ).toEqual([c.id]);
    await expect(listEvents(driver, { resourceId: rid, first: 0 })).rejects.toThrow(
      /first: must be an integer from 1 to 500/,
    );
  });
});
