import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { loadStartupPolicy } from '../../../src/policy/startup.js';
import { approvals, approve, deny, requestApproval } from '../../../src/services/approvals.js';
import { classifyAction } from '../../../src/services/gate.js';
import { redeemGrant, setAutonomy } from '../../../src/services/grants.js';
import { replayDecision } from '../../../src/services/replay.js';
import { useGraph } from '../../support/graph.js';
import { auditOf, principalOf, serviceDeps } from '../../support/services.js';

const { driver, scope } = useGraph();
const shipped = await loadStartupPolicy(undefined);
const deps = serviceDeps(driver, shipped);
const web = `proxmox:${scope}/qemu/101`;
const db = `proxmox:${scope}/qemu/102`;
const restart = { target: web, action: 'restart' };
// Every destroy rule of the shipped policy is `never`; a destructive escalation is declared.
const destroyDb = { target: db, action: 'restart', declaredRiskClass: 'destructive' as const };

beforeAll(async () => {
  await upsertResources(driver, [
    { id: web, kind: 'vm', provider: 'proxmox', name: `web-${scope}`, state: 'running', lifecycle: 'active' },
    { id: db, kind: 'vm', provider: 'proxmox', name: `db-${scope}`, state: 'running', lifecycle: 'active' },
  ]);
});

afterAll(async () => {
  await driver.executeQuery(
    `MATCH (n) WHERE (n:Approval OR n:ActionAuthorized) AND n.targetId CONTAINS $scope
        OR n:Decision AND n.principal CONTAINS $scope DETACH DELETE n`,
    { scope },
  );
  await driver.executeQuery(`MATCH (k:AutonomySwitch) DETACH DELETE k`);
});

/** An agent's request approved by an operator: the approval and its grant token. */
async function granted(input: Record<string, unknown> = restart) {
  const agent = principalOf(scope, 'agent');
  const operator = principalOf(scope, 'operator');
  const [asked] = await requestApproval(deps, agent, { ...input, reason: 'web is wedged' } as never);
  const { grants } = await approve(deps, operator, { id: asked!.id });
  return { agent, operator, approval: asked!, token: grants[0]!.token };
}

describe('requestApproval and approve', () => {
  it('records a pending request bound to the inputs and policy, and an approval yields a one-time token', async () => {
    const agent = principalOf(scope, 'agent');
    const [asked] = await requestApproval(deps, agent, { ...restart, reason: 'web is wedged' });
    expect(asked).toMatchObject({
      status: 'pending',
      requester: agent.name,
      action: 'restart',
      targetId: web,
      policyDigest: shipped.digest,
      inputsDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const operator = principalOf(scope, 'operator');
    const { approvals: decided, grants } = await approve(deps, operator, { id: asked!.id });
    expect(decided[0]).toMatchObject({ status: 'approved', decidedBy: operator.name });
    expect(grants[0]!.token).toMatch(/^aitia-grant-/);
    const stored = await driver.executeQuery('MATCH (a:Approval {id: $id}) RETURN properties(a) AS a', {
      id: asked!.id,
    });
    expect(JSON.stringify(stored.records[0]!.get('a'))).not.toContain(grants[0]!.token);
    expect((await auditOf(driver, operator)).map((e) => [e.operation, e.outcome])).toEqual([['approve', 'ok']]);
  });

  it('refuses self-approval, a missing confirmTarget for a destructive action, and a second decision', async () => {
    const operator = principalOf(scope, 'operator');
    const [own] = await requestApproval(deps, operator, { ...restart, reason: 'mine' });
    await expect(approve(deps, operator, { id: own!.id })).rejects.toMatchObject({ code: 'FORBIDDEN', field: 'id' });
    const agent = principalOf(scope, 'agent');
    const [destroy] = await requestApproval(deps, agent, { ...destroyDb, reason: 'gone' });
    expect(destroy).toMatchObject({ riskClass: 'destructive', approval: 'operator_confirmed' });
    await expect(approve(deps, operator, { id: destroy!.id })).rejects.toMatchObject({ field: 'confirmTarget' });
    await approve(deps, operator, { id: destroy!.id, confirmTarget: `db-${scope}` });
    await expect(deny(deps, operator, { id: destroy!.id, reason: 'no' })).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('refuses a request for an action the gate never allows, naming the field', async () => {
    const agent = principalOf(scope, 'agent');
    await expect(requestApproval(deps, agent, { target: web, action: 'wipe-all', reason: 'x' })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'input.action',
    });
    await expect(requestApproval(deps, agent, { ...restart, reason: ' ' })).rejects.toMatchObject({
      field: 'input.reason',
    });
  });

  it('approving a plan grants its non-destructive steps and leaves a destructive one pending', async () => {
    const agent = principalOf(scope, 'agent');
    const operator = principalOf(scope, 'operator');
    const steps = await requestApproval(deps, agent, {
      reason: 'rebuild db',
      steps: [{ target: db, action: 'stop' }, destroyDb],
    });
    expect(steps.map((s) => [s.step, s.riskClass])).toEqual([
      [0, expect.not.stringMatching('destructive')],
      [1, 'destructive'],
    ]);
    const planId = steps[0]!.planId!;
    const { approvals: after, grants } = await approve(deps, operator, { id: planId });
    expect(grants.map((g) => g.approvalId)).toEqual([steps[0]!.id]);
    expect(after.map((a) => a.status)).toEqual(['approved', 'pending']);
    const pending = await approvals(deps, operator, { status: 'pending', first: 500 });
    expect(pending.nodes.map((a) => a.id)).toContain(steps[1]!.id);
  });
});

describe('redeemGrant', () => {
  it('authorizes once, then refuses a replay; nothing is used up by a refusal', async () => {
    const { token, approval } = await granted();
    const executor = principalOf(scope, 'agent');
    const changed = await redeemGrant(deps, executor, { token, input: { ...restart, params: { force: true } } });
    expect(changed).toMatchObject({
      authorized: false,
      refusal: { code: 'GRANT_MISMATCH', field: 'input.params.force' },
    });
    const first = await redeemGrant(deps, executor, { token, input: restart });
    expect(first).toMatchObject({
      authorized: true,
      approvalId: approval.id,
      authorizationId: expect.stringMatching(/^auth-/),
    });
    const again = await redeemGrant(deps, executor, { token, input: restart });
    expect(again).toMatchObject({ authorized: false, refusal: { code: 'GRANT_REPLAYED' } });
    expect((await auditOf(driver, executor)).map((e) => e.outcome)).toEqual(['refused', 'ok', 'refused']);
  });

  it('fifty concurrent redeems of one grant authorize exactly one', async () => {
    const { token } = await granted();
    const executors = Array.from({ length: 50 }, () => principalOf(scope, 'agent'));
    const results = await Promise.all(executors.map((p) => redeemGrant(deps, p, { token, input: restart })));
    expect(results.filter((r) => r.authorized)).toHaveLength(1);
    expect(results.filter((r) => r.refusal?.code === 'GRANT_REPLAYED')).toHaveLength(49);
    const { records } = await driver.executeQuery(
      'MATCH (x:ActionAuthorized {targetId: $web}) WHERE x.approvalId IS NOT NULL RETURN count(*) AS n, collect(DISTINCT x.approvalId) AS ids',
      { web },
    );
    expect(records[0]!.get('n').toNumber()).toBe(records[0]!.get('ids').length);
  });

  it('refuses an expired grant and one approved under another policy', async () => {
    const { token } = await granted();
    const later = { ...deps, now: () => new Date(Date.now() + 901_000).toISOString() };
    const agent = principalOf(scope, 'agent');
    expect(await redeemGrant(later, agent, { token, input: restart })).toMatchObject({
      refusal: { code: 'GRANT_EXPIRED' },
    });
    const changed = { ...deps, policy: { ...shipped, digest: 'f'.repeat(64) } };
    expect(await redeemGrant(changed, agent, { token, input: restart })).toMatchObject({
      refusal: { code: 'POLICY_CHANGED', message: expect.stringContaining(shipped.digest) },
    });
    expect(await redeemGrant(deps, agent, { token: `aitia-grant-${'A'.repeat(43)}`, input: restart })).toMatchObject({
      refusal: { code: 'GRANT_UNKNOWN', field: 'token' },
    });
  });

  it('the kill switch: halted, every decision escalates naming who and why, and redeems are refused', async () => {
    const { token } = await granted();
    const operator = principalOf(scope, 'operator');
    const agent = principalOf(scope, 'agent');
    await expect(setAutonomy(deps, agent, { mode: 'halt', reason: 'x' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await setAutonomy(deps, operator, { mode: 'halt', reason: 'storage incident' });
    try {
      const answer = await classifyAction(deps, agent, {
        target: `service:x-${scope}`.replace('service', 'dns-record'),
        action: 'get',
      });
      expect(answer.autonomy).not.toBe('auto');
      expect(answer.facts.autonomyMode).toBe('halt');
      expect(answer.reasons.join('\n')).toContain(`halted by ${operator.name}`);
      expect(await redeemGrant(deps, agent, { token, input: restart })).toMatchObject({
        refusal: { code: 'HALTED', message: expect.stringContaining('storage incident') },
      });
    } finally {
      await setAutonomy(deps, operator, { mode: 'normal', reason: 'over' });
    }
    expect(await redeemGrant(deps, agent, { token, input: restart })).toMatchObject({ authorized: true });
  });
});

describe('replayDecision', () => {
  it('re-runs a recorded decision identically, secrets redacted in what is stored; another policy is named', async () => {
    const agent = principalOf(scope, 'agent');
    const asked = await classifyAction(deps, agent, {
      target: web,
      action: 'run',
      command: 'mysql --password hunter2 -e "select 1"',
    });
    expect(asked.decisionId).toMatch(/^dec-/);
    const stored = await driver.executeQuery('MATCH (d:Decision {id: $id}) RETURN properties(d) AS d', {
      id: asked.decisionId,
    });
    expect(JSON.stringify(stored.records[0]!.get('d'))).not.toContain('hunter2');
    const replayed = await replayDecision(deps, agent, { id: asked.decisionId! });
    expect(replayed).toMatchObject({ identical: true, samePolicy: true, differences: [], riskClass: asked.riskClass });
    const other = { ...deps, policy: { ...shipped, digest: 'e'.repeat(64) } };
    expect(await replayDecision(other, agent, { id: asked.decisionId! })).toMatchObject({
      samePolicy: false,
      recordedPolicyDigest: shipped.digest,
    });
    await expect(replayDecision(deps, agent, { id: 'dec-nope' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      field: 'id',
    });
  });
});
