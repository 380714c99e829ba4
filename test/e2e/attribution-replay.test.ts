import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { observe, type Observation } from '../../src/pipeline/observe.js';
import { proxmoxSource, type ProxmoxPassExtra } from '../../src/ingest/proxmox/source.js';
import { useGraph } from '../support/graph.js';
import { labRoutes, patchData, standinClient } from '../support/proxmox-lab.js';
import { startProxmoxStandin, type ProxmoxStandin, type RouteTable } from '../support/proxmox-standin.js';
import { taskEntry, taskListResponder, useEventCleanup } from '../support/proxmox-tasks.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { subscribeSse, type SseSubscription } from '../support/sse.js';

/**
 * A recorded sequence replayed end to end: the Proxmox stand-in serves task lists and two state
 * polls of the lab cluster; between them an operator stops web01, bob stops ha-web10 through HA,
 * esxi-nested01 stops with no task, and db13 pauses on an I/O error. The scheduler's state poll
 * (tasks → inventory → correlation) runs against it, and the answers are read over HTTP GraphQL.
 */
const { driver, scope } = useGraph();
useEventCleanup(driver, scope);
const c = `lab-${scope}`;
const id = (g: string) => `proxmox:${c}/${g}`;

let standin: ProxmoxStandin;
let srv: TestServer;
let entries: Array<Record<string, unknown>> = [];
let poll2: Observation<ProxmoxPassExtra>;
let poll1At: string;
let subscription: SseSubscription;

function withTasks(table: RouteTable): RouteTable {
  for (const n of ['pve1', 'pve2', 'pve3'])
    table.set(
      `GET /nodes/${n}/tasks`,
      taskListResponder(() => entries),
    );
  return table;
}

const isoAgo = (now: DateTime, s: number) => now.minus({ seconds: s }).toISO({ suppressMilliseconds: true })!;

beforeAll(async () => {
  standin = await startProxmoxStandin();
  srv = await startTestServer(driver);

  // Poll 1: every guest seen for the first time (db13 still running): no transitions.
  const first = labRoutes(c);
  patchData(first, 'GET /nodes/pve2/qemu/113/status/current', { qmpstatus: 'running' });
  standin.routes(withTasks(first));
  const p1 = await observe({ driver, suppression: 'shadow' }, proxmoxSource(standinClient(standin)));
  expect(p1.correlation.created).toEqual([]);
  poll1At = p1.report.startedAt;

  // An agent watches web01 from now on.
  subscription = await subscribeSse(
    srv.url,
    srv.tokens.agent,
    'subscription($r: String) { transitionObserved(resourceId: $r) { id resourceId from to attribution { confidence actor } } }',
    {
      r: id('qemu/101'),
    },
  );

  // What happened between the polls, as the nodes' task lists record it.
  const now = DateTime.utc();
  entries = [
    taskEntry({
      node: 'pve1',
      type: 'qmstop',
      id: '101',
      user: 'alice@pve',
      start: isoAgo(now, 3),
      end: isoAgo(now, 2),
    }),
    taskEntry({
      node: 'pve2',
      type: 'hastop',
      id: '110',
      user: 'bob@pve',
      start: isoAgo(now, 25),
      end: isoAgo(now, 24),
    }),
    taskEntry({
      node: 'pve2',
      type: 'qmshutdown',
      id: '110',
      user: 'root@pam',
      start: isoAgo(now, 12),
      end: isoAgo(now, 3),
    }),
    // Yesterday's start of esxi-nested01: on the resource, but far outside the look-back.
    taskEntry({
      node: 'pve3',
      type: 'qmstart',
      id: '130',
      user: 'root@pam',
      start: isoAgo(now, 20 * 3600),
      end: isoAgo(now, 20 * 3600 - 4),
    }),
  ];
  const second = labRoutes(c, {
    patchListing: {
      'qemu/101': { status: 'stopped' },
      'qemu/110': { status: 'stopped', hastate: 'stopped' },
      'qemu/130': { status: 'stopped' },
    },
  });
  patchData(second, 'GET /nodes/pve1/qemu/101/status/current', { status: 'stopped', qmpstatus: 'stopped' });
  patchData(second, 'GET /nodes/pve2/qemu/110/status/current', {
    status: 'stopped',
    qmpstatus: 'stopped',
    ha: { managed: 1, state: 'stopped' },
  });
  patchData(second, 'GET /nodes/pve3/qemu/130/status/current', { status: 'stopped', qmpstatus: 'stopped' });
  standin.routes(withTasks(second));
  poll2 = await observe({ driver, suppression: 'shadow' }, proxmoxSource(standinClient(standin)));
}, 120_000);

afterAll(async () => {
  subscription?.close();
  await srv?.close();
  await standin?.close();
});

const TRANSITION = `from to observedAt observer
  attribution { confidence actor actorKind requestedBy executor executorKind deltaSeconds reason
    events { id role rawType actor statusClass event { id statusClass endedAt resource { id } } } }
  decision { decision reasons wouldHaveSuppressed }
  narrative`;

async function transitionsOf(ref: string) {
  const { status, body } = await srv.gql(
    srv.tokens.agent,
    `query($r: String) { transitions(resourceId: $r, first: 5) { edges { cursor node { id ${TRANSITION} } } pageInfo { hasNextPage endCursor } } }`,
    { r: ref },
  );
  expect(status).toBe(200);
  expect(body.errors).toBeUndefined();
  return body.data.transitions.edges.map((e: any) => e.node);
}

describe('the replayed sequence, through the scheduler step', () => {
  it('ingested the tasks first and turned the four changes into transitions', () => {
    expect(poll2.extra.tasks.errors).toEqual([]);
    expect(poll2.extra.tasks.events.created).toBe(4);
    expect(poll2.correlation.errors).toEqual([]);
    expect(
      poll2.correlation.created.map((t) => `${t.resourceId} ${t.from}>${t.to} ${t.attribution.confidence}`).sort(),
    ).toEqual(
      [
        `${id('qemu/101')} running>stopped high`,
        `${id('qemu/110')} running>stopped high`,
        `${id('qemu/113')} running>paused_io_error none`,
        `${id('qemu/130')} running>stopped none`,
      ].sort(),
    );
  });
});

describe('GraphQL answers over HTTP', () => {
  it('an operator stop: high, by alice@pve, with the task; shadow mode records what it would have suppressed', async () => {
    const [t] = await transitionsOf(id('qemu/101'));
    expect(t).toMatchObject({
      from: 'running',
      to: 'stopped',
      attribution: { confidence: 'high', actor: 'alice@pve', actorKind: 'human', requestedBy: null, executor: null },
      decision: { decision: 'open_incident', wouldHaveSuppressed: t.narrative },
    });
    expect(DateTime.fromISO(t.observedAt).toMillis()).toBe(DateTime.fromISO(poll2.report.startedAt).toMillis());
    expect(t.attribution.deltaSeconds).toBeGreaterThanOrEqual(1);
    expect(t.attribution.deltaSeconds).toBeLessThan(30);
    expect(t.attribution.events).toEqual([
      expect.objectContaining({
        role: 'cause',
        rawType: 'qmstop',
        actor: 'alice@pve',
        event: expect.objectContaining({ statusClass: 'ok', resource: { id: id('qemu/101') } }),
      }),
    ]);
    expect(t.narrative).toMatch(
      new RegExp(
        `^vm "web01" \\(${id('qemu/101')}\\) went running → stopped at .* UTC\\. Stopped by alice@pve — task qmstop \\(UPID:pve1:.*\\), .* UTC, OK\\. Confidence high: expected task type, \\d+ s before the observation\\.$`,
      ),
    );
  });

  it('an HA stop: credited to the requester, the HA manager named as executor (asked by kind:name slug)', async () => {
    const [t] = await transitionsOf('vm:ha-web10');
    expect(t.attribution).toMatchObject({
      confidence: 'high',
      actor: 'bob@pve',
      requestedBy: 'bob@pve',
      executor: 'root@pam',
      executorKind: 'ha_manager',
    });
    expect(t.attribution.events.map((e: any) => `${e.role}:${e.rawType}`)).toEqual([
      'cause:qmshutdown',
      'request:hastop',
    ]);
    expect(t.narrative).toMatch(
      /Stopped by bob@pve via an HA request — task hastop .*; executed by the HA manager as root@pam — task qmshutdown/,
    );
  });

  it('a guest that stops with no task: none, and the narrative says the cause is unknown', async () => {
    const [t] = await transitionsOf(id('qemu/130'));
    expect(t.attribution).toMatchObject({ confidence: 'none', actor: null, events: [] });
    expect(t.narrative).toMatch(
      /No task or event on this resource in the 300 s before the change; the cause is unknown\.$/,
    );
    expect(t.decision.decision).toBe('open_incident');
  });

  it("a VM paused on an I/O error: the condition is open with the transition's attribution", async () => {
    const [t] = await transitionsOf(id('qemu/113'));
    expect(t).toMatchObject({ to: 'paused_io_error', attribution: { confidence: 'none' } });
    const { body } = await srv.gql(
      srv.tokens.agent,
      `{ openConditions(resourceId: "${id('qemu/113')}") { type status attribution } }`,
    );
    expect(body.data.openConditions).toEqual([
      {
        type: 'paused_io_error',
        status: 'open',
        attribution: expect.objectContaining({ transitionId: t.id, confidence: 'none' }),
      },
    ]);
  });

  it('transition(id) renders the narrative in another zone, naming it; an unknown zone names `zone`', async () => {
    const [t] = await transitionsOf(id('qemu/101'));
    const { body } = await srv.gql(
      srv.tokens.agent,
      `query($id: ID!) { transition(id: $id) { id berlin: narrative(zone: "Europe/Berlin") utc: narrative } }`,
      { id: t.id },
    );
    expect(body.data.transition.utc).toBe(t.narrative);
    expect(body.data.transition.berlin).toMatch(/ Europe\/Berlin \(UTC\+0[12]:00\)\. Stopped by alice@pve/);
    const bad = await srv.gql(
      srv.tokens.agent,
      `query($id: ID!) { transition(id: $id) { narrative(zone: "Mars/Olympus") } }`,
      { id: t.id },
    );
    expect(bad.body.errors[0]).toMatchObject({
      message: expect.stringMatching(/^zone: unknown time zone "Mars\/Olympus"/),
      extensions: { code: 'BAD_USER_INPUT', field: 'zone' },
    });
  });

  it('stateAt answers from the transition history', async () => {
    const q = `query($r: String!, $at: DateTime!) { stateAt(resourceId: $r, at: $at) { state basis transition { id } reason } }`;
    const before = await srv.gql(srv.tokens.agent, q, { r: id('qemu/101'), at: poll1At });
    expect(before.body.data.stateAt).toMatchObject({ state: 'running', basis: 'before_first_transition' });
    const after = await srv.gql(srv.tokens.agent, q, {
      r: id('qemu/101'),
      at: DateTime.utc().plus({ minutes: 1 }).toISO(),
    });
    expect(after.body.data.stateAt).toMatchObject({
      state: 'stopped',
      basis: 'transition',
      transition: { id: expect.stringContaining(id('qemu/101')) },
    });
    const never = await srv.gql(srv.tokens.agent, q, { r: id('qemu/101'), at: '2020-01-01T00:00:00Z' });
    expect(never.body.data.stateAt).toMatchObject({ state: 'unknown', basis: 'unknown', transition: null });
    const steady = await srv.gql(srv.tokens.agent, q, { r: id('lxc/200'), at: DateTime.utc().toISO() });
    expect(steady.body.data.stateAt).toMatchObject({ state: 'running', basis: 'current_state' });
  });

  it('explainTransition answers an ad-hoc question without storing it, and validates states against the kind', async () => {
    const q = `query($r: String!, $from: String!, $to: String!, $at: DateTime!) { explainTransition(resourceId: $r, from: $from, to: $to, at: $at) { resourceId from to attribution { confidence actor } decision { decision } narrative } }`;
    const at = poll2.report.startedAt;
    const { body } = await srv.gql(srv.tokens.agent, q, { r: id('qemu/110'), from: 'running', to: 'paused', at });
    expect(body.data.explainTransition).toMatchObject({
      resourceId: id('qemu/110'),
      attribution: { confidence: 'medium' },
      decision: { decision: 'annotate' },
    });
    expect(body.data.explainTransition.narrative).toMatch(/Possibly related: .*the cause is not established\.$/);
    const bad = await srv.gql(srv.tokens.agent, q, { r: id('qemu/110'), from: 'running', to: 'flying', at });
    expect(bad.body.errors[0]).toMatchObject({
      message: expect.stringMatching(/^to: "flying" is not a vm state/),
      extensions: { code: 'BAD_USER_INPUT', field: 'to' },
    });
    expect((await transitionsOf(id('qemu/110'))).map((t: any) => t.to)).toEqual(['stopped']);
  });

  it("events lists a resource's tasks; the ingester may not read transitions", async () => {
    const { body } = await srv.gql(
      srv.tokens.agent,
      `{ events(resourceId: "${id('qemu/110')}") { rawType actor actorKind statusClass resource { id } } }`,
    );
    expect(body.data.events.map((e: any) => `${e.rawType}:${e.actor}`)).toEqual([
      'qmshutdown:root@pam',
      'hastop:bob@pve',
    ]);
    const denied = await srv.gql(srv.tokens.ingester, `{ transitions { edges { node { id } } } }`);
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('the agent watching web01 over SSE received its transition', async () => {
    const payload = await subscription.next(10_000);
    expect(payload.data.transitionObserved).toMatchObject({
      resourceId: id('qemu/101'),
      from: 'running',
      to: 'stopped',
      attribution: { confidence: 'high', actor: 'alice@pve' },
    });
  });
});

describe('ingestVcenterEvents over HTTP', () => {
  const server = `vc-${scope}`;
  const events = [
    {
      _typeName: 'VmPoweredOffEvent',
      key: 9902,
      chainId: 9895,
      createdTime: '2026-05-14T02:08:30Z',
      userName: 'VSPHERE.LOCAL\\alice',
      vm: { name: 'web-01', vm: { _typeName: 'ManagedObjectReference', type: 'VirtualMachine', value: 'vm-101' } },
    },
    {
      specversion: '1.0',
      subject: 'VmPoweredOnEvent',
      data: {
        Key: 9910,
        CreatedTime: '2026-05-14T02:10:00Z',
        UserName: '',
        Vm: { Name: 'web-01', Vm: { Type: 'VirtualMachine', Value: 'vm-101' } },
      },
    },
    { key: 1, createdTime: 'not a time', _typeName: 'VmPoweredOnEvent' },
  ];
  const m = `mutation($s: String!, $e: JSON!) { ingestVcenterEvents(server: $s, events: $e) { scope received written created updated skipped { item reason } } }`;

  it('imports both encodings idempotently and reports what it left out; only ingesters may', async () => {
    const first = await srv.gql(srv.tokens.ingester, m, { s: server, e: events });
    expect(first.body.data.ingestVcenterEvents).toEqual({
      scope: `vcenter:${server}`,
      received: 3,
      written: 2,
      created: 2,
      updated: 0,
      skipped: [
        { item: 'events[2]', reason: expect.stringMatching(/createdTime "not a time" is not an ISO-8601 time/) },
      ],
    });
    const again = await srv.gql(srv.tokens.ingester, m, { s: server, e: events });
    expect(again.body.data.ingestVcenterEvents).toMatchObject({ written: 2, created: 0, updated: 0 });
    const denied = await srv.gql(srv.tokens.agent, m, { s: server, e: events });
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const badServer = await srv.gql(srv.tokens.ingester, m, { s: 'a b', e: events });
    expect(badServer.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'server' });
  });
});
