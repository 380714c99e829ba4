import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamCoverages } from '../../src/graph/coverage.js';
import { readFeed } from '../../src/graph/feed.js';
import { getTransition } from '../../src/graph/transitions/read.js';
import { proxmoxSource, type ProxmoxPassExtra } from '../../src/ingest/proxmox/source.js';
import type { TransitionRecord } from '../../src/model/index.js';
import { observe, type Observation } from '../../src/pipeline/observe.js';
import { useGraph } from '../support/graph.js';
import { labRoutes, patchData, standinClient, withLabTasks } from '../support/proxmox-lab.js';
import { startProxmoxStandin, type ProxmoxStandin, type RouteTable } from '../support/proxmox-standin.js';
import { taskEntry, useEventCleanup } from '../support/proxmox-tasks.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * Typed unknowns through the real pass against the Proxmox stand-in: pve1's task list does not
 * answer (595, as Proxmox's proxy answers for a node it cannot reach) while web01 on pve1 is
 * stopped by alice and esxi-nested01 on pve3 stops with no task. The first is `log_not_read`
 * naming pve1's gap, the second `no_record`; once pve1 answers again the next pass reads the gap
 * and web01's stop is explained again — high, alice@pve — with the first answer kept. The answers
 * are read over HTTP GraphQL too (transition, attributionCoverage).
 */
const { driver, scope } = useGraph();
useEventCleanup(driver, scope);
const c = `lab-${scope}`;
const id = (g: string) => `proxmox:${c}/${g}`;

let standin: ProxmoxStandin;
let srv: TestServer;
let entries: Array<Record<string, unknown>> = [];
let poll2: Observation<ProxmoxPassExtra>;
let poll3: Observation<ProxmoxPassExtra>;
let poll1At: string;

function withTasks(table: RouteTable): RouteTable {
  withLabTasks(table, () => entries);
  return table;
}
const deps = { driver, suppression: 'shadow' as const };
const iso = (t: DateTime) => t.toISO({ suppressMilliseconds: true })!;

beforeAll(async () => {
  standin = await startProxmoxStandin();
  srv = await startTestServer(driver);
  standin.routes(withTasks(labRoutes(c)));
  const p1 = await observe(deps, proxmoxSource(standinClient(standin)));
  expect(p1.correlation.created).toEqual([]);
  poll1At = p1.report.startedAt;

  const now = DateTime.utc();
  entries = [
    taskEntry({ node: 'pve1', type: 'qmstop', id: '101', user: 'alice@pve', start: iso(now.minus({ seconds: 2 })) }),
  ];
  const second = labRoutes(c, {
    patchListing: { 'qemu/101': { status: 'stopped' }, 'qemu/130': { status: 'stopped' } },
  });
  patchData(second, 'GET /nodes/pve1/qemu/101/status/current', { status: 'stopped', qmpstatus: 'stopped' });
  patchData(second, 'GET /nodes/pve3/qemu/130/status/current', { status: 'stopped', qmpstatus: 'stopped' });
  standin.routes(withTasks(second));
  standin.fault('/nodes/pve1/tasks', { kind: 'status', status: 595, message: 'no route to host' });
  poll2 = await observe(deps, proxmoxSource(standinClient(standin)));

  // pve1 answers again: the next pass reads its task list from before the gap.
  standin.clearFaults();
  poll3 = await observe(deps, proxmoxSource(standinClient(standin)));
}, 180_000);

afterAll(async () => {
  await srv?.close();
  await standin?.close();
});

const created = (g: string) => poll2.correlation.created.find((t) => t.resourceId === id(g));

describe('typed unknowns through the Proxmox pass', () => {
  it("pve1's task list did not answer: the pass recorded the gap with its reason, the other nodes' reads as covered", async () => {
    expect(poll2.extra.tasks.nodes.find((n) => n.node === 'pve1')).toMatchObject({
      complete: false,
      gap: { reason: 'source_unreachable' },
    });
    const streams = await streamCoverages(driver, {
      source: `proxmox:${c}`,
      since: poll1At,
      until: iso(DateTime.utc()),
    });
    expect(streams.map((s) => s.node)).toEqual(['pve1', 'pve2', 'pve3']);
    expect(streams[0]!.gaps[0]).toMatchObject({ reason: 'source_unreachable', detail: expect.stringContaining('595') });
  });

  it('the changes had their nodes read again after the inventory: pve3 past the observation, pve1 (its first read failed) not', () => {
    // Only nodes whose first read was complete are topped up; pve1 keeps its gap.
    expect(poll2.extra.topUp?.nodes.map((n) => [n.node, n.complete])).toEqual([['pve3', true]]);
  });

  it('the stop on the unreachable node is log_not_read, naming the gap and why', () => {
    const t = created('qemu/101')!;
    expect(t.attribution.confidence).toBe('none');
    expect(t.attribution.unknownBecause).toMatchObject({
      reason: 'log_not_read',
      gapReason: 'source_unreachable',
      node: 'pve1',
      from: expect.any(String),
      to: expect.any(String),
    });
    expect(t.narrative).toMatch(
      /Unknown: the task log of pve1 for .* UTC could not be read \(pve1 unreachable\), so the cause may be there\./,
    );
    expect(t.narrative).toMatch(/the cause is unknown\.$/);
  });

  it('a stop on a node whose log was read completely, with nothing in it, is no_record', () => {
    const t = created('qemu/130')!;
    expect(t.attribution.confidence).toBe('none');
    expect(t.attribution.unknownBecause).toMatchObject({ reason: 'no_record', node: 'pve3' });
    expect(t.narrative).toMatch(
      /No task or event explains this; the task log of pve3 for .* UTC was read completely\./,
    );
  });

  it('the node back and its log read: the stop is explained again (high, alice@pve), the first answer kept', async () => {
    expect(poll3.correlation.created).toEqual([]);
    expect(poll3.reexplained.map((t) => t.resourceId)).toEqual([id('qemu/101')]);
    const stored = (await getTransition(driver, created('qemu/101')!.id))!;
    expect(stored.attribution).toMatchObject({ confidence: 'high', actor: 'alice@pve', unknownBecause: null });
    expect(stored.narrative).toMatch(/Stopped by alice@pve/);
    expect(stored.attributionHistory).toEqual([
      expect.objectContaining({
        attribution: expect.objectContaining({
          confidence: 'none',
          unknownBecause: expect.objectContaining({ reason: 'log_not_read' }),
        }),
        narrative: created('qemu/101')!.narrative,
        replacedBecause: expect.stringMatching(/was read later/),
      }),
    ]);
    // no_record is a finding, not a gap: it is not explained again.
    expect((await getTransition(driver, created('qemu/130')!.id))!.attributionHistory).toBeUndefined();
  });

  it('a pass with nothing left to read explains nothing again', async () => {
    const p4 = await observe(deps, proxmoxSource(standinClient(standin)));
    expect(p4.reexplained).toEqual([]);
  });

  it('the feed holds the stop once as observed and once as explained again, with the answer before and why', async () => {
    const fed = (await readFeed(driver, { afterSeq: 0, limit: 1000, resourceId: id('qemu/101') })).filter(
      (e) => e.topic === 'transition',
    );
    expect(fed.map((e) => e.change)).toEqual(['observed', 'reexplained']);
    const again = fed[1]!.payload as TransitionRecord;
    expect(again.attribution).toMatchObject({ confidence: 'high', actor: 'alice@pve' });
    expect(again.attributionHistory!.at(-1)).toMatchObject({
      attribution: { confidence: 'none', unknownBecause: { reason: 'log_not_read' } },
      replacedBecause: expect.stringMatching(/\(pve1\) was read later$/),
    });
  });
});

describe('over GraphQL', () => {
  it('transition(id) answers unknownBecause and the attribution history', async () => {
    const { status, body } = await srv.gql(
      srv.tokens.agent,
      `query($id: ID!) { transition(id: $id) {
        attribution { confidence actor unknownBecause { reason } }
        attributionHistory { attribution { confidence unknownBecause { reason from to gapReason node detail } } narrative replacedAt replacedBecause }
      } }`,
      { id: created('qemu/101')!.id },
    );
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    const t = body.data.transition;
    expect(t.attribution).toEqual({ confidence: 'high', actor: 'alice@pve', unknownBecause: null });
    expect(t.attributionHistory).toHaveLength(1);
    expect(t.attributionHistory[0].attribution.unknownBecause).toMatchObject({
      reason: 'log_not_read',
      gapReason: 'source_unreachable',
      node: 'pve1',
    });
  });

  it('attributionCoverage: transitions by confidence and unknownBecause, each node log’s share read', async () => {
    const { status, body } = await srv.gql(
      srv.tokens.agent,
      `query($since: DateTime!, $until: DateTime, $source: String) { attributionCoverage(since: $since, until: $until, source: $source) {
        source transitions byConfidence { confidence count } byUnknownBecause { reason count } unclassified
        streams { stream node share coveredSeconds windowSeconds gaps { reason detail } }
      } }`,
      // An hour before the first poll (its backfill read a day) to the last pass.
      {
        since: iso(DateTime.fromISO(poll1At).minus({ hours: 1 })),
        until: poll3.report.startedAt,
        source: `proxmox:${c}`,
      },
    );
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    const a = body.data.attributionCoverage;
    expect(a.source).toBe(`proxmox:${c}`);
    expect(a.transitions).toBe(2);
    expect(a.byConfidence).toEqual([
      { confidence: 'high', count: 1 },
      { confidence: 'none', count: 1 },
    ]);
    expect(a.byUnknownBecause).toEqual([{ reason: 'no_record', count: 1 }]);
    expect(a.unclassified).toBe(0);
    expect(a.streams.map((s: { node: string }) => s.node)).toEqual(['pve1', 'pve2', 'pve3']);
    for (const s of a.streams) expect(s.share).toBeGreaterThan(0.99);
    expect(a.streams[0].gaps).toEqual([{ reason: 'source_unreachable', detail: expect.stringContaining('595') }]);
  });

  it('a bad window is refused naming the field', async () => {
    const { body } = await srv.gql(
      srv.tokens.agent,
      `{ attributionCoverage(since: "2026-05-14T03:00:00Z", until: "2026-05-14T02:00:00Z") { transitions } }`,
    );
    expect(body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'until' });
  });

  it('incidentContext states the coverage of its window', async () => {
    const { status, body } = await srv.gql(
      srv.tokens.agent,
      `query($r: ID!, $since: DateTime!) { incidentContext(resourceId: $r, since: $since, depth: 1) {
        coverage { node share gaps { reason } } narrative
      } }`,
      { r: id('qemu/101'), since: iso(DateTime.fromISO(poll1At).minus({ hours: 1 })) },
    );
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    const ctx = body.data.incidentContext;
    expect(ctx.coverage.map((x: { node: string }) => x.node)).toEqual(['pve1', 'pve2', 'pve3']);
    expect(ctx.coverage[0].gaps).toEqual([{ reason: 'source_unreachable' }]);
    expect(ctx.narrative).toMatch(
      /The provider logs \(pve1, pve2, pve3\) were read completely for the window\. In short:/,
    );
  });
});
