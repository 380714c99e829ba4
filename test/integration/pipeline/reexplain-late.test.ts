import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFeed } from '../../../src/graph/feed.js';
import { searchConditions } from '../../../src/graph/conditions.js';
import { getTransition } from '../../../src/graph/transitions/read.js';
import { proxmoxSource, type ProxmoxPassExtra } from '../../../src/ingest/proxmox/source.js';
import { resolveActorMapping, type ActorMappingEntry, type TransitionRecord } from '../../../src/model/index.js';
import type { CorrelationDeps } from '../../../src/pipeline/correlate.js';
import { observe, type Observation } from '../../../src/pipeline/observe.js';
import { useGraph } from '../../support/graph.js';
import { labRoutes, patchData, standinClient, withLabTasks } from '../../support/proxmox-lab.js';
import { startProxmoxStandin, type ProxmoxStandin, type RouteTable } from '../../support/proxmox-standin.js';
import { taskEntry, useEventCleanup } from '../../support/proxmox-tasks.js';

/**
 * Re-explanation beyond the simple gap, against the Proxmox stand-in and a real Neo4j:
 * 1. A task listed late: web01 stops while pve1's list (read completely, topped up) holds no task
 *    — `no_record`; the next pass lists alice's qmstop that started before the stop was seen, and
 *    the stop is explained again (high, alice@pve), the first answer kept; a further pass writes nothing.
 * 2. An agent's changes seen while pve1's list does not answer: web01 started by the agent's token
 *    under a redeemed grant, ct200 stopped by the same token with none — both `log_not_read`; the
 *    list back, the start is credited to the grant and the stop is `unauthorized`, its
 *    `unauthorized_action` condition opened (never suppressed) and on the feed, as a pass would.
 */
const { driver, scope } = useGraph();
useEventCleanup(driver, scope);
const c = `lab-${scope}`;
const id = (g: string) => `proxmox:${c}/${g}`;
const AGENT = `rhodes-${scope}`;
const MAPPING: ActorMappingEntry[] = [{ provider: 'proxmox', user: 'rhodes@pve!ops', principal: AGENT }];
const deps: CorrelationDeps = {
  driver,
  suppression: 'on',
  conditions: { suppression: 'on', policyDigest: `digest-${scope}`, causeWindowSeconds: 900 },
  actors: () => resolveActorMapping(MAPPING, [{ name: AGENT, role: 'agent' }]),
};
const iso = (t: DateTime) => t.toISO({ suppressMilliseconds: true })!;

let standin: ProxmoxStandin;
let entries: Array<Record<string, unknown>> = [];
const polls: Array<Observation<ProxmoxPassExtra>> = [];

const withTasks = (table: RouteTable) => withLabTasks(table, () => entries);
function routes(web01: 'running' | 'stopped', ct200: 'running' | 'stopped'): RouteTable {
  const table = labRoutes(c, { patchListing: { 'qemu/101': { status: web01 }, 'lxc/200': { status: ct200 } } });
  patchData(table, 'GET /nodes/pve1/qemu/101/status/current', { status: web01, qmpstatus: web01 });
  patchData(table, 'GET /nodes/pve1/lxc/200/status/current', { status: ct200 });
  return withTasks(table);
}
const poll = async () => {
  const o = await observe(deps, proxmoxSource(standinClient(standin)));
  polls.push(o);
  return o;
};
const created = (o: Observation<ProxmoxPassExtra>, g: string) =>
  o.correlation.created.find((t) => t.resourceId === id(g));

let lateStop: TransitionRecord;
let agentStart: TransitionRecord;
let agentStop: TransitionRecord;
let feedBefore: number;

beforeAll(async () => {
  standin = await startProxmoxStandin();
  standin.routes(routes('running', 'running'));
  await poll();

  // 1. web01 stops; pve1's list is read completely but does not list the task yet.
  standin.routes(routes('stopped', 'running'));
  const p2 = await poll();
  lateStop = created(p2, 'qemu/101')!;
  entries = [
    taskEntry({
      node: 'pve1',
      type: 'qmstop',
      id: '101',
      user: 'alice@pve',
      // Before the stop was seen (the pass's start), as a task that caused it must be.
      start: iso(DateTime.fromISO(lateStop.observedAt).minus({ seconds: 3 })),
    }),
  ];
  await poll(); // lists it: explained again
  await poll(); // nothing new

  // 2. The agent's token starts web01 under a grant and stops ct200 with none, while pve1 does not answer.
  const now = DateTime.utc();
  await driver.executeQuery(
    `CREATE (:Approval {id: $approvalId, targetId: $target, requester: $agent, decidedBy: 'bob', decidedAt: datetime($decidedAt)})
     CREATE (:ActionAuthorized {id: $id, source: 'grant', action: 'start', targetId: $target, principal: $agent,
                                at: datetime($at), approvalId: $approvalId})`,
    {
      id: `auth-${scope}`,
      approvalId: `apr-${scope}`,
      target: id('qemu/101'),
      agent: AGENT,
      at: iso(now.minus({ seconds: 10 })),
      decidedAt: iso(now.minus({ seconds: 60 })),
    },
  );
  entries = [
    ...entries,
    taskEntry({
      node: 'pve1',
      type: 'qmstart',
      id: '101',
      user: 'rhodes@pve!ops',
      start: iso(now.minus({ seconds: 2 })),
    }),
    taskEntry({
      node: 'pve1',
      type: 'vzstop',
      id: '200',
      user: 'rhodes@pve!ops',
      start: iso(now.minus({ seconds: 2 })),
    }),
  ];
  standin.routes(routes('running', 'stopped'));
  standin.fault('/nodes/pve1/tasks', { kind: 'status', status: 595, message: 'no route to host' });
  const p5 = await poll();
  agentStart = created(p5, 'qemu/101')!;
  agentStop = created(p5, 'lxc/200')!;
  const latest = await driver.executeQuery("MATCH (f:FeedCounter {id: 'feed'}) RETURN f.seq AS seq");
  feedBefore = Number(latest.records[0]!.get('seq'));
  standin.clearFaults();
  await poll();
}, 240_000);

afterAll(async () => {
  await driver.executeQuery(
    `MATCH (n) WHERE (n:Approval OR n:ActionAuthorized) AND n.targetId CONTAINS $scope DETACH DELETE n`,
    { scope },
  );
  await standin?.close();
});

describe('a task listed after the stop was explained', () => {
  it('the first answer was no_record: the list had been read completely', () => {
    expect(lateStop.attribution).toMatchObject({ confidence: 'none', unknownBecause: { reason: 'no_record' } });
  });

  it('the pass that lists it explains the stop again: alice, high; the first answer kept and why', async () => {
    expect(polls[2]!.reexplained.map((t) => t.id)).toEqual([lateStop.id]);
    const t = (await getTransition(driver, lateStop.id))!;
    expect(t.attribution).toMatchObject({ confidence: 'high', actor: 'alice@pve' });
    expect(t.attributionHistory).toHaveLength(1);
    expect(t.attributionHistory![0]!.attribution.unknownBecause?.reason).toBe('no_record');
    expect(t.attributionHistory![0]!.replacedBecause).toMatch(/listed after it was explained/);
  });

  it('a pass with nothing new re-explains nothing', () => {
    expect(polls[3]!.reexplained).toEqual([]);
  });
});

describe("an agent's changes, explained again once the log is read", () => {
  it('both were log_not_read at first', () => {
    for (const t of [agentStart, agentStop]) expect(t.attribution.unknownBecause?.reason).toBe('log_not_read');
  });

  it('the start is credited to the grant', async () => {
    expect(polls[5]!.reexplained.map((t) => t.id).sort()).toEqual([agentStart.id, agentStop.id].sort());
    const t = (await getTransition(driver, agentStart.id))!;
    expect(t.attribution).toMatchObject({
      confidence: 'high',
      authorization: { grantId: `auth-${scope}`, approvalId: `apr-${scope}`, approvedBy: 'bob' },
    });
    expect(t.attribution.unauthorized ?? null).toBeNull();
    expect(t.narrative).toMatch(/under grant/);
  });

  it('the stop with no grant is unauthorized, and opens unauthorized_action on the feed, unsuppressed', async () => {
    const t = (await getTransition(driver, agentStop.id))!;
    expect(t.attribution.confidence).toBe('high');
    expect(t.attribution.unauthorized).toMatchObject({ principal: AGENT });
    const page = await searchConditions(
      driver,
      { resourceId: id('lxc/200'), type: 'unauthorized_action' },
      { first: 5 },
    );
    expect(page.nodes).toHaveLength(1);
    expect(page.nodes[0]).toMatchObject({ status: 'open', suppressed: false, causeTransitionId: agentStop.id });
    const fed = await readFeed(driver, { afterSeq: feedBefore, limit: 100, resourceId: id('lxc/200') });
    expect(fed.filter((e) => e.topic === 'condition').map((e) => e.change)).toEqual(['opened']);
  });
});
