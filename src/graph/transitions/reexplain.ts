/**
 * Transitions explained again when a later complete read covers what their first explanation
 * could not read (`unknownReason = log_not_read`): the pending ones of a source, and the write that
 * replaces an attribution while keeping the old one in the transition's `attributionHistory`,
 * with its feed entry and the revision of the conditions it caused.
 */
import type { Driver, ManagedTransaction } from 'neo4j-driver';
import type {
  Attribution,
  ConditionRecord,
  PastAttribution,
  TransitionDecision,
  TransitionRecord,
} from '../../model/index.js';
import { writeAuditTx, type AuditInput } from '../audit.js';
import { reattributeConditionsTx, type ConditionRevision, type RevisedCondition } from '../condition-reattribution.js';
import { int, isoNow } from '../db/statements.js';
import { appendFeedTx } from '../feed.js';
import { transitionFromProperties } from './read.js';
import { attributionProperties, openCausedConditionsTx, type TransitionConditionOp } from './record.js';

/** Transitions of a source whose attribution says the log was not read, oldest first (at most `limit`). */
export async function transitionsAwaitingLog(
  driver: Driver,
  input: { source: string; limit: number },
): Promise<TransitionRecord[]> {
  const { records } = await driver.executeQuery(
    `MATCH (t:Transition) WHERE t.unknownReason = 'log_not_read' AND t.resourceId STARTS WITH $prefix
     RETURN properties(t) AS t ORDER BY t.observedAt LIMIT $limit`,
    { prefix: `${input.source}/`, limit: int(input.limit) },
    { routing: 'READ' },
  );
  return records.map((r) => transitionFromProperties(r.get('t')));
}

/**
 * Recent transitions of a source answered `no_record` although an event on their resource, starting
 * in or just after their window, was stored after that answer: a task the provider listed late (or
 * a push that came late), so "read completely and holds nothing" may no longer hold. Oldest first,
 * observed since `since`, at most `limit`; each is explained again and kept only if it changed.
 */
export async function transitionsWithLateEvents(
  driver: Driver,
  input: { source: string; since: string; windowSeconds: number; toleranceSeconds: number; limit: number },
): Promise<TransitionRecord[]> {
  const { records } = await driver.executeQuery(
    // The last hour's transitions by time (few), not every no_record ever answered (many).
    `MATCH (t:Transition) USING INDEX t:Transition(observedAt)
     WHERE t.observedAt >= datetime($since) AND t.unknownReason = 'no_record' AND t.resourceId STARTS WITH $prefix
       AND EXISTS {
         MATCH (e:Event) WHERE e.resourceId = t.resourceId
           AND e.startedAt >= t.observedAt - duration({seconds: $window})
           AND e.startedAt <= t.observedAt + duration({seconds: $tolerance})
           AND e.ingestedAt > coalesce(t.reexplainedAt, t.createdAt)
       }
     RETURN properties(t) AS t ORDER BY t.observedAt LIMIT $limit`,
    {
      prefix: `${input.source}/`,
      since: input.since,
      window: int(input.windowSeconds),
      tolerance: int(input.toleranceSeconds),
      limit: int(input.limit),
    },
    { routing: 'READ' },
  );
  return records.map((r) => transitionFromProperties(r.get('t')));
}

/** A new attribution for a stored transition, and the one it replaces (compare-and-set). */
export interface Reattribution {
  transitionId: string;
  /** The stored attribution this replaces: written only if it is still the stored one. */
  replaces: TransitionRecord;
  attribution: Attribution;
  decision: TransitionDecision;
  narrative: string;
  /** Why it was explained again, kept with the old answer. */
  because: string;
}

/** What else the write carries: how the open conditions the transitions caused are revised, and its audit. */
export interface ReattributionOptions {
  /** Each open condition's new attribution and suppression, given its cause as re-explained. */
  reviseCondition?: (condition: ConditionRecord, cause: TransitionRecord) => ConditionRevision;
  /** Audit lines for the revised conditions (suppression decisions), written with them. */
  auditOf?: (revised: readonly RevisedCondition[]) => AuditInput[];
  /** Conditions the new answers open (an agent's change found unauthorized): only for transitions replaced. */
  opens?: readonly TransitionConditionOp[];
  now?: string;
}

/** What one replaceAttributions call wrote: the transitions explained again and the conditions revised. */
export interface Reattributed {
  transitions: TransitionRecord[];
  conditions: RevisedCondition[];
}

/**
 * Replaces attributions in ONE write transaction: the old answer is appended to
 * `attributionHistory`, each replaced transition goes on the feed (topic `transition`, change
 * `reexplained`, its `sequence` moved to that entry), the open conditions it caused are revised
 * (condition-reattribution.ts) and the audit written. Each transition is write-locked before its
 * stored attribution is compared, so a transition whose answer changed meanwhile (another replica
 * explained it first) is left alone: replaying a re-explanation, or two replicas running it at
 * once, writes it — its feed entry, its conditions' revision — once.
 */
export async function replaceAttributions(
  driver: Driver,
  rows: readonly Reattribution[],
  options: ReattributionOptions = {},
): Promise<Reattributed> {
  if (rows.length === 0) return { transitions: [], conditions: [] };
  const now = options.now ?? isoNow();
  const because = new Map(rows.map((r) => [r.transitionId, r.because]));
  // Through executeQuery's bookmark manager: executeQuery reads afterwards see the write.
  const session = driver.session({ bookmarkManager: driver.executeQueryBookmarkManager });
  try {
    return await session.executeWrite(async (tx) => {
      const replaced = await compareAndSet(tx, rows, now);
      if (replaced.length === 0) return { transitions: [], conditions: [] };
      const fed = await appendFeedTx(
        tx,
        replaced.map((t) => ({
          topic: 'transition' as const,
          resourceId: t.resourceId,
          change: 'reexplained',
          at: now,
          payload: t,
        })),
      );
      await tx.run('UNWIND $rows AS row MATCH (t:Transition {id: row.id}) SET t.sequence = row.seq', {
        rows: fed.map((f, i) => ({ id: replaced[i]!.id, seq: int(f.seq) })),
      });
      const transitions = replaced.map((t, i) => ({ ...t, sequence: fed[i]!.seq }));
      const byId = new Map(transitions.map((t) => [t.id, t]));
      const revise = options.reviseCondition;
      const conditions = revise
        ? await reattributeConditionsTx(
            tx,
            transitions.map((t) => ({ transitionId: t.id, because: because.get(t.id)! })),
            (c, tid) => revise(c, byId.get(tid)!),
            now,
          )
        : [];
      if (options.auditOf) await writeAuditTx(tx, options.auditOf(conditions));
      const replacedIds = new Set(transitions.map((t) => t.id));
      await openCausedConditionsTx(
        tx,
        (options.opens ?? []).filter((o) => replacedIds.has(o.transitionId)),
      );
      return { transitions, conditions };
    });
  } finally {
    await session.close();
  }
}

/** The compare-and-set: the write lock first (a SET), then the stored attribution compared, then the write. */
async function compareAndSet(
  tx: ManagedTransaction,
  rows: readonly Reattribution[],
  now: string,
): Promise<TransitionRecord[]> {
  const res = await tx.run(
    `UNWIND $rows AS row
     MATCH (t:Transition {id: row.id})
     SET t.reexplainLock = true REMOVE t.reexplainLock
     WITH t, row WHERE t.attribution = row.old
     SET t.attributionHistory = coalesce(t.attributionHistory, []) + [row.past], t += row.props,
         t.reexplainedAt = datetime($now)
     RETURN properties(t) AS t`,
    {
      now,
      rows: rows.map((r) => {
        const past: PastAttribution = {
          attribution: r.replaces.attribution,
          narrative: r.replaces.narrative,
          decision: r.replaces.decision,
          replacedAt: now,
          replacedBecause: r.because,
        };
        return {
          id: r.transitionId,
          old: JSON.stringify(r.replaces.attribution),
          past: JSON.stringify(past),
          props: attributionProperties(r.attribution, r.decision, r.narrative),
        };
      }),
    },
  );
  return res.records.map((r) => transitionFromProperties(r.get('t')));
}
