import {
  type Attribution,
  badInput,
  type ConditionRecord,
  type ConditionType,
  type ConsumedEvent,
  type StoredEventRecord,
  type Kind,
  KindSchema,
  noneAttribution,
  STATES,
  type TransitionDecision,
  transitionId,
  type TransitionRecord,
} from '../model/index.js';
import { openConditionsTx, resolveConditionsTx } from './conditions.js';
import { candidateEventBranches, byStart, eventFromProperties } from './events.js';
import { writeAuditTx, type AuditInput } from './audit.js';
import { appendFeedTx } from './feed.js';
import { oneRefId, refIdsCypher, type ResourceRef } from './resources.js';
import { coalescedRead } from './db/coalesced-read.js';
import { int, isoNow, newestFirst, toPlain, type KeysetPage } from './db/statements.js';
import { DateTime } from 'luxon';
import type { Driver } from 'neo4j-driver';

const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

function parseJson<T>(v: unknown, fallback: T): T {
  if (typeof v !== 'string') return fallback;
  try {
    return JSON.parse(v) as T;
  } catch {
    return fallback;
  }
}

/** Builds a record from a Transition node's properties. */
export function transitionFromProperties(raw: unknown): TransitionRecord {
  const p = toPlain(raw) as Record<string, unknown>;
  const attribution =
    parseJson<Attribution | null>(p.attribution, null) ??
    noneAttribution({ lookbackSeconds: 0 }, 0, 'no attribution stored');
  const decision: TransitionDecision = {
    decision: (p.decision as TransitionDecision['decision'] | null) ?? 'open_incident',
    reasons: Array.isArray(p.decisionReasons) ? p.decisionReasons.map(String) : [],
    ...(typeof p.wouldHaveSuppressed === 'string' ? { wouldHaveSuppressed: p.wouldHaveSuppressed } : {}),
  };
  return {
    id: String(p.id),
    resourceId: String(p.resourceId),
    kind: String(p.kind) as Kind,
    from: String(p.fromState),
    to: String(p.toState),
    rawFrom: str(p.rawFrom),
    rawTo: str(p.rawTo),
    observedAt: String(p.observedAt),
    observer: String(p.observer ?? ''),
    hostId: str(p.hostId),
    attribution,
    decision,
    narrative: String(p.narrative ?? ''),
    createdAt: String(p.createdAt ?? p.observedAt),
    sequence: typeof p.sequence === 'number' ? p.sequence : null,
  };
}

/**
 * The Transition repository (write side; reads are in transition-queries.ts). A Transition is an
 * observed state change with its attribution and gate decision, linked `-[:OF]->(:Resource)`.
 */

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

/** One transition by id, or null. */
/** Transitions by id, in no particular order; unknown ids are left out (DataLoaders re-order). */
export async function getTransitionsByIds(driver: Driver, ids: readonly string[]): Promise<TransitionRecord[]> {
  const { records } = await driver.executeQuery(
    'UNWIND $ids AS id MATCH (t:Transition {id: id}) RETURN properties(t) AS t',
    { ids: [...new Set(ids)] },
    { routing: 'READ' },
  );
  return records.map((r) => transitionFromProperties(r.get('t')));
}

export async function getTransition(driver: Driver, id: string): Promise<TransitionRecord | null> {
  const { records } = await driver.executeQuery(
    'MATCH (t:Transition {id: $id}) RETURN properties(t) AS t',
    { id },
    { routing: 'READ' },
  );
  return records[0] ? transitionFromProperties(records[0].get('t')) : null;
}

/**
 * Transitions of one resource (transition_resource_time) or of all (transition_observed_at),
 * observed in [since, until], newest first, `first` at a time (1–500). The resource is given by
 * id (`resourceId`, taken as is) or as input named it (`resource`, an id or a slug resolved in the
 * same statement, refused as `resolveResource` refuses: one round trip instead of two).
 */
export async function listTransitions(
  driver: Driver,
  options: {
    resourceId?: string | null;
    resource?: ResourceRef | null;
    resourceField?: string;
    since?: string | null;
    until?: string | null;
    confidence?: string | null;
    decision?: string | null;
    actor?: string | null;
    actorKind?: string | null;
    first?: number;
    after?: string | null;
  } = {},
): Promise<KeysetPage<TransitionRecord>> {
  for (const f of ['since', 'until'] as const) {
    const v = options[f];
    if (v != null && !DateTime.fromISO(v, { setZone: true }).isValid) throw badInput(f, 'must be an ISO-8601 time');
  }
  const keyset = newestFirst({ first: options.first ?? 50, after: options.after ?? null }, 'transitions');
  const ref = options.resource ? refIdsCypher(options.resource) : null;
  const one = ref ? 'rid' : options.resourceId ? '$rid' : null;
  // With a resource, the hint keeps the seek on transition_resource_time: right after many writes
  // the planner's statistics may favour scanning transition_observed_at, i.e. every transition.
  const filter = `MATCH (t:Transition) ${one ? 'USING INDEX t:Transition(resourceId, observedAt)' : ''}
     WHERE ${one ? `t.resourceId = ${one} AND ` : ''}t.observedAt >= datetime(coalesce($since, '0001-01-01T00:00:00Z'))
       AND t.observedAt <= datetime(coalesce($until, '9999-12-31T23:59:59Z'))
       AND ($confidence IS NULL OR t.confidence = $confidence) AND ($decision IS NULL OR t.decision = $decision)
       AND ($actor IS NULL OR t.actor = $actor) AND ($actorKind IS NULL OR t.actorKind = $actorKind)
       AND ${keyset.before('t', 'observedAt')}`;
  const params = {
    rid: options.resourceId ?? null,
    since: options.since ?? null,
    until: options.until ?? null,
    confidence: options.confidence ?? null,
    decision: options.decision ?? null,
    actor: options.actor ?? null,
    actorKind: options.actorKind ?? null,
    ...keyset.params,
  };
  let found: unknown[];
  if (ref) {
    // The ref's ids and the page in one statement; the page only when the ref names exactly one.
    const { records } = await coalescedRead(
      driver,
      `${ref.cypher}
       CALL (rids) {
         WITH rids[0] AS rid WHERE size(rids) = 1
         ${filter}
         WITH t ORDER BY t.observedAt DESC, t.id DESC LIMIT $limit
         RETURN collect(properties(t)) AS ts
       }
       RETURN rids, ts`,
      { ...params, ...ref.params },
      Object.keys(ref.params),
    );
    oneRefId(records[0]!.get('rids') as string[], options.resource!, options.resourceField);
    found = records[0]!.get('ts') as unknown[];
  } else {
    const cypher = `${filter} RETURN properties(t) AS t ORDER BY t.observedAt DESC, t.id DESC LIMIT $limit`;
    const perCall = options.resourceId ? ['rid'] : [];
    found = (await coalescedRead(driver, cypher, params, perCall)).records.map((r) => r.get('t'));
  }
  return keyset.cut(
    found.map((t) => transitionFromProperties(t)),
    (t) => ({ at: t.observedAt, id: t.id }),
  );
}

/** The transitions that decide a resource's state at `at`: the last one observed at or before it, and the first ever. */
export async function transitionHistoryAt(
  driver: Driver,
  resourceId: string,
  at: string,
): Promise<{ lastAtOrBefore: TransitionRecord | null; first: TransitionRecord | null }> {
  const one = async (cypher: string) => {
    const { records } = await driver.executeQuery(cypher, { rid: resourceId, at }, { routing: 'READ' });
    return records[0] ? transitionFromProperties(records[0].get('t')) : null;
  };
  const lastAtOrBefore = await one(
    `MATCH (t:Transition) WHERE t.resourceId = $rid AND t.observedAt <= datetime($at)
     RETURN properties(t) AS t ORDER BY t.observedAt DESC, t.id DESC LIMIT 1`,
  );
  const first = await one(
    `MATCH (t:Transition) WHERE t.resourceId = $rid AND t.observedAt IS NOT NULL
     RETURN properties(t) AS t ORDER BY t.observedAt, t.id LIMIT 1`,
  );
  return { lastAtOrBefore, first };
}

/** The latest stored transition of each resource (on transition_resource_time), keyed by resource id. */
export async function latestTransitions(
  driver: Driver,
  resourceIds: readonly string[],
): Promise<Map<string, TransitionRecord>> {
  if (resourceIds.length === 0) return new Map();
  // The gate reads it for every question: concurrent ones share one statement.
  const { records } = await coalescedRead(
    driver,
    `UNWIND $ids AS rid
     CALL (rid) {
       MATCH (t:Transition) WHERE t.resourceId = rid AND t.observedAt IS NOT NULL
       RETURN t ORDER BY t.observedAt DESC LIMIT 1
     }
     RETURN properties(t) AS t`,
    { ids: [...new Set(resourceIds)] },
    ['ids'],
  );
  const found = records.map((r) => transitionFromProperties(r.get('t')));
  return new Map(found.map((t) => [t.resourceId, t]));
}

/** One observed change the correlator needs context for, with its candidate window. */
export interface CorrelationQuery {
  /** The transition's natural key (transitionId), to tell a retried observation. */
  transitionId: string;
  resourceId: string;
  observedAt: string;
  /** Start-time range of the candidate events (correlator/window.ts). */
  from: string;
  to: string;
  /** Also read the activity of the host it runs on (correlator needsHostActivity: low, host failures, node start-up). */
  withHostActivity: boolean;
}

/** What the graph holds for one change: everything the pure correlator reads, nothing more. */
export interface CorrelationContext {
  /** A transition with this id is stored already (a retried pass). */
  exists: boolean;
  resourceName: string | null;
  /** The host it RUNS_ON now (observed edges only: a declared one is an agent's claim). */
  host: { hostId: string; node: string } | null;
  candidates: StoredEventRecord[];
  /** Events on the host itself and resource-less events on its node (only with `withHostActivity`). */
  hostActivity: StoredEventRecord[];
  /** The resource is under Proxmox HA: its `ha_managed` attribute, or an HA state reported for it. */
  haManaged: boolean;
  /** Events transitions of this resource observed in [from, observedAt) already used. */
  consumed: ConsumedEvent[];
}

/**
 * The correlator's whole read side for a pass in ONE statement, whatever the number of changes:
 * per change the resource's name and host, its candidate events (on the (resourceId, startedAt)
 * index), optional host activity, the events earlier transitions consumed, and whether the
 * transition is stored already. Returned in the order asked.
 */
export async function correlationContexts(
  driver: Driver,
  queries: readonly CorrelationQuery[],
): Promise<CorrelationContext[]> {
  if (queries.length === 0) return [];
  const { records } = await driver.executeQuery(
    `UNWIND range(0, size($rows) - 1) AS i
     WITH i, $rows[i] AS row
     OPTIONAL MATCH (r:Resource {id: row.rid})
     CALL (r) {
       OPTIONAL MATCH (r)-[e:RUNS_ON]->(h:Resource)
       WHERE e.missingSince IS NULL AND coalesce(e.provenance, 'observed') = 'observed'
       RETURN h.id AS hostId, h.name AS node ORDER BY e.lastSeen DESC LIMIT 1
     }
     // Provider-level activity only where asked: a conditional subquery, so rows without it cost nothing.
     OPTIONAL CALL (row, hostId, node) {
       WITH row, hostId, node WHERE row.host AND hostId IS NOT NULL
       RETURN [e IN COLLECT {
         ${candidateEventBranches('hostId', 'row.from', 'row.to')}
         UNION
         MATCH (e:Event) WHERE e.node = node AND e.startedAt >= datetime(row.from)
           AND e.startedAt <= datetime(row.to) AND e.hostId = hostId AND e.resourceId IS NULL
         RETURN e
       } | properties(e)] AS hostActivity
     }
     RETURN i, r.name AS name, hostId, node,
       // Provider-written HA facts only (providerAttrKeys): an agent's hastate attributes nothing.
       coalesce(CASE WHEN 'ha_managed' IN coalesce(r.providerAttrKeys, []) THEN r.\`attr.ha_managed\` END,
                'hastate' IN coalesce(r.providerAttrKeys, []) AND r.\`attr.hastate\` IS NOT NULL, false) AS haManaged,
       EXISTS { MATCH (t:Transition {id: row.tid}) } AS exists,
       [e IN COLLECT { ${candidateEventBranches('row.rid', 'row.from', 'row.to')} } | properties(e)] AS candidates,
       coalesce(hostActivity, []) AS hostActivity,
       COLLECT {
         MATCH (t:Transition) WHERE t.resourceId = row.rid AND t.observedAt >= datetime(row.from)
           AND t.observedAt < datetime(row.observedAt)
         WITH t ORDER BY t.observedAt
         RETURN {from: t.fromState, to: t.toState, ids: coalesce(t.eventIds, [])}
       } AS consumed
     ORDER BY i`,
    {
      rows: queries.map((q) => ({
        tid: q.transitionId,
        rid: q.resourceId,
        observedAt: q.observedAt,
        from: q.from,
        to: q.to,
        host: q.withHostActivity,
      })),
    },
    { routing: 'READ' },
  );
  return records.map((r) => {
    const hostId = r.get('hostId') as string | null;
    return {
      exists: Boolean(r.get('exists')),
      resourceName: (r.get('name') as string | null) ?? null,
      haManaged: r.get('haManaged') === true,
      host: hostId ? { hostId, node: String(r.get('node')) } : null,
      candidates: (r.get('candidates') as unknown[]).map(eventFromProperties).sort(byStart),
      hostActivity: (r.get('hostActivity') as unknown[]).map(eventFromProperties).sort(byStart),
      consumed: (r.get('consumed') as Array<{ from: string; to: string; ids: string[] }>).flatMap((c) =>
        c.ids.map((eventId) => ({ eventId, from: c.from, to: c.to })),
      ),
    };
  });
}

/** A condition about to open, asking for the change it follows. */
export interface CauseQuery {
  resourceId: string;
  /** When the condition opens. */
  at: string;
  windowSeconds: number;
}

/**
 * The change each condition follows, in ONE statement: the latest transition observed within
 * [at − window, at] on the resource itself or on what it runs on, is stored on, depends on or
 * belongs to (up to 3 hops over fresh edges), that still holds (its `to` is the resource's state
 * now) — nearest first, then newest. Null where nothing qualifies. In the order asked.
 */
export async function causesOf(
  driver: Driver,
  queries: readonly CauseQuery[],
): Promise<Array<TransitionRecord | null>> {
  if (queries.length === 0) return [];
  const { records } = await driver.executeQuery(
    `UNWIND range(0, size($rows) - 1) AS i
     WITH i, $rows[i] AS row
     OPTIONAL MATCH (r:Resource {id: row.rid})
     OPTIONAL CALL (r, row) {
       MATCH p = (r)-[:RUNS_ON|STORED_ON|DEPENDS_ON|MEMBER_OF*0..3]->(x:Resource)
       WHERE all(e IN relationships(p) WHERE e.missingSince IS NULL)
       WITH x, min(length(p)) AS hops
       MATCH (t:Transition)
       WHERE t.resourceId = x.id AND t.toState = x.state
         AND t.observedAt >= datetime(row.at) - duration({seconds: row.window}) AND t.observedAt <= datetime(row.at)
       RETURN t ORDER BY hops, t.observedAt DESC LIMIT 1
     }
     RETURN i, properties(t) AS t ORDER BY i`,
    { rows: queries.map((q) => ({ rid: q.resourceId, at: q.at, window: int(q.windowSeconds) })) },
    { routing: 'READ' },
  );
  return records.map((r) => (r.get('t') ? transitionFromProperties(r.get('t')) : null));
}
