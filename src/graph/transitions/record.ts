/**
 * The Transition repository's write side. A Transition is an observed state change with its
 * attribution and gate decision, linked `-[:OF]->(:Resource)`. {@link recordTransitions} is the
 * observation's one write, and one of the two places conditions are written from (the other is the
 * health scheduler's writeConditions, src/scheduler/condition-write.ts).
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
import { type ConditionOpen, openConditionsTx, resolveConditionsTx } from '../conditions.js';
import { writeAuditTx, type AuditInput } from '../audit.js';
import { appendFeedTx } from '../feed.js';
import { int, isoNow } from '../db/statements.js';
import { causesOf } from './correlation-context.js';
import { transitionFromProperties } from './read.js';
import { DateTime } from 'luxon';
import type { Driver, ManagedTransaction } from 'neo4j-driver';

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

/** A condition to open or resolve: what a provider pass reports about itself (adapter_unreachable). */
export interface ConditionOp {
  op: 'open' | 'resolve';
  resourceId: string;
  type: ConditionType;
  evidence: unknown;
  at: string;
}

/**
 * A condition of the pass itself, tied to no transition (the adapter's reachability, a resource
 * first seen in a state that has a condition): applied on every call, idempotently — an open
 * refreshes one open already, a resolve with none open does nothing.
 */
export interface PassConditionOp extends ConditionOp {
  /** An open that asks for the change it follows: `gate` decides how it opens (default: as given, unattributed). */
  caused?: boolean;
}

/** What one pass condition did: the condition it opened, refreshed or resolved (null: none). */
export interface PassConditionResult {
  op: PassConditionOp;
  conditionId: string | null;
  /** Opened anew, or resolved; false for a refresh (or nothing to do). */
  changed: boolean;
}

/** What one recordTransitions call stored. */
export interface RecordedTransitions {
  /** The transitions this call created, in the order given (retried ones are left out). */
  created: TransitionRecord[];
  /** Ids of transitions that were stored already (a retried pass): left as they were. */
  existing: string[];
  /** What the new transitions' conditions did. */
  conditions: { opened: string[]; resolved: string[] };
  /** What each pass condition did, in the order given. */
  passConditions: PassConditionResult[];
}

/** How a caused condition opens, given the change it follows (null: none within the window). */
export interface ConditionGate {
  windowSeconds: number;
  open(cause: TransitionRecord | null): Pick<ConditionOpen, 'attribution' | 'causeTransitionId' | 'suppression'>;
}

/** What else an observation's write carries besides its transitions. */
export interface RecordOptions {
  /** Conditions the transitions open or resolve: applied only for transitions this call creates. */
  conditions?: readonly TransitionConditionOp[];
  /** Conditions of the pass itself: applied every time, after the transitions' own. */
  passConditions?: readonly PassConditionOp[];
  /** Decides how `caused` pass conditions open; their causes are read after the transitions are stored. */
  gate?: ConditionGate;
  /** Audit lines for the conditions this call opened (e.g. suppression decisions), written with them. */
  auditOf?: (opened: Array<{ condition: ConditionRecord; opened: boolean }>) => AuditInput[];
  now?: string;
}

/**
 * The observation's one write: a pass's transitions, their feed entries, the conditions they open
 * or resolve, and the pass's own conditions (first sightings, the adapter's reachability), with
 * the audit of what opened, in ONE write transaction of a constant number of statements, whatever
 * the number of changes. Idempotent: MERGE on the transition id; an existing one is left unchanged
 * and its condition ops are not applied again, so a retried pass neither re-attributes, re-opens
 * nor re-publishes anything; pass conditions are idempotent themselves.
 */
export async function recordTransitions(
  driver: Driver,
  transitions: readonly NewTransition[],
  options: RecordOptions = {},
): Promise<RecordedTransitions> {
  transitions.forEach(validate);
  const passOps = options.passConditions ?? [];
  const empty = (): RecordedTransitions => ({
    created: [],
    existing: [],
    conditions: { opened: [], resolved: [] },
    passConditions: [],
  });
  if (transitions.length === 0 && passOps.length === 0) return empty();
  const now = options.now ?? isoNow();
  const session = driver.session();
  try {
    return await session.executeWrite(async (tx) => {
      const result = empty();
      const createdIds = await storeTransitions(tx, transitions, now, result);
      const ops = (options.conditions ?? []).filter((o) => createdIds.has(o.transitionId));
      const opened = await openCausedConditionsTx(tx, ops);
      result.conditions.opened = opened.filter((c) => c.opened).map((c) => c.condition.id);
      const resolved = await resolveConditionsTx(
        tx,
        ops.filter((o) => o.op === 'resolve'),
      );
      result.conditions.resolved = resolved.map((c) => c.id);
      const pass = await applyPassConditions(tx, passOps, options.gate);
      result.passConditions = pass.results;
      if (options.auditOf) await writeAuditTx(tx, options.auditOf([...opened, ...pass.opened]));
      return result;
    });
  } finally {
    await session.close();
  }
}

/** MERGEs the transitions and puts the new ones on the feed with their sequence; returns the new ids. */
async function storeTransitions(
  tx: ManagedTransaction,
  transitions: readonly NewTransition[],
  now: string,
  result: RecordedTransitions,
): Promise<Set<string>> {
  const createdIds = new Set<string>();
  if (transitions.length === 0) return createdIds;
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
  return createdIds;
}

/**
 * Opens the conditions transitions cause (the `open` ops), each linked to its transition: the
 * observation's door for conditions, used by a pass and by a re-explanation (reexplain.ts).
 */
export function openCausedConditionsTx(
  tx: ManagedTransaction,
  ops: readonly TransitionConditionOp[],
): Promise<Array<{ condition: ConditionRecord; opened: boolean }>> {
  return openConditionsTx(
    tx,
    ops.filter((o) => o.op === 'open').map((o) => ({ ...o, causeTransitionId: o.transitionId })),
  );
}

/** Opens and resolves the pass's own conditions; caused opens first read the change they follow. */
async function applyPassConditions(
  tx: ManagedTransaction,
  ops: readonly PassConditionOp[],
  gate: ConditionGate | undefined,
): Promise<{ results: PassConditionResult[]; opened: Array<{ condition: ConditionRecord; opened: boolean }> }> {
  if (ops.length === 0) return { results: [], opened: [] };
  const opens = ops.filter((o) => o.op === 'open');
  const caused = gate ? opens.filter((o) => o.caused) : [];
  const causes = await causesOf(
    tx,
    caused.map((o) => ({ resourceId: o.resourceId, at: o.at, windowSeconds: gate!.windowSeconds })),
  );
  const gated = new Map(caused.map((o, i) => [o, gate!.open(causes[i] ?? null)]));
  const opened = await openConditionsTx(
    tx,
    opens.map((o) => ({
      resourceId: o.resourceId,
      type: o.type,
      evidence: o.evidence,
      at: o.at,
      ...gated.get(o),
    })),
  );
  const resolved = await resolveConditionsTx(
    tx,
    ops.filter((o) => o.op === 'resolve'),
  );
  const key = (c: { resourceId: string; type: string }) => `${c.resourceId}\u0000${c.type}`;
  const openedBy = new Map(opened.map((o) => [key(o.condition), o]));
  const resolvedBy = new Map(resolved.map((c) => [key(c), c]));
  const results = ops.map((op): PassConditionResult => {
    if (op.op === 'open') {
      const o = openedBy.get(key(op));
      return { op, conditionId: o?.condition.id ?? null, changed: o?.opened ?? false };
    }
    const c = resolvedBy.get(key(op));
    return { op, conditionId: c?.id ?? null, changed: c !== undefined };
  });
  return { results, opened };
}

/** The node properties of one new transition: its attribution's headline fields are queryable. */
function transitionRow(t: NewTransition) {
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
      ...attributionProperties(t.attribution, t.decision, t.narrative),
    },
  };
}

/**
 * The properties an attribution sets on its Transition node (also when a later read explains it
 * again): the headline fields, why it does not know (`unknownReason`), the authorization it is
 * credited to (`authorizationId`) or that none is (`unauthorized`), the whole as JSON.
 */
export function attributionProperties(a: Attribution, decision: TransitionDecision, narrative: string) {
  return {
    confidence: a.confidence,
    actor: a.actor,
    actorKind: a.actorKind,
    requestedBy: a.requestedBy,
    executor: a.executor,
    executorKind: a.executorKind,
    deltaSeconds: a.deltaSeconds,
    reason: a.reason,
    eventIds: a.events.map((e) => e.id),
    unknownReason: a.unknownBecause?.reason ?? null,
    // The authorization it is credited to and the event that one explains (the correlator's `used` map).
    authorizationId: a.authorization?.grantId ?? null,
    authorizationEventId: a.authorization?.eventId ?? null,
    unauthorized: a.unauthorized ? true : null,
    attribution: JSON.stringify(a),
    decision: decision.decision,
    decisionReasons: decision.reasons,
    wouldHaveSuppressed: decision.wouldHaveSuppressed ?? null,
    narrative,
  };
}
