import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_APPROVAL, requestDemoApproval } from '../../src/demo/pending-approval.js';
import { runDemo } from '../../src/demo/run-demo.js';
import { DEMO_SERVICES } from '../../src/demo/story.js';
import { removeDemoApprovals, resetScope } from '../../src/graph/resources/demo-scope.js';
import { loadStartupPolicy } from '../../src/policy/startup.js';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { serviceDeps } from '../support/services.js';

/*
 * The demo leaves the loop open for the console: one pending approval, an agent asking to start
 * build02, whose stop nobody explains. Over the wire, what the console reads of it: the inbox
 * (approvals(open: true)), the timeline across the estate by kind, confidence and time, the search
 * box, and after the operator approves and the agent redeems twice, the history of grants.
 */

const { driver } = useGraph();
const services = DEMO_SERVICES.map((s) => `manual:service/${s.name}`);
let srv: TestServer;
const printed: string[] = [];

async function ok(token: string, query: string, variables: Record<string, unknown> = {}) {
  const { body } = await srv.gql(token, query, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}

/** A transitions connection's nodes. */
const nodesOf = (connection: { edges: Array<{ node: any }> }) => connection.edges.map((e) => e.node);

beforeAll(async () => {
  await runDemo({ driver, suppression: 'shadow' }, { print: () => {} });
  const deps = serviceDeps(driver, await loadStartupPolicy(undefined));
  // A replay replaces the earlier run's request: one is left.
  await requestDemoApproval(deps, 'demo-agent', () => {});
  await requestDemoApproval(deps, 'demo-agent', (l) => printed.push(l));
  srv = await startTestServer(driver, { tokenPrefix: 'demo' });
}, 180_000);
afterAll(async () => {
  await srv?.close();
  await removeDemoApprovals(driver, 'proxmox:homelab/', services);
  await resetScope(driver, ['proxmox:homelab/'], services);
});

const INBOX = `{ approvals(open: true) { nodes { id status requester targetId targetName action riskClass
  approval reasons inputs expiresAt expired } } }`;

describe('the demo’s pending approval', () => {
  it('is one open request by demo-agent to start build02, escalated by the gate, printed', async () => {
    const { approvals } = await ok(srv.tokens.operator, INBOX);
    const ours = approvals.nodes.filter((a: any) => a.targetId.startsWith('proxmox:homelab/'));
    expect(ours).toHaveLength(1);
    expect(ours[0]).toMatchObject({
      status: 'pending',
      requester: 'demo-agent',
      targetId: 'proxmox:homelab/qemu/102',
      targetName: 'build02',
      action: 'start',
      riskClass: 'reversible_low',
      approval: 'operator',
      expired: false,
    });
    expect(ours[0].reasons.join(' ')).toMatch(/auto_act is off/);
    expect(JSON.parse(ours[0].inputs)).toMatchObject({ action: 'start', target: 'proxmox:homelab/qemu/102' });
    expect(Date.parse(ours[0].expiresAt)).toBeGreaterThan(Date.now());
    expect(printed.join('\n')).toMatch(/demo-agent asked an operator to start build02/);
  });

  it('the timeline across the estate: vm transitions of unknown cause in the story’s window, newest first', async () => {
    const { transitions } = await ok(
      srv.tokens.agent,
      `{ transitions(kind: vm, confidence: none, since: "2026-05-14T02:00:00Z", until: "2026-05-14T03:00:00Z") {
        edges { node { resourceId kind to } } } }`,
    );
    expect(nodesOf(transitions).filter((t: any) => t.resourceId.startsWith('proxmox:homelab/'))).toEqual([
      { resourceId: 'proxmox:homelab/qemu/113', kind: 'vm', to: 'paused_io_error' },
      { resourceId: 'proxmox:homelab/qemu/102', kind: 'vm', to: 'stopped' },
    ]);
    const hosts = await ok(srv.tokens.agent, '{ transitions(kind: host) { edges { node { resourceId } } } }');
    expect(nodesOf(hosts.transitions).filter((t: any) => t.resourceId.startsWith('proxmox:homelab/'))).toEqual([]);
    const early = await ok(
      srv.tokens.agent,
      '{ transitions(kind: vm, until: "2026-05-14T02:10:00Z") { edges { node { resourceId attribution { actor } } } } }',
    );
    expect(nodesOf(early.transitions).filter((t: any) => t.resourceId.startsWith('proxmox:homelab/'))).toEqual([
      { resourceId: 'proxmox:homelab/qemu/101', attribution: { actor: 'alice@pve' } },
    ]);
  });

  it('the search box: a slug, a name part, an id', async () => {
    const search = async (q: string) =>
      (await ok(srv.tokens.agent, 'query($q: String!) { searchResources(query: $q) { id slug } }', { q }))
        .searchResources;
    expect((await search('vm:build02'))[0]).toEqual({ id: 'proxmox:homelab/qemu/102', slug: 'vm:build02' });
    expect((await search('build'))[0].slug).toBe('vm:build02');
    expect((await search('proxmox:homelab/node/pve1'))[0].slug).toBe('host:pve1');
    const { body } = await srv.gql(srv.tokens.agent, '{ searchResources(query: "") { id } }');
    expect(body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'query' });
  });

  it('approved by the operator, redeemed once by the agent, a replay refused: the history of grants', async () => {
    const { approvals } = await ok(srv.tokens.operator, INBOX);
    const id = approvals.nodes.find((a: any) => a.targetName === 'build02').id;
    const approved = await ok(srv.tokens.operator, 'mutation($id: ID!) { approve(id: $id) { grants { token } } }', {
      id,
    });
    const REDEEM = `mutation($t: String!, $i: ClassifyActionInput!) { redeemGrant(token: $t, input: $i) { authorized } }`;
    const input = { target: DEMO_APPROVAL.target, action: DEMO_APPROVAL.action };
    const t = approved.approve.grants[0].token;
    expect((await ok(srv.tokens.agent, REDEEM, { t, i: input })).redeemGrant.authorized).toBe(true);
    expect((await ok(srv.tokens.agent, REDEEM, { t, i: input })).redeemGrant.authorized).toBe(false);
    const history = await ok(
      srv.tokens.agent,
      `query($id: ID) { grantRedeems(approvalId: $id) { nodes { outcome principal refusal { code }
        approval { id status usedBy } } pageInfo { hasNextPage } } }`,
      { id },
    );
    expect(history.grantRedeems.nodes).toEqual([
      {
        outcome: 'refused',
        principal: 'demo-agent',
        refusal: { code: 'GRANT_REPLAYED' },
        approval: { id, status: 'used', usedBy: 'demo-agent' },
      },
      {
        outcome: 'redeemed',
        principal: 'demo-agent',
        refusal: null,
        approval: { id, status: 'used', usedBy: 'demo-agent' },
      },
    ]);
    const closed = await ok(srv.tokens.agent, '{ approvals(open: false, first: 500) { nodes { id status } } }');
    expect(closed.approvals.nodes).toContainEqual({ id, status: 'used' });
    const { body } = await srv.gql(srv.tokens.scheduler, '{ grantRedeems { nodes { id } } }');
    expect(body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN' });
  });
});
