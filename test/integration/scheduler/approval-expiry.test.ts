import { afterAll, describe, expect, it } from 'vitest';
import { approvalOf } from '../../../src/graph/approval-history.js';
import { createApprovals, listApprovals } from '../../../src/graph/approvals.js';
import { readFeed } from '../../../src/graph/feed.js';
import { createLogger } from '../../../src/log.js';
import type { ApprovalRecord, ApprovalStatus, FeedEntry } from '../../../src/model/index.js';
import {
  APPROVAL_EXPIRY_LEASE,
  startApprovalExpiry,
  startExpirySweep,
} from '../../../src/scheduler/approval-expiry.js';
import { approvalFeed, type ApprovalChange } from '../../../src/services/feed.js';
import { useGraph } from '../../support/graph.js';
import { principalOf, serviceDeps } from '../../support/services.js';
import { until } from '../../support/until.js';

/**
 * The expiry sweep on the real Neo4j: a pending request past its expiresAt is marked expired once,
 * its `expired` feed entry in the same transaction, however many sweeps race (two replicas, a
 * restart) and in batches; a decided or unexpired one is left alone; under the lease, one of two
 * replicas sweeps and still each expiry is reported once.
 */
const { driver, scope } = useGraph();
const log = createLogger(process.env.AITIA_TEST_LOG ?? 'silent');
const target = `manual:vm/expiry-${scope}`;

afterAll(async () => {
  await driver.executeQuery(
    `MATCH (n) WHERE (n:Approval AND n.targetId = $target) OR (n:FeedEntry AND n.resourceId = $target)
       OR ((n:Lease OR n:LeaseFence) AND n.name = $lease) DETACH DELETE n`,
    { target, lease: APPROVAL_EXPIRY_LEASE },
  );
});

let n = 0;
function row(status: ApprovalStatus, expiresInSeconds: number): ApprovalRecord {
  const now = Date.now();
  // Only what a request has of its own: approvalOf fills the undecided, unplanned rest as stored.
  return approvalOf({
    id: `approval-${scope}-${++n}`,
    status,
    requester: `agent-${scope}`,
    requesterRole: 'agent',
    reason: 'restart it',
    requestedAt: new Date(now - 3_600_000).toISOString(),
    expiresAt: new Date(now + expiresInSeconds * 1000).toISOString(),
    action: 'restart',
    targetId: target,
    targetName: `expiry-${scope}`,
    inputs: '{}',
    inputsDigest: 'd',
    fieldDigests: '{}',
    policyDigest: 'p',
    riskClass: 'low',
    autonomy: 'suggest',
    approval: 'operator',
    reasons: [],
  });
}

async function expiredEntries(): Promise<FeedEntry[]> {
  const all = await readFeed(driver, { afterSeq: 0, limit: 10_000, topics: ['approval'], resourceId: target });
  return all.filter((e) => e.change === 'expired');
}

describe('the approval expiry sweep', () => {
  it('marks each pending request past expiresAt once, in batches, with its feed entry; racing sweeps report it once', async () => {
    const due = [row('pending', -60), row('pending', -30), row('pending', -5)];
    const left = [row('pending', 3600), row('approved', -60), row('denied', -60)];
    await createApprovals(driver, [...due, ...left]);
    // Two sweeps at once (two replicas, or one restarted mid-sweep), two requests per transaction.
    const a = startExpirySweep({ driver, log, tickMs: 0, batch: 2 });
    const b = startExpirySweep({ driver, log, tickMs: 0, batch: 2 });
    const [byA, byB] = await Promise.all([a.runOnce(), b.runOnce()]);
    const entries = await expiredEntries();
    expect(entries.map((e) => (e.payload as { approval: ApprovalRecord }).approval.id).sort()).toEqual(
      due.map((r) => r.id).sort(),
    );
    expect(byA + byB).toBeGreaterThanOrEqual(3); // other files' expired requests may be swept too
    for (const e of entries)
      expect(e.payload).toMatchObject({ actor: 'aitia', approval: { status: 'pending', targetId: target } });
    // Swept again: nothing new.
    await a.runOnce();
    expect((await expiredEntries()).length).toBe(3);
    await Promise.all([a.stop(), b.stop()]);
    // The records keep their shape: still pending (they read expired from expiresAt), no sweep marks.
    const page = await listApprovals(driver, 'pending', { first: 500 }, { open: false, now: new Date().toISOString() });
    const mine = page.nodes.filter((x) => x.targetId === target);
    expect(mine.map((x) => x.id).sort()).toEqual(due.map((r) => r.id).sort());
    expect(Object.keys(mine[0]!)).not.toContain('expiredAt');
    expect(Object.keys(mine[0]!)).not.toContain('expirySweep');
  });

  it('approvalChanged replays the expired change', async () => {
    const [first] = await expiredEntries();
    const deps = serviceDeps(driver);
    const feed = await approvalFeed(deps, principalOf(scope, 'agent'), { since: first!.seq - 1 });
    const it = feed[Symbol.asyncIterator]();
    let change: ApprovalChange | null = null;
    while (change === null) {
      const step = await it.next();
      if (step.done) break;
      if (step.value.approval.targetId === target) change = step.value;
    }
    await it.return?.();
    expect(change).toMatchObject({ change: 'expired', actor: 'aitia', sequence: first!.seq, refusal: null });
  });

  it('under the lease, two replicas: one sweeps, each expiry reported once', async () => {
    const lease = (holder: string) =>
      startApprovalExpiry({ driver, lease: { holder: `${holder}-${scope}`, seconds: 3 }, log, tickMs: 100 });
    const replicas = [lease('r1'), lease('r2')];
    const late = [row('pending', -1), row('pending', -2)];
    await createApprovals(driver, late);
    await until('both expiries', 20_000, async () => (await expiredEntries()).length === 5);
    // A few more sweeps by whoever leads: still once each.
    await new Promise((r) => setTimeout(r, 500));
    await Promise.all(replicas.map((r) => r.stop()));
    const ids = (await expiredEntries()).map((e) => (e.payload as { approval: ApprovalRecord }).approval.id);
    expect(ids.length).toBe(5);
    expect(new Set(ids).size).toBe(5);
  });
});
