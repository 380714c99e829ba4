import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { createLogger } from '../../src/log.js';
import { conditionPolicyOf } from '../../src/pipeline/conditions.js';
import { observe } from '../../src/pipeline/observe.js';
import { proxmoxSource } from '../../src/ingest/proxmox/source.js';
import { DEFAULT_POLICY_PATH, type LoadedPolicy, parsePolicy } from '../../src/policy/index.js';
import { startHealthScheduler } from '../../src/scheduler/health-scheduler.js';
import { useGraph } from '../support/graph.js';
import { labRoutes, patchData, standinClient, withLabTasks } from '../support/proxmox-lab.js';
import { startProxmoxStandin, type ProxmoxStandin, type RouteTable } from '../support/proxmox-standin.js';
import { taskEntry, useEventCleanup } from '../support/proxmox-tasks.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { subscribeSse, type SseSubscription } from '../support/sse.js';
import { checkNetworkAllowing } from '../support/probe-target.js';

/**
 * The loop the attribution exists for, over HTTP as an agent and an operator would see it: alice
 * stops web01 on purpose, the service an agent declared on it starts failing its check, and
 * aitia knows the page is expected (suppressed, shadowed or paged per the policy), the gate will
 * not let an auto-start undo her change inside the intent window, and the incident context names
 * her — while esxi-nested01, stopped with no task, gets "cause unknown".
 */
const { driver, scope } = useGraph();
useEventCleanup(driver, scope);
const c = `lab-${scope}`;
const id = (g: string) => `proxmox:${c}/${g}`;
const WEB01 = id('qemu/101');
const NESTED = id('qemu/130');

let standin: ProxmoxStandin;
let srv: TestServer;
/** The same service with a clock 2 hours on: past respect_intent_seconds (3600). */
let later: TestServer;
let entries: Array<Record<string, unknown>> = [];
let closedPort: number;
const services: Record<'on' | 'shadow' | 'off', string> = { on: '', shadow: '', off: '' };
let stopTransitionId: string;

/** The shipped policy with auto_act reversible_low (a start would run on its own) and a suppression mode. */
function policyWith(suppression: 'on' | 'shadow' | 'off'): LoadedPolicy {
  const doc = parse(readFileSync(DEFAULT_POLICY_PATH, 'utf8'));
  doc.autonomy_settings.global.auto_act = 'reversible_low';
  doc.attribution.suppression = suppression;
  const parsed = parsePolicy(stringify(doc));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return { policy: parsed.policy, digest: parsed.digest, path: `/test/${suppression}.yaml` };
}

function withTasks(table: RouteTable): RouteTable {
  withLabTasks(table, () => entries);
  return table;
}

async function ok(server: TestServer, token: string, query: string, variables?: Record<string, unknown>) {
  const { status, body } = await server.gql(token, query, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  expect(status).toBe(200);
  return body.data;
}

/** A port nothing listens on: the service's TCP check fails there. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const DECLARE = `mutation($input: DeclareResourceInput!) { declareResource(input: $input) {
  created ignored { key reason } resource { id slug provider declaration { by evidence } } relationship { type provenance toId } } }`;

beforeAll(async () => {
  standin = await startProxmoxStandin();
  srv = await startTestServer(driver, {
    policy: policyWith('shadow'),
    checkNetwork: checkNetworkAllowing('127.0.0.1'),
  });
  later = await startTestServer(driver, {
    policy: policyWith('shadow'),
    checkNetwork: checkNetworkAllowing('127.0.0.1'),
    now: () => DateTime.utc().plus({ hours: 2 }).toISO(),
  });
  closedPort = await freePort();

  standin.routes(withTasks(labRoutes(c)));
  await observe({ driver, suppression: 'shadow' }, proxmoxSource(standinClient(standin)));

  // An agent found postgres on web01 (three copies, one per suppression mode under test).
  for (const mode of ['on', 'shadow', 'off'] as const) {
    const d = await ok(srv, srv.tokens.agent, DECLARE, {
      input: {
        kind: 'service',
        name: `pg-${mode}-${scope}`,
        runsOn: WEB01,
        attributes: { port: 5432, health: 'healthy' },
        evidence: 'ss -ltnp: postgres listening on 0.0.0.0:5432',
      },
    });
    services[mode] = d.declareResource.resource.id;
  }

  const now = DateTime.utc();
  const ago = (s: number) => now.minus({ seconds: s }).toISO({ suppressMilliseconds: true })!;
  entries = [taskEntry({ node: 'pve1', type: 'qmstop', id: '101', user: 'alice@pve', start: ago(3), end: ago(2) })];
  const second = labRoutes(c, {
    patchListing: { 'qemu/101': { status: 'stopped' }, 'qemu/130': { status: 'stopped' } },
  });
  patchData(second, 'GET /nodes/pve1/qemu/101/status/current', { status: 'stopped', qmpstatus: 'stopped' });
  patchData(second, 'GET /nodes/pve3/qemu/130/status/current', { status: 'stopped', qmpstatus: 'stopped' });
  standin.routes(withTasks(second));
  const pass = await observe({ driver, suppression: 'shadow' }, proxmoxSource(standinClient(standin)));
  stopTransitionId = pass.correlation.created.find((t) => t.resourceId === WEB01)!.id!;

  // Each service's check fails; the scheduler opens check_failing under one suppression mode each
  // (a condition already open is only refreshed, so each keeps the mode it opened under).
  for (const mode of ['on', 'shadow', 'off'] as const) {
    await ok(srv, srv.tokens.operator, 'mutation($i: CreateCheckInput!) { createCheck(input: $i) { created } }', {
      i: { resourceId: services[mode], kind: 'tcp', tcp: { host: '127.0.0.1', port: closedPort, timeoutMs: 500 } },
    });
    const scheduler = startHealthScheduler({
      driver,
      log: createLogger('silent'),
      autoTick: false,
      k: 1,
      conditions: conditionPolicyOf(policyWith(mode)),
      network: checkNetworkAllowing('127.0.0.1'),
    });
    await scheduler.runOnce({ all: true });
    await scheduler.stop();
  }
}, 180_000);

afterAll(async () => {
  await srv?.close();
  await later?.close();
  await standin?.close();
});

const CONDITION = `id type status suppressed wouldSuppress suppressionReasons policyDigest expected
  cause { transition { id } attribution { confidence actor } resource { id } } narrative`;

async function conditionOf(resourceId: string) {
  const d = await ok(
    srv,
    srv.tokens.agent,
    `query($r: ID) { conditions(filter: {resourceId: $r, type: check_failing}) { nodes { ${CONDITION} } } }`,
    { r: resourceId },
  );
  expect(d.conditions.nodes).toHaveLength(1);
  return d.conditions.nodes[0];
}

async function openOf(resourceId: string): Promise<string[]> {
  const d = await ok(srv, srv.tokens.agent, 'query($r: ID) { openConditions(resourceId: $r) { type } }', {
    r: resourceId,
  });
  return d.openConditions.map((x: { type: string }) => x.type);
}

async function auditFor(resourceId: string) {
  const d = await ok(
    srv,
    srv.tokens.operator,
    'query($t: ID) { auditLog(filter: {targetId: $t}, first: 50) { nodes { operation detail } } }',
    { t: resourceId },
  );
  return d.auditLog.nodes as Array<{ operation: string; detail: string }>;
}

describe('a declared service', () => {
  it('is manual, declared by the agent with its evidence, placed on web01; owned attributes are refused', async () => {
    const again = await ok(srv, srv.tokens.agent, DECLARE, {
      input: {
        kind: 'service',
        name: `pg-on-${scope}`,
        runsOn: WEB01,
        attributes: { port: 5432 },
        evidence: 'still listening',
      },
    });
    expect(again.declareResource).toMatchObject({
      created: false,
      resource: {
        id: services.on,
        slug: `service:pg-on-${scope}`,
        provider: 'manual',
        declaration: { by: 'test-agent', evidence: 'still listening' },
      },
      relationship: { type: 'RUNS_ON', provenance: 'declared', toId: WEB01 },
    });
    const d = await ok(
      srv,
      srv.tokens.agent,
      'query($id: ID!) { dependents(id: $id, maxDepth: 2) { reached { resource { id } } } }',
      {
        id: WEB01,
      },
    );
    expect(d.dependents.reached.map((r: any) => r.resource.id)).toEqual(
      expect.arrayContaining(Object.values(services)),
    );
  });

  it('refuses a VM, a bad name and a missing evidence, naming the field; nothing is written', async () => {
    for (const [input, field] of [
      [{ kind: 'vm', name: 'x', evidence: 'e' }, 'input.kind'],
      [{ kind: 'service', name: 'has space', evidence: 'e' }, 'input.name'],
      [{ kind: 'service', name: `ok-${scope}`, evidence: '  ' }, 'input.evidence'],
      [
        { kind: 'service', name: `ok-${scope}`, evidence: 'e', runsOn: `proxmox:${c}/storage/pve1/local` },
        'input.runsOn',
      ],
    ] as const) {
      const { body } = await srv.gql(srv.tokens.agent, DECLARE, { input });
      expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
    }
    const { body } = await srv.gql(srv.tokens.agent, 'query($id: ID) { resource(id: $id) { id } }', {
      id: `manual:service/ok-${scope}`,
    });
    expect(body.data?.resource ?? null).toBeNull();
  });
});

describe('a human stop followed by a failing check', () => {
  it('suppression on: expected, with the cause and narrative; suppressed, absent from openConditions', async () => {
    const cond = await conditionOf(services.on);
    expect(cond).toMatchObject({
      status: 'open',
      suppressed: true,
      expected: true,
      cause: {
        transition: { id: stopTransitionId },
        attribution: { confidence: 'high', actor: 'alice@pve' },
        resource: { id: WEB01 },
      },
    });
    expect(cond.narrative).toMatch(
      /has a failing check since .* UTC \(suppressed: nobody paged\) — expected \(it runs on or depends on vm "web01"\): .*Stopped by alice@pve — task qmstop/,
    );
    expect(await openOf(services.on)).not.toContain('check_failing');
    const listed = await ok(
      srv,
      srv.tokens.agent,
      'query { conditions(filter: {suppressed: true}, first: 500) { nodes { id } } }',
    );
    expect(listed.conditions.nodes.map((n: any) => n.id)).toContain(cond.id);
    expect((await auditFor(services.on)).map((a) => a.operation)).toContain('conditionSuppressed');
  });

  it('suppression shadow: open and paged, with wouldSuppress, the reasons, the digest and one audit entry', async () => {
    const cond = await conditionOf(services.shadow);
    expect(cond).toMatchObject({ status: 'open', suppressed: false, wouldSuppress: true, expected: true });
    expect(cond.policyDigest).toBe(policyWith('shadow').digest);
    expect(await openOf(services.shadow)).toContain('check_failing');
    const audit = (await auditFor(services.shadow)).filter((a) => a.operation === 'conditionWouldSuppress');
    expect(audit).toHaveLength(1);
    expect(audit[0]!.detail).toContain(policyWith('shadow').digest);
  });

  it('suppression off: open and paged, neither suppressed nor shadowed, nothing audited about it', async () => {
    const cond = await conditionOf(services.off);
    expect(cond).toMatchObject({ status: 'open', suppressed: false, wouldSuppress: false, expected: true });
    expect(await openOf(services.off)).toContain('check_failing');
    expect((await auditFor(services.off)).filter((a) => a.operation.startsWith('condition'))).toEqual([]);
  });
});

describe('a first sighting', () => {
  it('of a VM already paused on an I/O error opens paused_io_error, without a transition', async () => {
    const db13 = id('qemu/113');
    const d = await ok(
      srv,
      srv.tokens.agent,
      `query($r: ID!, $s: String) { openConditions(resourceId: $r) { type evidence cause { transition { id } } narrative }
        transitions(resourceId: $s) { edges { node { id } } } }`,
      { r: db13, s: db13 },
    );
    expect(d.transitions.edges).toEqual([]);
    const paused = d.openConditions.filter((x: any) => x.type !== 'unmonitored');
    expect(paused).toEqual([
      expect.objectContaining({
        type: 'paused_io_error',
        evidence: expect.objectContaining({ firstSighting: true }),
        cause: null,
      }),
    ]);
    expect(paused[0].narrative).toMatch(/paused on a disk I\/O error since .* — cause unknown/);
  });
});

describe('the gate reads intent', () => {
  const ASK = `query($t: ID!) { classifyAction(input: {target: $t, action: "start"}) { autonomy approval reasons } }`;

  it('an auto start of web01 minutes after alice stopped it escalates, naming her and the task', async () => {
    const d = await ok(srv, srv.tokens.agent, ASK, { t: WEB01 });
    expect(d.classifyAction.autonomy).toBe('escalate');
    const intent = d.classifyAction.reasons.find((r: string) => r.startsWith('intent:'));
    expect(intent).toMatch(/by alice@pve \(task qmstop UPID:pve1:.*\)/);
  });

  it('after the intent window the normal rule applies: the same start runs on its own', async () => {
    const d = await ok(later, later.tokens.agent, ASK, { t: WEB01 });
    expect(d.classifyAction.autonomy).toBe('auto');
    expect(d.classifyAction.reasons.some((r: string) => r.startsWith('intent:'))).toBe(false);
  });
});

describe('incident context', () => {
  const Q = `query($r: ID!, $since: DateTime, $zone: String) { incidentContext(resourceId: $r, since: $since, depth: 2, zone: $zone) {
    resource { id } zone dependencies { depth resource { id } } dependents { resource { id } }
    transitions { id resourceId attribution { confidence actor } } conditions { id type suppressed } narrative } }`;

  it('on the service whose VM was stopped: names the stop, the actor and the service’s conditions', async () => {
    const d = await ok(srv, srv.tokens.agent, Q, { r: services.on });
    const ctx = d.incidentContext;
    expect(ctx.dependencies.map((r: any) => r.resource.id)).toContain(WEB01);
    expect(ctx.transitions).toEqual([
      expect.objectContaining({ id: stopTransitionId, attribution: { confidence: 'high', actor: 'alice@pve' } }),
    ]);
    // Its unmonitored condition (opened before the check existed, resolved since) is in the window too.
    expect(ctx.conditions.filter((x: any) => x.type === 'check_failing')).toEqual([
      expect.objectContaining({ type: 'check_failing', suppressed: true }),
    ]);
    expect(ctx.narrative).toContain(`Incident context for service "pg-on-${scope}"`);
    expect(ctx.narrative).toMatch(/It depends on vm "web01"/);
    expect(ctx.narrative).toMatch(/Stopped by alice@pve — task qmstop/);
    expect(ctx.narrative).toMatch(/has a failing check since .* — expected/);
    expect(ctx.narrative).toMatch(
      /In short: vm "web01" running → stopped at .*: by alice@pve \(task qmstop .*, high confidence\) — expected: an intentional change\.$/,
    );
  });

  it('on a VM that stopped with no task: "cause unknown"', async () => {
    const d = await ok(srv, srv.tokens.agent, Q, { r: NESTED, zone: 'Europe/Berlin' });
    expect(d.incidentContext.zone).toMatch(/^Europe\/Berlin \(UTC\+0[12]:00\)$/);
    expect(d.incidentContext.transitions).toEqual([
      expect.objectContaining({ attribution: { confidence: 'none', actor: null } }),
    ]);
    expect(d.incidentContext.narrative).toMatch(
      /In short: vm "esxi-nested01" running → stopped at .*: cause unknown\.$/,
    );
  });

  it('is bounded and validated, naming the argument; the scheduler and ingesters may not ask', async () => {
    const since = DateTime.utc().minus({ days: 8 }).toISO();
    for (const [vars, field] of [
      [{ r: WEB01, since }, 'since'],
      [{ r: WEB01, zone: 'Mars/Olympus' }, 'zone'],
    ] as const) {
      const { body } = await srv.gql(srv.tokens.agent, Q, vars);
      expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
    }
    const { body } = await srv.gql(srv.tokens.agent, Q.replace('depth: 2', 'depth: 9'), { r: WEB01 });
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'depth' });
    const denied = await srv.gql(srv.tokens.scheduler, Q, { r: WEB01 });
    expect(denied.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

/** The next check_failing change on a subscription (unmonitored opens and resolves interleave). */
async function nextCheckFailing(sub: SseSubscription) {
  for (;;) {
    const change = (await sub.next(15_000)).data.conditionChanged;
    if (change.condition.type === 'check_failing') return change;
  }
}

describe('the feed survives a reconnect', () => {
  it('a client that reconnects with its Last-Event-ID receives every condition change it missed, once, in order', async () => {
    const SUB = `subscription($r: String) { conditionChanged(resourceId: $r) { sequence change condition { type resourceId } } }`;
    const first = await subscribeSse(srv.url, srv.tokens.agent, SUB, { r: services.off });
    // One change while connected: the check is removed, the scheduler resolves check_failing.
    const checks = await ok(srv, srv.tokens.agent, 'query($r: ID!) { checks(resourceId: $r) { id } }', {
      r: services.off,
    });
    await ok(srv, srv.tokens.operator, 'mutation($id: ID!) { removeCheck(id: $id) { id } }', {
      id: checks.checks[0].id,
    });
    const scheduler = startHealthScheduler({
      driver,
      log: createLogger('silent'),
      autoTick: false,
      k: 1,
      network: checkNetworkAllowing('127.0.0.1'),
    });
    try {
      await scheduler.runOnce({ all: true });
      const seen = await nextCheckFailing(first);
      expect(seen).toMatchObject({
        change: 'resolved',
        condition: { type: 'check_failing', resourceId: services.off },
      });
      first.close();

      // While disconnected: a new failing check opens check_failing again, then it is removed again.
      const made = await ok(
        srv,
        srv.tokens.operator,
        'mutation($i: CreateCheckInput!) { createCheck(input: $i) { check { id } } }',
        { i: { resourceId: services.off, kind: 'tcp', tcp: { host: '127.0.0.1', port: closedPort, timeoutMs: 500 } } },
      );
      await scheduler.runOnce({ all: true });
      await ok(srv, srv.tokens.operator, 'mutation($id: ID!) { removeCheck(id: $id) { id } }', {
        id: made.createCheck.check.id,
      });
      await scheduler.runOnce({ all: true });

      const resumed = await subscribeSse(
        srv.url,
        srv.tokens.agent,
        SUB,
        { r: services.off },
        {
          'last-event-id': String(seen.sequence),
        },
      );
      const missed = [
        (await resumed.next(15_000)).data.conditionChanged,
        (await resumed.next(15_000)).data.conditionChanged,
      ];
      resumed.close();
      expect(missed.map((m) => m.change)).toEqual(['opened', 'resolved']);
      expect(missed[0].sequence).toBeGreaterThan(seen.sequence);
      expect(missed[1].sequence).toBeGreaterThan(missed[0].sequence);
    } finally {
      await scheduler.stop();
    }
  });
});
