import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertResources } from '../../src/graph/resources/upsert.js';
import { DEFAULT_POLICY_PATH, loadStartupPolicy } from '../../src/policy/index.js';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';

/*
 * The "done when", over HTTP: an agent asks, an operator approves, the agent redeems once;
 * a replay, changed params, an expired grant, a changed policy after a restart and the kill switch
 * are each refused with their code; self-approval is refused; a plan's destructive step stays pending.
 */

const { driver, scope } = useGraph();
const vm = `proxmox:${scope}/qemu/101`;
const db = `proxmox:${scope}/qemu/102`;
const restart = { target: vm, action: 'restart', params: { reason_code: 7 } };
const dir = mkdtempSync(join(tmpdir(), 'aitia-approvals-'));
const policyFile = join(dir, 'policy.yaml');
let srv: TestServer;

const APPROVAL = 'id planId step status requester targetId riskClass approval inputs inputsDigest policyDigest';
const REQUEST = `mutation($input: RequestApprovalInput!) { requestApproval(input: $input) { ${APPROVAL} } }`;
const APPROVE = `mutation($id: ID!, $confirmTarget: String) { approve(id: $id, confirmTarget: $confirmTarget) {
  approvals { ${APPROVAL} } grants { approvalId token expiresAt } } }`;
const REDEEM = `mutation($token: String!, $input: ClassifyActionInput!) { redeemGrant(token: $token, input: $input) {
  authorized authorizationId approvalId refusal { code field message } } }`;
const HALT = `mutation($mode: AutonomyMode!, $reason: String!) { setAutonomy(mode: $mode, reason: $reason) { mode setBy reason } }`;

/** Runs an operation, failing the test on any GraphQL error; its data. */
async function ok(server: TestServer, token: string, query: string, variables: Record<string, unknown>) {
  const { status, body } = await server.gql(token, query, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  expect(status).toBe(200);
  return body.data;
}

/** The agent asks for `input`, the operator approves it: the grant token. */
async function grant(server: TestServer, input: Record<string, unknown> = restart): Promise<string> {
  const asked = await ok(server, server.tokens.agent, REQUEST, { input: { ...input, reason: 'wedged' } });
  const { approve } = await ok(server, server.tokens.operator, APPROVE, { id: asked.requestApproval[0].id });
  return approve.grants[0].token;
}

async function redeem(server: TestServer, token: string, input: Record<string, unknown> = restart) {
  return (await ok(server, server.tokens.agent, REDEEM, { token, input })).redeemGrant;
}

async function startWith(extra: string): Promise<TestServer> {
  writeFileSync(policyFile, `${readFileSync(DEFAULT_POLICY_PATH, 'utf8')}\n${extra}`);
  return startTestServer(driver, { policy: await loadStartupPolicy(policyFile) });
}

beforeAll(async () => {
  await upsertResources(driver, [
    { id: vm, kind: 'vm', provider: 'proxmox', name: `web01-${scope}`, state: 'running', lifecycle: 'active' },
    { id: db, kind: 'vm', provider: 'proxmox', name: `db01-${scope}`, state: 'running', lifecycle: 'active' },
  ]);
  srv = await startWith('approvals:\n  grant_ttl_seconds: 900\n');
});

afterAll(async () => {
  await srv.close();
  rmSync(dir, { recursive: true, force: true });
  await driver.executeQuery(
    'MATCH (n) WHERE (n:Approval OR n:ActionAuthorized) AND n.targetId CONTAINS $scope DETACH DELETE n',
    { scope },
  );
  await driver.executeQuery('MATCH (k:AutonomySwitch) DETACH DELETE k');
});

describe('approvals over HTTP', () => {
  it('request → approve → redeem once; replay, changed params, expiry, policy change and halt are refused', async () => {
    const asked = (await ok(srv, srv.tokens.agent, REQUEST, { input: { ...restart, reason: 'wedged' } }))
      .requestApproval;
    expect(asked).toEqual([
      expect.objectContaining({ status: 'pending', targetId: vm, planId: null, policyDigest: srv.policyDigest }),
    ]);
    const { approve } = await ok(srv, srv.tokens.operator, APPROVE, { id: asked[0].id });
    const token = approve.grants[0].token;
    expect(await redeem(srv, token)).toMatchObject({ authorized: true, approvalId: asked[0].id, refusal: null });
    expect(await redeem(srv, token)).toMatchObject({ authorized: false, refusal: { code: 'GRANT_REPLAYED' } });

    const changed = await grant(srv);
    expect(await redeem(srv, changed, { ...restart, params: { reason_code: 8 } })).toMatchObject({
      authorized: false,
      refusal: { code: 'GRANT_MISMATCH', field: 'input.params.reason_code' },
    });
    expect(await redeem(srv, changed, { ...restart, target: db })).toMatchObject({
      refusal: { code: 'GRANT_MISMATCH', field: 'input.target' },
    });

    // The policy file changes (a shorter grant life) and the service restarts on it.
    const before = await grant(srv);
    await srv.close();
    srv = await startWith('approvals:\n  grant_ttl_seconds: 1\n');
    expect(await redeem(srv, before)).toMatchObject({
      refusal: { code: 'POLICY_CHANGED', message: expect.stringContaining(srv.policyDigest) },
    });
    const brief = await grant(srv);
    await new Promise((r) => setTimeout(r, 1200));
    expect(await redeem(srv, brief)).toMatchObject({ refusal: { code: 'GRANT_EXPIRED' } });

    const halted = await grant(srv);
    await ok(srv, srv.tokens.operator, HALT, { mode: 'halt', reason: 'storage incident' });
    try {
      expect(await redeem(srv, halted)).toMatchObject({
        refusal: {
          code: 'HALTED',
          message: expect.stringMatching(/^halted by test-operator at .*: storage incident$/),
        },
      });
      const { about } = await ok(srv, srv.tokens.agent, '{ about { autonomy { mode setBy reason } } }', {});
      expect(about.autonomy).toEqual({ mode: 'halt', setBy: 'test-operator', reason: 'storage incident' });
    } finally {
      await ok(srv, srv.tokens.operator, HALT, { mode: 'normal', reason: 'over' });
    }
  });

  it('refuses self-approval and an agent approving', async () => {
    const own = await ok(srv, srv.tokens.operator, REQUEST, { input: { ...restart, reason: 'mine' } });
    const self = await srv.gql(srv.tokens.operator, APPROVE, { id: own.requestApproval[0].id });
    expect(self.body.errors[0]).toMatchObject({
      message: expect.stringContaining('no one approves or denies their own request'),
      extensions: { code: 'FORBIDDEN' },
    });
    const agent = await srv.gql(srv.tokens.agent, APPROVE, { id: own.requestApproval[0].id });
    expect(agent.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('a plan approval grants its non-destructive step and leaves the destructive one pending', async () => {
    const input = {
      reason: 'rebuild db01',
      steps: [
        { target: db, action: 'stop' },
        { target: db, action: 'restart', declaredRiskClass: 'destructive' },
      ],
    };
    const steps = (await ok(srv, srv.tokens.agent, REQUEST, { input })).requestApproval;
    expect(steps.map((s: { step: number; riskClass: string }) => s.step)).toEqual([0, 1]);
    const { approve } = await ok(srv, srv.tokens.operator, APPROVE, { id: steps[0].planId });
    expect(approve.grants.map((g: { approvalId: string }) => g.approvalId)).toEqual([steps[0].id]);
    expect(approve.approvals.map((a: { status: string }) => a.status)).toEqual(['approved', 'pending']);
    const own = await ok(srv, srv.tokens.operator, APPROVE, { id: steps[1].id, confirmTarget: `db01-${scope}` });
    expect(own.approve.approvals[0].status).toBe('approved');
  });
});
