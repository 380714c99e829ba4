/**
 * The Transition repository's write side. A Transition is an observed state change with its
 * attribution and gate decision, linked `-[:OF]->(:Resource)`; it is stored with its feed entry
 * and the conditions it opens or resolves.
 */
import {
  type Attribution,
  badInput,
  type ConditionRecord,
  type ConditionType,
  type Kind,
  KindSchema,
  STATES,
  type TransitionDecision,
  transitionId,
  type TransitionRecord,
} from '../../model/index.js';
import { openConditionsTx, resolveConditionsTx } from '../conditions.js';
import { writeAuditTx, type AuditInput } from '../audit.js';
import { appendFeedTx } from '../feed.js';
import { int, isoNow } from '../db/statements.js';
import { transitionFromProperties } from './read.js';
import { DateTime } from 'luxon';
import type { Driver } from 'neo4j-driver';

/** What the runner stores for one observed change. */
export interface NewTransition {
  resourceId: string;
  kind: Kind;
  from: string;
  to: string;
  rawFrom?: string | null;
  rawTo?: string | null;
  observedAt: string;
  observer: string;
  hostId?: string | null;
  attribution: Attribution;
  decision: TransitionDecision;
  narrative: string;
}

function validate(t: NewTransition): void {
  if (!KindSchema.safeParse(t.kind).success) throw badInput('kind', `unknown kind ${JSON.stringify(t.kind)}`);
  const states = STATES[t.kind] as readonly string[];
  if (!states.includes(t.from))
    throw badInput('from', `${JSON.stringify(t.from)} is not a ${t.kind} state (${states.join(', ')})`);
  if (!states.includes(t.to))
    throw badInput('to', `${JSON.stringify(t.to)} is not a ${t.kind} state (${states.join(', ')})`);
  if (t.from === t.to) throw badInput('to', 'a transition changes the state: from and to are equal');
  if (!DateTime.fromISO(t.observedAt, { setZone: true }).isValid)
    throw badInput('observedAt', 'must be an ISO-8601 time');
}

/** A condition a stored transition opens (entering a state that has one) or resolves (leaving it). */
export interface TransitionConditionOp {
  /** The transition whose creation triggers it: applied only when that transition is new. */
  transitionId: string;
  op: 'open' | 'resolve';
  resourceId: string;
  type: ConditionType;
  at: string;
  evidence: unknown;
  attribution?: unknown;
  /** The attribution gate's decision for the condition, when it opens. */
  suppression?: { suppressed: boolean; wouldSuppress: boolean; reasons: string[]; policyDigest: string | null };
}

/** What one recordTransitions call stored. */
export interface RecordedTransitions {
  /** The transitions this call created, in the order given (retried ones are left out). */
  created: TransitionRecord[];
  /** Ids of transitions that were stored already (a retried pass): left as they were. */
  existing: string[];
  conditions: { opened: string[]; resolved: string[] };
}

/**
 * Stores a pass's transitions, their feed entries and the conditions they open or resolve in ONE
 * write transaction of a constant number of statements, whatever the number of changes. Idempotent: MERGE on the transition id;
 * an existing one is left unchanged and its condition ops are not applied again, so a retried pass
 * neither re-attributes, re-opens nor re-publishes anything.
 */
export async function recordTransitions(
  driver: Driver,
  transitions: readonly NewTransition[],
  conditionOps: readonly TransitionConditionOp[] = [],
  now: string = isoNow(),
  /** Audit lines for the conditions this call opened (e.g. suppression decisions), written with them. */
  auditOf?: (opened: Array<{ condition: ConditionRecord; opened: boolean }>) => AuditInput[],
): Promise<RecordedTransitions> {
  transitions.forEach(validate);
  const result: RecordedTransitions = { created: [], existing: [], conditions: { opened: [], resolved: [] } };
  if (transitions.length === 0) return result;
  const session = driver.session();
  try {
    await session.executeWrite(async (tx) => {
      result.created = [];
      result.existing = [];
      result.conditions = { opened: [], resolved: [] };
      const res = await tx.run(
        `UNWIND $rows AS row
         MERGE (t:Transition {id: row.id})
         ON CREATE SET t.isNew = true, t += row.props, t.observedAt = datetime(row.observedAt), t.createdAt = datetime($now)
         WITH t, row, coalesce(t.isNew, false) AS created
         REMOVE t.isNew
         WITH t, row, created
         OPTIONAL MATCH (r:Resource {id: row.props.resourceId})
         FOREACH (_ IN CASE WHEN r IS NULL OR NOT created THEN [] ELSE [1] END | MERGE (t)-[:OF]->(r))
         RETURN properties(t) AS t, created`,
        { rows: transitions.map(transitionRow), now },
      );
      const createdIds = new Set<string>();
      for (const rec of res.records) {
        const t = transitionFromProperties(rec.get('t'));
        if (rec.get('created')) {
          result.created.push(t);
          createdIds.add(t.id);
        } else result.existing.push(t.id);
      }
      // The new transitions on the feed, in this transaction, each carrying its sequence.
      const fed = await appendFeedTx(
        tx,
        result.created.map((t) => ({
          topic: 'transition' as const,
          resourceId: t.resourceId,
          change: 'observed',
          at: t.observedAt,
          payload: t,
        })),
      );
      if (fed.length > 0) {
        await tx.run('UNWIND $rows AS row MATCH (t:Transition {id: row.id}) SET t.sequence = row.seq', {
          rows: fed.map((f, i) => ({ id: result.created[i]!.id, seq: int(f.seq) })),
        });
        result.created = result.created.map((t, i) => ({ ...t, sequence: fed[i]!.seq }));
      }
      const ops = conditionOps.filter((o) => createdIds.has(o.transitionId));
      const opened = await openConditionsTx(
        tx,
        ops.filter((o) => o.op === 'open').map((o) => ({ ...o, causeTransitionId: o.transitionId })),
      );
      if (auditOf) await writeAuditTx(tx, auditOf(opened));
      result.conditions.opened = opened.filter((c) => c.opened).map((c) => c.condition.id);
      const resolved = await resolveConditionsTx(
        tx,
        ops.filter((o) => o.op === 'resolve'),
      );
      result.conditions.resolved = resolved.map((c) => c.id);
    });
    return result;
  } finally {
    await session.close();
  }
}

/** The node properties of one new transition: its attribution's headline fields are queryable. */
function transitionRow(t: NewTransition) {
  const a = t.attribution;
  return {
    id: transitionId(t),
    observedAt: t.observedAt,
    props: {
      resourceId: t.resourceId,
      kind: t.kind,
      fromState: t.from,
      toState: t.to,
      rawFrom: t.rawFrom ?? null,
      rawTo: t.rawTo ?? null,
      observer: t.observer,
      hostId: t.hostId ?? null,
      confidence: a.confidence,
      actor: a.actor,
      actorKind: a.actorKind,
      requestedBy: a.requestedBy,
      executor: a.executor,
      executorKind: a.executorKind,
      deltaSeconds: a.deltaSeconds,
      reason: a.reason,
      eventIds: a.events.map((e) => e.id),
      attribution: JSON.stringify(a),
      decision: t.decision.decision,
      decisionReasons: t.decision.reasons,
      wouldHaveSuppressed: t.decision.wouldHaveSuppressed ?? null,
      narrative: t.narrative,
    },
  };
}
