import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestFeedSeq } from '../../../src/graph/feed.js';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { loadStartupPolicy } from '../../../src/policy/startup.js';
import { approve, deny, requestApproval } from '../../../src/services/approvals.js';
import { approvalFeed, type ApprovalChange } from '../../../src/services/feed.js';
import { redeemGrant } from '../../../src/services/grants.js';
import { useGraph } from '../../support/graph.js';
import { principalOf, serviceDeps } from '../../support/services.js';

/*
 * The approval feed: each request (every plan step), decision and redeem of a grant (used or
 * refused) is stored with its sequence in the transaction of the change, and approvalChanged
 * replays them after `since`.
 */

const { driver, scope } = useGraph();
const deps = serviceDeps(driver, await loadStartupPolicy(undefined));
const web = `proxmox:${scope}/qemu/101`;
const restart = { target: web, action: 'restart' };

beforeAll(async () => {
  await upsertResources(driver, [
    { id: web, kind: 'vm', provider: 'proxmox', name: `web-${scope}`, state: 'running', lifecycle: 'active' },
  ]);
});

afterAll(async () => {
  await driver.executeQuery(
    `MATCH (n) WHERE (n:Approval OR n:ActionAuthorized) AND n.targetId CONTAINS $scope
        OR n:GrantRedeem AND n.principal CONTAINS $scope
        OR n:FeedEntry AND n.resourceId CONTAINS $scope DETACH DELETE n`,
    { scope },
  );
});

/** The next `n` approval changes after `since`, of this file's target (other files share the feed). */
async function changesAfter(since: number, n: number): Promise<ApprovalChange[]> {
  const feed = await approvalFeed(deps, principalOf(scope, 'agent'), { since });
  const it = feed[Symbol.asyncIterator]();
  const out: ApprovalChange[] = [];
  while (out.length < n) {
    const step = await it.next();
    if (step.done) break;
    if (step.value.approval.targetId === web) out.push(step.value);
  }
  await it.return?.();
  return out;
}

describe('approvalChanged', () => {
  it('replays requested, approved, redeemed and a refused replay, in order, each with who and the approval then', async () => {
    const since = await latestFeedSeq(driver);
    const agent = principalOf(scope, 'agent');
    const operator = principalOf(scope, 'operator');
    const [asked] = await requestApproval(deps, agent, { ...restart, reason: 'wedged' });
    const { grants } = await approve(deps, operator, { id: asked!.id });
    expect((await redeemGrant(deps, agent, { token: grants[0]!.token, input: restart })).authorized).toBe(true);
    const replay = await redeemGrant(deps, agent, { token: grants[0]!.token, input: restart });
    expect(replay.refusal?.code).toBe('GRANT_REPLAYED');

    const changes = await changesAfter(since, 4);
    expect(changes.map((c) => [c.change, c.actor, c.approval.id, c.approval.status])).toEqual([
      ['requested', agent.name, asked!.id, 'pending'],
      ['approved', operator.name, asked!.id, 'approved'],
      ['redeemed', agent.name, asked!.id, 'used'],
      ['refused', agent.name, asked!.id, 'used'],
    ]);
    expect(changes.map((c) => c.refusal?.code ?? null)).toEqual([null, null, null, 'GRANT_REPLAYED']);
    const seqs = changes.map((c) => c.sequence);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(seqs[0]).toBeGreaterThan(since);
    // The payload never holds the grant's hash or token.
    expect(JSON.stringify(changes)).not.toContain(grants[0]!.token);
    expect(JSON.stringify(changes)).not.toContain('grantHash');
    // Resuming after the second change replays only the last two.
    expect((await changesAfter(seqs[1]!, 2)).map((c) => c.change)).toEqual(['redeemed', 'refused']);
  });

  it('a plan reports one requested change per step; a denial one denied change per step it denies', async () => {
    const since = await latestFeedSeq(driver);
    const agent = principalOf(scope, 'agent');
    const operator = principalOf(scope, 'operator');
    const steps = await requestApproval(deps, agent, { reason: 'two steps', steps: [restart, restart] });
    await deny(deps, operator, { id: steps[0]!.planId!, reason: 'not now' });
    const changes = await changesAfter(since, 4);
    expect(changes.map((c) => [c.change, c.approval.step, c.approval.status])).toEqual([
      ['requested', 0, 'pending'],
      ['requested', 1, 'pending'],
      ['denied', 0, 'denied'],
      ['denied', 1, 'denied'],
    ]);
    expect(changes[2]!.approval.decisionReason).toBe('not now');
  });

  it('is refused to a principal without approval:read, and refuses a since that is not a sequence', async () => {
    await expect(approvalFeed(deps, principalOf(scope, 'ingester'), {})).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(approvalFeed(deps, principalOf(scope, 'agent'), { since: -1 })).rejects.toMatchObject({
      field: 'since',
    });
  });
});
