/**
 * Conditions revisited when the transition they followed is explained again: each open condition
 * linked `-[:CAUSED_BY]->` to it takes the new attribution and the gate's new suppression
 * decision, keeps what it said before in `attributionHistory` (JSON lines, oldest first), and is
 * put on the feed as `reattributed` — all inside the caller's transaction, the one that replaces
 * the transition's attribution, so the two never disagree in the graph.
 */
import type { ManagedTransaction } from 'neo4j-driver';
import type { ConditionRecord, PastConditionAttribution } from '../model/index.js';
import { conditionFromProperties } from './conditions.js';
import { appendFeedTx } from './feed.js';

/** What a condition says after its cause was explained again. */
export interface ConditionRevision {
  attribution: unknown;
  suppressed: boolean;
  wouldSuppress: boolean;
  reasons: string[];
  policyDigest: string | null;
}

/** One condition revised: as it was, and as the write left it. */
export interface RevisedCondition {
  before: ConditionRecord;
  after: ConditionRecord;
}

/**
 * Revises the open conditions caused by the given transitions. `revise` decides each one's new
 * attribution and suppression from the condition as read under its write lock (so two writers
 * cannot interleave) and the id of the transition explained again. `because` is kept with the old
 * answer. Resolved conditions are history and are left as they were.
 */
export async function reattributeConditionsTx(
  tx: ManagedTransaction,
  causes: ReadonlyArray<{ transitionId: string; because: string }>,
  revise: (condition: ConditionRecord, transitionId: string) => ConditionRevision,
  now: string,
): Promise<RevisedCondition[]> {
  if (causes.length === 0) return [];
  const found = await tx.run(
    `UNWIND $causes AS cause
     MATCH (:Transition {id: cause.id})<-[:CAUSED_BY]-(c:Condition {status: 'open'})
     SET c.reattributeLock = true REMOVE c.reattributeLock
     RETURN cause.id AS tid, cause.because AS because, properties(c) AS c ORDER BY c.id`,
    { causes: causes.map((c) => ({ id: c.transitionId, because: c.because })) },
  );
  if (found.records.length === 0) return [];
  const befores = found.records.map((r) => ({
    tid: String(r.get('tid')),
    because: String(r.get('because')),
    condition: conditionFromProperties(r.get('c')),
  }));
  const rows = befores.map(({ tid, because, condition: c }) => {
    const next = revise(c, tid);
    const past: PastConditionAttribution = {
      attribution: c.attribution,
      suppressed: c.suppressed,
      wouldSuppress: c.wouldSuppress,
      suppressionReasons: c.suppressionReasons,
      policyDigest: c.policyDigest,
      replacedAt: now,
      replacedBecause: because,
    };
    return {
      id: c.id,
      past: JSON.stringify(past),
      attribution: next.attribution === undefined ? null : JSON.stringify(next.attribution),
      suppressed: next.suppressed,
      wouldSuppress: next.wouldSuppress,
      reasons: next.reasons,
      digest: next.policyDigest,
    };
  });
  const written = await tx.run(
    `UNWIND $rows AS row
     MATCH (c:Condition {id: row.id})
     SET c.attributionHistory = coalesce(c.attributionHistory, []) + [row.past], c.attribution = row.attribution,
         c.suppressed = row.suppressed, c.wouldSuppress = row.wouldSuppress, c.suppressionReasons = row.reasons,
         c.policyDigest = row.digest, c.reattributedAt = datetime($now)
     RETURN properties(c) AS c`,
    { rows, now },
  );
  const afterById = new Map(
    written.records.map((r) => {
      const c = conditionFromProperties(r.get('c'));
      return [c.id, c] as const;
    }),
  );
  const revised = befores.map((b) => ({ before: b.condition, after: afterById.get(b.condition.id)! }));
  // Whoever was paged (or not) for the first answer learns the new one from the feed.
  await appendFeedTx(
    tx,
    revised.map(({ after }) => ({
      topic: 'condition' as const,
      resourceId: after.resourceId,
      change: 'reattributed',
      at: now,
      payload: after,
    })),
  );
  return revised;
}
