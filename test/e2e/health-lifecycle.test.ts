import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertResources } from '../../src/graph/resources/upsert.js';
import { createLogger } from '../../src/log.js';
import { type HealthScheduler, startHealthScheduler } from '../../src/scheduler/health-scheduler.js';
import { useGraph } from '../support/graph.js';
import { checkNetworkAllowing, type ProbeTarget, startProbeTarget } from '../support/probe-target.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * Done when: a resource whose HTTP check goes down becomes unhealthy with an open check_failing
 * condition (after K failures), resolves when it comes back (after K passes), every step visible
 * over GraphQL, and healthSummary reflects it. The scheduler is driven with runOnce().
 */
const { driver, scope } = useGraph();
const K = 3;
const HISTORY = 6;
const webId = `manual:service/${scope}-web`;
let srv: TestServer;
let target: ProbeTarget;
let scheduler: HealthScheduler;
let checkId: string;

const STATUS = `query($id: ID!) {
  resource(id: $id) { health lastCheckAt conditions(status: open) { type } }
  openConditions(resourceId: $id) { id type status openedAt resolvedAt evidence attribution }
  checks(resourceId: $id) { id kind target failing latest { status reason } results { status reason at } }
  healthSummary(scope: {under: $id}) { total counts { health count } attention { id health } }
}`;

async function status() {
  const { body } = await srv.gql(srv.tokens.agent, STATUS, { id: webId });
  expect(body.errors).toBeUndefined();
  const d = body.data;
  expect(d.healthSummary.total).toBe(1); // scoped to the resource and its (no) dependents
  const count = (h: string) => d.healthSummary.counts.find((c: any) => c.health === h).count;
  return { ...d, count, attention: d.healthSummary.attention };
}

beforeAll(async () => {
  srv = await startTestServer(driver, { checkNetwork: checkNetworkAllowing('127.0.0.1') });
  target = await startProbeTarget();
  scheduler = startHealthScheduler({
    driver,
    log: createLogger('silent'),
    autoTick: false,
    k: K,
    historySize: HISTORY,
    concurrency: 8,
    network: checkNetworkAllowing('127.0.0.1'),
  });
  await upsertResources(driver, [
    { id: webId, kind: 'service', provider: 'manual', name: `${scope}-web`, state: 'up' },
  ]);
});
afterAll(async () => {
  await scheduler?.stop();
  await target?.close();
  await srv?.close();
});

describe('an HTTP check going down and coming back, seen over GraphQL', () => {
  it('a resource without checks is unknown and unmonitored (reporting only)', async () => {
    await scheduler.runOnce();
    const s = await status();
    expect(s.count('unknown')).toBe(1);
    expect(s.resource.health).toBe('unknown');
    expect(s.attention).toEqual([{ id: webId, health: 'unknown' }]);
    expect(s.checks).toEqual([]);
    expect(s.openConditions).toMatchObject([
      { type: 'unmonitored', status: 'open', attribution: null, evidence: { reportingOnly: true } },
    ]);
  });

  it('an agent may read checks but not create them; bad input names the field and writes nothing', async () => {
    const create = `mutation($i: CreateCheckInput!) { createCheck(input: $i) { created check { id kind target intervalSeconds http { url expectedStatus timeoutMs } } } }`;
    const agent = await srv.gql(srv.tokens.agent, create, {
      i: { resourceId: webId, kind: 'http', http: { url: target.url } },
    });
    expect(agent.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', permission: 'check:manage' });
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ resourceId: webId, kind: 'http' }, 'input.http', /required for a http check/],
      [
        { resourceId: webId, kind: 'http', http: { url: target.url }, tcp: { host: 'h', port: 1 } },
        'input.tcp',
        /not used by a http check/,
      ],
      [{ resourceId: webId, kind: 'http', http: { url: 'ftp://x/' } }, 'input.http.url', /http:\/\/ or https:\/\//],
      [{ resourceId: webId, kind: 'tcp', tcp: { host: '127.0.0.1', port: 70000 } }, 'input.tcp.port', /port/],
      [
        { resourceId: webId, kind: 'http', http: { url: target.url }, intervalSeconds: 1 },
        'input.intervalSeconds',
        /at least 5/,
      ],
      [{ resourceId: webId, kind: 'proxmox_agent' }, 'input.kind', /Proxmox VM/],
      [{ resourceId: `manual:service/${scope}-nope`, kind: 'provider_state' }, 'input.resourceId', /no resource/],
    ];
    for (const [input, field, reason] of cases) {
      const { body } = await srv.gql(srv.tokens.operator, create, { i: input });
      expect(body.errors?.[0]?.extensions, JSON.stringify(input)).toMatchObject({ code: 'BAD_USER_INPUT', field });
      expect(body.errors[0].message).toMatch(reason);
    }
    expect((await status()).checks).toEqual([]);

    const ok = await srv.gql(srv.tokens.operator, create, {
      i: {
        resourceId: `service:${scope}-web`,
        kind: 'http',
        http: { url: target.url, timeoutMs: 1000 },
        intervalSeconds: 30,
      },
    });
    expect(ok.body.data.createCheck).toMatchObject({
      created: true,
      check: {
        kind: 'http',
        target: target.url,
        intervalSeconds: 30,
        http: { url: target.url, expectedStatus: 200, timeoutMs: 1000 },
      },
    });
    checkId = ok.body.data.createCheck.check.id;
    const again = await srv.gql(srv.tokens.operator, create, {
      i: { resourceId: webId, kind: 'http', http: { url: target.url, timeoutMs: 1000 }, intervalSeconds: 30 },
    });
    expect(again.body.data.createCheck).toMatchObject({ created: false, check: { id: checkId } });
    const audit = await srv.gql(
      srv.tokens.operator,
      `{ auditLog(filter: {operation: "createCheck", targetId: "${webId}"}) { nodes { outcome principal } } }`,
    );
    expect(audit.body.data.auditLog.nodes.map((n: any) => n.outcome)).toEqual(
      expect.arrayContaining(['ok', 'refused']),
    );
  });

  it('while the target is up: healthy, lastCheckAt set, unmonitored resolved', async () => {
    await target.set('up');
    await scheduler.runOnce();
    const s = await status();
    expect(s.resource.health).toBe('healthy');
    expect(Date.parse(s.resource.lastCheckAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(s.openConditions).toEqual([]);
    expect(s.checks[0]).toMatchObject({ id: checkId, failing: false, latest: { status: 'pass', reason: null } });
    expect(s.count('healthy')).toBe(1);
    expect(s.count('unknown')).toBe(0);
    expect(s.attention).toEqual([]);
  });

  it('when it goes down: unhealthy at once, check_failing only after K failures in a row', async () => {
    await target.set('down');
    let lastCheckAt = (await status()).resource.lastCheckAt;
    for (let i = 1; i <= K; i++) {
      await new Promise((r) => setTimeout(r, 5)); // lastCheckAt must move between runs
      await scheduler.runOnce({ all: true });
      const s = await status();
      expect(s.resource.health).toBe('unhealthy');
      expect(s.resource.lastCheckAt >= lastCheckAt).toBe(true);
      lastCheckAt = s.resource.lastCheckAt;
      expect(s.checks[0].latest).toEqual({ status: 'fail', reason: `connection refused by 127.0.0.1:${target.port}` });
      expect(s.count('unhealthy')).toBe(1);
      expect(s.count('healthy')).toBe(0);
      expect(s.attention).toEqual([{ id: webId, health: 'unhealthy' }]);
      expect(s.openConditions.map((c: any) => c.type)).toEqual(i < K ? [] : ['check_failing']);
      expect(s.checks[0].failing).toBe(i === K);
    }
    const s = await status();
    const open = s.openConditions[0];
    expect(open).toMatchObject({ type: 'check_failing', status: 'open', resolvedAt: null, attribution: null });
    expect(open.evidence).toMatchObject({
      source: 'health-scheduler',
      k: K,
      checks: [{ checkId, kind: 'http', target: target.url }],
    });
    expect(open.evidence.checks[0].results.map((r: any) => r.status)).toEqual(['fail', 'fail', 'fail']);
    expect(s.resource.conditions).toEqual([{ type: 'check_failing' }]);
  });

  it('garbage and slow answers keep it failing; it resolves only after K passes in a row', async () => {
    await target.set('garbage');
    await scheduler.runOnce({ all: true });
    expect((await status()).checks[0].latest.reason).toMatch(/invalid HTTP response/);
    await target.set('up');
    await scheduler.runOnce({ all: true });
    await scheduler.runOnce({ all: true });
    let s = await status();
    expect(s.resource.health).toBe('healthy');
    expect(s.openConditions.map((c: any) => c.type)).toEqual(['check_failing']);
    await target.set('slow');
    await scheduler.runOnce({ all: true });
    s = await status();
    expect(s.resource.health).toBe('unhealthy');
    expect(s.checks[0].latest.reason).toMatch(/timed out after 1000 ms waiting for/);
    await target.set('up');
    for (let i = 1; i <= K; i++) {
      await scheduler.runOnce({ all: true });
      s = await status();
      expect(s.resource.health).toBe('healthy');
      expect(s.openConditions.map((c: any) => c.type)).toEqual(i < K ? ['check_failing'] : []);
    }
    expect(s.count('healthy')).toBe(1);
    expect(s.count('unhealthy')).toBe(0);
    expect(s.attention).toEqual([]);
    expect(s.checks[0].results).toHaveLength(HISTORY);
    expect(s.checks[0].results.slice(0, K).map((r: any) => r.status)).toEqual(['pass', 'pass', 'pass']);
  });

  it('the resolved condition stays readable through conditions(filter, first, after)', async () => {
    const q = `query($f: ConditionFilter, $after: String) { conditions(filter: $f, first: 1, after: $after) {
      edges { cursor node { type status openedAt resolvedAt evidence } } pageInfo { hasNextPage endCursor } } }`;
    const { body } = await srv.gql(srv.tokens.agent, q, { f: { resourceId: webId, type: 'check_failing' } });
    const [edge] = body.data.conditions.edges;
    expect(edge.node).toMatchObject({ type: 'check_failing', status: 'resolved' });
    expect(Date.parse(edge.node.resolvedAt)).toBeGreaterThanOrEqual(Date.parse(edge.node.openedAt));
    expect(edge.node.evidence).toMatchObject({ source: 'health-scheduler' });
    // All of this resource's conditions, one per page: check_failing and unmonitored, both resolved.
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 5; page++) {
      const r: any = await srv.gql(srv.tokens.agent, q, { f: { resourceId: webId }, after });
      seen.push(...r.body.data.conditions.edges.map((e: any) => `${e.node.type}:${e.node.status}`));
      if (!r.body.data.conditions.pageInfo.hasNextPage) break;
      after = r.body.data.conditions.pageInfo.endCursor;
    }
    expect(seen.sort()).toEqual(['check_failing:resolved', 'unmonitored:resolved']);
    const since = await srv.gql(srv.tokens.agent, q, {
      f: { resourceId: webId, since: new Date(Date.now() + 60_000).toISOString() },
    });
    expect(since.body.data.conditions.edges).toEqual([]);
    const bad = await srv.gql(srv.tokens.agent, q, { f: { resourceId: webId }, after: 'not-a-cursor' });
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
  });

  it('removing the check (operators only) returns health to unknown and the resource to unmonitored at the next tick', async () => {
    const rm = `mutation($id: ID!) { removeCheck(id: $id) { id resourceId message } }`;
    const agent = await srv.gql(srv.tokens.agent, rm, { id: checkId });
    expect(agent.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', permission: 'check:manage' });
    const missing = await srv.gql(srv.tokens.operator, rm, { id: `${webId}#check#http#nope` });
    expect(missing.body.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND', field: 'id' });
    const ok = await srv.gql(srv.tokens.operator, rm, { id: checkId });
    expect(ok.body.data.removeCheck).toMatchObject({ id: checkId, resourceId: webId });
    await scheduler.runOnce();
    const s = await status();
    expect(s.checks).toEqual([]);
    expect(s.resource.health).toBe('unknown');
    expect(s.openConditions.map((c: any) => c.type)).toEqual(['unmonitored']);
    expect(s.count('unknown')).toBe(1);
    expect(s.count('healthy')).toBe(0);
    expect(s.attention).toEqual([{ id: webId, health: 'unknown' }]);
  });
});
