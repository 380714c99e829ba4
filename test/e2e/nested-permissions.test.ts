import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConditionsTx } from '../../src/graph/conditions.js';
import { upsertEdges } from '../../src/graph/edges.js';
import { upsertEvents } from '../../src/graph/events.js';
import { upsertResources } from '../../src/graph/resources/upsert.js';
import { ROLES, type Role } from '../../src/model/index.js';
import { correlateChanges } from '../../src/pipeline/correlate.js';
import { can, type Permission } from '../../src/services/permissions.js';
import { useGraph } from '../support/graph.js';
import { taskEvent, useEventCleanup } from '../support/proxmox-tasks.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { subscribeSse } from '../support/sse.js';

/*
 * Nested fields check the permission of the type they answer with, as the top-level operation
 * answering with it does: an ingester (no transition:read) reads no transition through a
 * condition's cause, nor the events behind an attribution; those who hold it read them as before.
 */

const { driver, scope } = useGraph();
useEventCleanup(driver, scope);
let srv: TestServer;
const vm = `proxmox:${scope}/qemu/101`;
const host = `proxmox:${scope}/node/pve1`;
let transitionId: string;
let conditionId: string;

beforeAll(async () => {
  srv = await startTestServer(driver, { tokenPrefix: scope });
  await upsertResources(driver, [
    { id: host, kind: 'host', provider: 'proxmox', name: `pve1-${scope}`, state: 'online' },
    { id: vm, kind: 'vm', provider: 'proxmox', name: `web-${scope}`, state: 'running', rawState: 'running' },
  ]);
  await upsertEdges(driver, [{ type: 'RUNS_ON', fromId: vm, toId: host, provenance: 'observed', source: scope }]);
  const t = (s: number) => new Date(Date.now() + s * 1000).toISOString();
  await upsertEvents(driver, [
    taskEvent(scope, { node: 'pve1', type: 'qmstop', id: '101', user: 'alice@pve', start: t(-3), end: t(-2) }),
  ]);
  await correlateChanges(
    { driver, suppression: 'shadow' },
    [{ id: vm, kind: 'vm', from: 'running', to: 'stopped', rawState: 'stopped' }],
    { observedAt: t(0), observer: 'e2e' },
  );
  const { body } = await srv.gql(
    srv.tokens.operator,
    'query($r: String) { transitions(resourceId: $r) { edges { node { id attribution { confidence } } } } }',
    { r: vm },
  );
  transitionId = body.data.transitions.edges[0].node.id;
  expect(body.data.transitions.edges[0].node.attribution.confidence).toBe('high');
  const session = driver.session();
  try {
    const [opened] = await session.executeWrite((tx) =>
      openConditionsTx(tx, [
        {
          resourceId: vm,
          type: 'paused_io_error',
          at: t(0),
          evidence: { state: 'stopped' },
          causeTransitionId: transitionId,
        },
      ]),
    );
    conditionId = opened!.condition.id;
  } finally {
    await session.close();
  }
}, 120_000);
afterAll(async () => {
  await srv?.close();
});

/** Every nested way to a protected type from an operation each role may call, and what it needs. */
const PATHS: Array<{
  name: string;
  query: string;
  needs: Permission;
  at: Array<string | number>;
  pick: (d: any) => unknown;
}> = [
  {
    name: 'openConditions → cause → transition',
    query: 'query($r: ID) { openConditions(resourceId: $r) { id cause { transition { id from to } } } }',
    needs: 'transition:read',
    at: ['openConditions', 0, 'cause', 'transition'],
    pick: (d) => d.openConditions.find((c: any) => c.id === conditionId)?.cause?.transition?.id,
  },
  {
    name: 'conditions → edges → node → cause → transition → attribution',
    query:
      'query($r: ID) { conditions(filter: {resourceId: $r}) { edges { node { id cause { transition { id attribution { actor } } } } } } }',
    needs: 'transition:read',
    at: ['conditions', 'edges', 0, 'node', 'cause', 'transition'],
    pick: (d) => d.conditions.edges.find((e: any) => e.node.id === conditionId)?.node.cause?.transition?.id,
  },
  {
    name: 'conditions → nodes → cause → transition',
    query: 'query($r: ID) { conditions(filter: {resourceId: $r}) { nodes { id cause { transition { id } } } } }',
    needs: 'transition:read',
    at: ['conditions', 'nodes', 0, 'cause', 'transition'],
    pick: (d) => d.conditions.nodes.find((c: any) => c.id === conditionId)?.cause?.transition?.id,
  },
  {
    name: 'resource → conditions → cause → transition (through a fragment)',
    query:
      'query($r: ID) { resource(id: $r) { ... on Vm { conditions { id cause { ...T } } } } } fragment T on ConditionCause { transition { id } }',
    needs: 'transition:read',
    at: ['resource', 'conditions', 0, 'cause', 'transition'],
    pick: (d) => d.resource.conditions.find((c: any) => c.id === conditionId)?.cause?.transition?.id,
  },
  {
    name: 'openConditions → cause → attribution → events → event (the stored provider event)',
    query: 'query($r: ID) { openConditions(resourceId: $r) { id cause { attribution { events { event { id } } } } } }',
    needs: 'transition:read',
    at: ['openConditions', 0, 'cause', 'attribution', 'events', 0, 'event'],
    pick: (d) => d.openConditions.find((c: any) => c.id === conditionId)?.cause?.attribution.events[0]?.event?.id,
  },
];

/** What the same roles get from the top-level operation: the reference the nested paths must match. */
async function topLevel(role: Role): Promise<boolean> {
  const { body } = await srv.gql(srv.tokens[role], 'query($id: ID!) { transition(id: $id) { id } }', {
    id: transitionId,
  });
  return body.data?.transition?.id === transitionId;
}

describe('nested fields check the permission of what they answer with', () => {
  const cases = ROLES.flatMap((role) => PATHS.map((p) => ({ role, ...p })));
  it.each(cases)('$role: $name', async ({ role, query, needs, at, pick }) => {
    const { status, body } = await srv.gql(srv.tokens[role], query, { r: vm });
    expect(status).toBe(200);
    const allowed = can({ name: role, role }, needs);
    expect(allowed).toBe(await topLevel(role));
    if (allowed) {
      expect(body.errors).toBeUndefined();
      expect(pick(body.data)).toBeTruthy();
      return;
    }
    // Refused at the nested field, naming the permission; the rest of the answer stands.
    expect(body.errors?.length).toBeGreaterThan(0);
    for (const e of body.errors) {
      expect(e.extensions).toMatchObject({ code: 'FORBIDDEN', permission: needs });
      expect(e.message).toMatch(new RegExp(`lacks permission ${needs}`));
      expect(e.path.map((k: unknown) => (typeof k === 'number' ? 0 : k))).toEqual(at);
    }
    expect(pick(body.data)).toBeFalsy();
    expect(JSON.stringify(body.data)).not.toContain(transitionId);
    expect(JSON.stringify(body.data)).not.toContain('alice@pve');
  });

  it('what every role may read stays readable: the cause’s resource and attribution summary', async () => {
    for (const role of ROLES) {
      const { body } = await srv.gql(
        srv.tokens[role],
        'query($r: ID) { openConditions(resourceId: $r) { id cause { resource { id } attribution { confidence } } } }',
        { r: vm },
      );
      expect(body.errors).toBeUndefined();
      const c = body.data.openConditions.find((x: any) => x.id === conditionId);
      expect(c.cause).toEqual({ resource: { id: vm }, attribution: { confidence: 'high' } });
    }
  });

  it('an SSE conditionChanged: the cause’s transition is refused to an ingester, read by an agent', async () => {
    const query =
      'subscription($r: String) { conditionChanged(resourceId: $r) { condition { id cause { transition { id } } } } }';
    const [ingester, agent] = await Promise.all([
      subscribeSse(srv.url, srv.tokens.ingester, query, { r: vm }),
      subscribeSse(srv.url, srv.tokens.agent, query, { r: vm }),
    ]);
    const at = new Date().toISOString();
    const { body } = await srv.gql(srv.tokens.operator, 'query($r: ID) { openConditions(resourceId: $r) { id } }', {
      r: vm,
    });
    expect(body.data.openConditions.map((c: any) => c.id)).toContain(conditionId);
    srv.bus.publish({
      seq: 2_100_000_000,
      topic: 'condition',
      resourceId: vm,
      change: 'opened',
      at,
      payload: {
        id: conditionId,
        type: 'paused_io_error',
        status: 'open',
        resourceId: vm,
        openedAt: at,
        causeTransitionId: transitionId,
      },
    });
    const [refused, read] = await Promise.all([ingester.next(), agent.next()]);
    expect(read.errors).toBeUndefined();
    expect(read.data.conditionChanged.condition.cause.transition.id).toBe(transitionId);
    expect(refused.errors[0]).toMatchObject({
      extensions: { code: 'FORBIDDEN', permission: 'transition:read' },
      path: ['conditionChanged', 'condition', 'cause', 'transition'],
    });
    expect(refused.data.conditionChanged.condition).toEqual({ id: conditionId, cause: null });
    ingester.close();
    agent.close();
  });
});
