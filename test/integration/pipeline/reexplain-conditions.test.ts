import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDriver } from '../../../src/graph/db/driver.js';
import { readFeed } from '../../../src/graph/feed.js';
import { searchConditions } from '../../../src/graph/conditions.js';
import { getTransition } from '../../../src/graph/transitions/read.js';
import { recordTransitions } from '../../../src/graph/transitions/record.js';
import { replaceAttributions, type Reattribution } from '../../../src/graph/transitions/reexplain.js';
import { proxmoxSource, type ProxmoxPassExtra } from '../../../src/ingest/proxmox/source.js';
import { notificationOf } from '../../../src/integrations/notification-events.js';
import type { ConditionRecord, FeedEntry, TransitionRecord } from '../../../src/model/index.js';
import { reviseCondition, type ConditionPolicy } from '../../../src/pipeline/conditions.js';
import { observe, type Observation } from '../../../src/pipeline/observe.js';
import { decideTransition } from '../../../src/policy/transition-gate.js';
import { writeConditions } from '../../../src/scheduler/condition-write.js';
import { useGraph } from '../../support/graph.js';
import { startTestServer } from '../../support/server.js';
import { labRoutes, patchData, standinClient, withLabTasks } from '../../support/proxmox-lab.js';
import { startProxmoxStandin, type ProxmoxStandin, type RouteTable } from '../../support/proxmox-standin.js';
import { taskEntry, useEventCleanup } from '../../support/proxmox-tasks.js';

/**
 * A re-explanation reaches the feed and revisits what followed from the first answer, against the
 * Proxmox stand-in and a real Neo4j: pve1's task list does not answer while web01 is stopped by
 * alice (a task) and dns01 stops with no task; both stops are log_not_read, and the health
 * scheduler's write opens a check_failing on each, paging (cause unknown). pve1 back, the next
 * pass explains both again in one write: web01's stop is alice's (high), its condition takes that
 * attribution and is suppressed (suppression on) with an audit line; dns01's is no_record, its
 * condition keeps paging. Each is on the feed once; replaying the same re-explanation writes nothing.
 */
const { driver, scope } = useGraph();
useEventCleanup(driver, scope);
const c = `lab-${scope}`;
const id = (g: string) => `proxmox:${c}/${g}`;
const policy: ConditionPolicy = { suppression: 'on', policyDigest: `digest-${scope}`, causeWindowSeconds: 900 };
const deps = { driver, suppression: 'on' as const, conditions: policy };
const writer = { name: `scheduler-${scope}`, role: 'scheduler' as const };
const iso = (t: DateTime) => t.toISO({ suppressMilliseconds: true })!;

let standin: ProxmoxStandin;
let entries: Array<Record<string, unknown>> = [];
let poll2: Observation<ProxmoxPassExtra>;
let poll3: Observation<ProxmoxPassExtra>;
let firstAnswers: TransitionRecord[];
let feedBefore: number;

function withTasks(table: RouteTable): RouteTable {
  withLabTasks(table, () => entries);
  return table;
}
const stop = (g: string) => poll2.correlation.created.find((t) => t.resourceId === id(g))!;
const feedOf = async (g: string): Promise<FeedEntry[]> =>
  readFeed(driver, { afterSeq: feedBefore, limit: 1000, resourceId: id(g) });
async function checkFailing(g: string): Promise<ConditionRecord> {
  const page = await searchConditions(driver, { resourceId: id(g), type: 'check_failing' }, { first: 5 });
  expect(page.nodes).toHaveLength(1);
  return page.nodes[0]!;
}
const auditOf = async (conditionId: string) =>
  (
    await driver.executeQuery(
      'MATCH (a:AuditEntry) WHERE $id IN a.targetIds RETURN a.operation AS op, a.detail AS detail ORDER BY a.at',
      { id: conditionId },
    )
  ).records.map((r) => ({ op: r.get('op') as string, detail: r.get('detail') as string }));

beforeAll(async () => {
  standin = await startProxmoxStandin();
  standin.routes(withTasks(labRoutes(c)));
  await observe(deps, proxmoxSource(standinClient(standin)));

  const now = DateTime.utc();
  entries = [
    taskEntry({ node: 'pve1', type: 'qmstop', id: '101', user: 'alice@pve', start: iso(now.minus({ seconds: 2 })) }),
  ];
  const second = labRoutes(c, {
    patchListing: { 'qemu/101': { status: 'stopped' }, 'lxc/200': { status: 'stopped' } },
  });
  patchData(second, 'GET /nodes/pve1/qemu/101/status/current', { status: 'stopped', qmpstatus: 'stopped' });
  patchData(second, 'GET /nodes/pve1/lxc/200/status/current', { status: 'stopped' });
  standin.routes(withTasks(second));
  standin.fault('/nodes/pve1/tasks', { kind: 'status', status: 595, message: 'no route to host' });
  poll2 = await observe(deps, proxmoxSource(standinClient(standin)));
  firstAnswers = [stop('qemu/101'), stop('lxc/200')];

  // The health scheduler finds both down: each condition follows its stop, cause unknown, and pages.
  const at = iso(DateTime.utc());
  await writeConditions(driver, policy, writer, {
    open: ['qemu/101', 'lxc/200'].map((g) => ({
      resourceId: id(g),
      type: 'check_failing' as const,
      evidence: { check: 'ping' },
      at,
    })),
  });
  const latest = await driver.executeQuery("MATCH (f:FeedCounter {id: 'feed'}) RETURN f.seq AS seq");
  feedBefore = Number(latest.records[0]!.get('seq'));

  standin.clearFaults();
  poll3 = await observe(deps, proxmoxSource(standinClient(standin)));
}, 180_000);

afterAll(async () => {
  await driver.executeQuery(
    'MATCH (a:AuditEntry) WHERE any(t IN a.targetIds WHERE t CONTAINS $scope) DETACH DELETE a',
    { scope },
  );
  await standin?.close();
});

describe('the first answers', () => {
  it('both stops are log_not_read, and their conditions opened paging with that cause', async () => {
    for (const t of firstAnswers) expect(t.attribution.unknownBecause?.reason).toBe('log_not_read');
    for (const g of ['qemu/101', 'lxc/200']) {
      const cond = (await checkFailing(g)).attributionHistory![0]!;
      expect(cond).toMatchObject({ suppressed: false, wouldSuppress: false, attribution: { confidence: 'none' } });
      expect(cond.suppressionReasons[0]).toMatch(/none confidence/);
    }
  });
});

describe('the log read later', () => {
  it('both are explained again in the pass that read the gap', () => {
    expect(poll3.reexplained.map((t) => t.resourceId).sort()).toEqual([id('lxc/200'), id('qemu/101')]);
  });

  it("web01's stop is alice's now, and its stored gate decision is the new one", async () => {
    const t = (await getTransition(driver, stop('qemu/101').id))!;
    expect(t.attribution).toMatchObject({ confidence: 'high', actor: 'alice@pve' });
    expect(t.decision.decision).toBe('suppress');
    expect(t.decision.reasons[0]).toMatch(/suppression is on/);
    expect(t.attributionHistory![0]!.decision.decision).toBe('open_incident');
  });

  it('is on the feed once, with the answer before, the answer now and why; its sequence moved there', async () => {
    const fed = (await feedOf('qemu/101')).filter((e) => e.topic === 'transition');
    expect(fed.map((e) => e.change)).toEqual(['reexplained']);
    const p = fed[0]!.payload as TransitionRecord;
    expect(p.attribution.confidence).toBe('high');
    expect(p.attributionHistory!.at(-1)).toMatchObject({
      attribution: { confidence: 'none', unknownBecause: { reason: 'log_not_read' } },
      replacedBecause: expect.stringMatching(/\(pve1\) was read later$/),
    });
    expect((await getTransition(driver, p.id))!.sequence).toBe(fed[0]!.seq);
  });

  it("web01's condition takes the new attribution, is suppressed from now on, and keeps the first answer", async () => {
    const cond = await checkFailing('qemu/101');
    expect(cond.status).toBe('open');
    expect(cond.attribution).toMatchObject({
      confidence: 'high',
      actor: 'alice@pve',
      transitionId: stop('qemu/101').id,
    });
    expect(cond).toMatchObject({ suppressed: true, wouldSuppress: false, policyDigest: `digest-${scope}` });
    expect(cond.suppressionReasons.join(' ')).toMatch(/expected: follows an intentional change by alice@pve/);
    expect(cond.attributionHistory).toHaveLength(1);
    expect(cond.attributionHistory![0]).toMatchObject({
      attribution: { confidence: 'none' },
      suppressed: false,
      replacedBecause: expect.stringMatching(/was read later/),
    });
    const conditionFeed = (await feedOf('qemu/101')).filter((e) => e.topic === 'condition');
    expect(conditionFeed.map((e) => e.change)).toEqual(['reattributed']);
    expect((conditionFeed[0]!.payload as ConditionRecord).suppressed).toBe(true);
    const audit = await auditOf(cond.id);
    expect(audit.map((a) => a.op)).toEqual(['conditionSuppressed']);
    expect(audit[0]!.detail).toMatch(/after its cause was explained again \(the log for .* \(pve1\) was read later\)/);
    expect(audit[0]!.detail).toMatch(new RegExp(`policy digest-${scope}$`));
  });

  it("dns01's stop is no_record now: its condition takes that answer and still pages, unaudited", async () => {
    const t = (await getTransition(driver, stop('lxc/200').id))!;
    expect(t.attribution).toMatchObject({ confidence: 'none', unknownBecause: { reason: 'no_record' } });
    const cond = await checkFailing('lxc/200');
    expect(cond.attribution).toMatchObject({ confidence: 'none', unknownBecause: { reason: 'no_record' } });
    expect(cond).toMatchObject({ suppressed: false, wouldSuppress: false });
    expect(cond.attributionHistory![0]!.attribution).toMatchObject({ unknownBecause: { reason: 'log_not_read' } });
    expect((await feedOf('lxc/200')).map((e) => `${e.topic}:${e.change}`)).toEqual([
      'transition:reexplained',
      'condition:reattributed',
    ]);
    expect(await auditOf(cond.id)).toEqual([]);
  });
});

describe('over GraphQL', () => {
  it('Condition.attributionHistory answers the first answer; the transition its new decision', async () => {
    const srv = await startTestServer(driver);
    try {
      const { status, body } = await srv.gql(
        srv.tokens.agent,
        `query($r: ID!, $t: ID!) {
          conditions(filter: {resourceId: $r, type: check_failing}) { nodes {
            suppressed expected attribution
            attributionHistory { attribution suppressed wouldSuppress suppressionReasons policyDigest replacedAt replacedBecause }
          } }
          transition(id: $t) { sequence decision { decision } attributionHistory { decision { decision } replacedBecause } }
        }`,
        { r: id('qemu/101'), t: stop('qemu/101').id },
      );
      expect(status).toBe(200);
      expect(body.errors).toBeUndefined();
      const [cond] = body.data.conditions.nodes;
      expect(cond).toMatchObject({ suppressed: true, expected: true, attribution: { actor: 'alice@pve' } });
      expect(cond.attributionHistory).toEqual([
        expect.objectContaining({
          attribution: expect.objectContaining({ confidence: 'none' }),
          suppressed: false,
          wouldSuppress: false,
          replacedBecause: expect.stringMatching(/was read later$/),
        }),
      ]);
      expect(body.data.transition).toMatchObject({
        decision: { decision: 'suppress' },
        attributionHistory: [{ decision: { decision: 'open_incident' } }],
      });
    } finally {
      await srv.close();
    }
  });
});

describe('notifications', () => {
  it('the stored entries reach receivers as transition.reexplained and condition.reattributed, with before and after', async () => {
    const messages = (await feedOf('qemu/101')).map(notificationOf);
    expect(messages.map((m) => m?.event)).toEqual(['transition.reexplained', 'condition.reattributed']);
    expect(messages[0]!.payload).toMatchObject({
      before: { confidence: 'none', unknownBecause: 'log_not_read' },
      after: { confidence: 'high', actor: 'alice@pve' },
      because: expect.stringMatching(/\(pve1\) was read later$/),
    });
    expect(messages[1]!.payload).toMatchObject({
      expected: true,
      suppressed: true,
      previous: { expected: false, suppressed: false, cause: { confidence: 'none' } },
    });
  });
});

describe('idempotent', () => {
  const replay = (): Reattribution[] =>
    firstAnswers.map((stored) => ({
      transitionId: stored.id,
      replaces: stored,
      attribution: { ...stored.attribution, confidence: 'high', actor: 'mallory@pve', actorKind: 'human' },
      decision: decideTransition({ confidence: 'high', actor: 'mallory@pve', actorKind: 'human' }, 'x', 'on'),
      narrative: 'replayed',
      because: 'replayed',
    }));

  it('replaying the re-explanation of the first answers writes nothing: no attribution, feed entry or revision', async () => {
    const before = (await feedOf('qemu/101')).length + (await feedOf('lxc/200')).length;
    const again = await replaceAttributions(driver, replay(), {
      reviseCondition: () => {
        throw new Error('no condition may be revised');
      },
    });
    expect(again).toEqual({ transitions: [], conditions: [] });
    expect((await feedOf('qemu/101')).length + (await feedOf('lxc/200')).length).toBe(before);
    expect((await getTransition(driver, stop('qemu/101').id))!.attribution.actor).toBe('alice@pve');
  });

  it('a pass with nothing left to read explains nothing again', async () => {
    const p4 = await observe(deps, proxmoxSource(standinClient(standin)));
    expect(p4.reexplained).toEqual([]);
    expect((await checkFailing('qemu/101')).attributionHistory).toHaveLength(1);
  });
});

describe('two replicas explaining the same transition at once', () => {
  it('one writes it — one history line, one feed entry, one revision — and the other finds it changed', async () => {
    const replica = createDriver(inject('neo4j'));
    try {
      const template = firstAnswers[0]!;
      const observedAt = iso(DateTime.utc().minus({ minutes: 1 }));
      const recorded = await recordTransitions(driver, [
        {
          resourceId: id('qemu/9000'),
          kind: 'vm',
          from: 'running',
          to: 'stopped',
          observedAt,
          observer: `test-${scope}`,
          attribution: template.attribution,
          decision: template.decision,
          narrative: template.narrative,
        },
      ]);
      const stored = recorded.created[0]!;
      await writeConditions(driver, policy, writer, {
        open: [{ resourceId: id('qemu/9000'), type: 'check_failing', evidence: {}, at: iso(DateTime.utc()) }],
      });
      const row: Reattribution = {
        transitionId: stored.id,
        replaces: stored,
        attribution: {
          ...stored.attribution,
          confidence: 'high',
          actor: 'bob@pve',
          actorKind: 'human',
          unknownBecause: null,
        },
        decision: decideTransition(
          { confidence: 'high', actor: 'bob@pve', actorKind: 'human' },
          'started by bob',
          'on',
        ),
        narrative: 'Stopped by bob@pve',
        because: 'the log was read later',
      };
      const options = {
        reviseCondition: (c: ConditionRecord, cause: TransitionRecord) => reviseCondition(c, cause, policy),
      };
      const [a, b] = await Promise.all([
        replaceAttributions(driver, [row], options),
        replaceAttributions(replica, [row], options),
      ]);
      expect(a.transitions.length + b.transitions.length).toBe(1);
      expect(a.conditions.length + b.conditions.length).toBe(1);
      const after = (await getTransition(driver, stored.id))!;
      expect(after.attributionHistory).toHaveLength(1);
      const fed = (await feedOf('qemu/9000')).map((e) => `${e.topic}:${e.change}`);
      expect(fed.filter((x) => x === 'transition:reexplained')).toHaveLength(1);
      expect(fed.filter((x) => x === 'condition:reattributed')).toHaveLength(1);
      const cond = await checkFailing('qemu/9000');
      expect(cond.attributionHistory).toHaveLength(1);
      expect(cond.suppressed).toBe(true);
    } finally {
      await replica.close();
    }
  });
});
