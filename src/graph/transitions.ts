import {
  type Attribution,
  badInput,
  type ConsumedEvent,
  type Kind,
  KindSchema,
  noneAttribution,
  STATES,
  type TransitionDecision,
  transitionId,
  type TransitionRecord,
} from '../model/index.js';
import { isoNow, newestFirst, toPlain, type KeysetPage } from './statements.js';
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

/**
 * Stores a transition idempotently (MERGE on its id; an existing one is returned unchanged, with
 * `created: false`, so a retried poll neither re-attributes nor re-publishes it).
 */
export async function createTransition(
  driver: Driver,
  t: NewTransition,
): Promise<{ transition: TransitionRecord; created: boolean }> {
  validate(t);
  const a = t.attribution;
  const { records } = await driver.executeQuery(
    `MERGE (t:Transition {id: $id})
     ON CREATE SET t.isNew = true, t.resourceId = $rid, t.kind = $kind, t.fromState = $from, t.toState = $to,
       t.rawFrom = $rawFrom, t.rawTo = $rawTo, t.observedAt = datetime($observedAt), t.observer = $observer, t.hostId = $hostId,
       t.confidence = $confidence, t.actor = $actor, t.actorKind = $actorKind, t.requestedBy = $requestedBy,
       t.executor = $executor, t.executorKind = $executorKind, t.deltaSeconds = $deltaSeconds, t.reason = $reason,
       t.eventIds = $eventIds, t.attribution = $attribution,
       t.decision = $decision, t.decisionReasons = $decisionReasons, t.wouldHaveSuppressed = $wouldHaveSuppressed,
       t.narrative = $narrative, t.createdAt = datetime($now)
     WITH t, coalesce(t.isNew, false) AS created
     REMOVE t.isNew
     WITH t, created
     OPTIONAL MATCH (r:Resource {id: t.resourceId})
     FOREACH (_ IN CASE WHEN r IS NULL OR NOT created THEN [] ELSE [1] END | MERGE (t)-[:OF]->(r))
     RETURN properties(t) AS t, created`,
    {
      id: transitionId(t),
      rid: t.resourceId,
      kind: t.kind,
      from: t.from,
      to: t.to,
      rawFrom: t.rawFrom ?? null,
      rawTo: t.rawTo ?? null,
      observedAt: t.observedAt,
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
      now: isoNow(),
    },
  );
  const rec = records[0]!;
  return { transition: transitionFromProperties(rec.get('t')), created: Boolean(rec.get('created')) };
}

/**
 * Events already used by transitions of this resource observed in [from, before): the correlator
 * must not let one task explain two transitions of the same kind. On transition_resource_time.
 */
export async function consumedEventsOf(
  driver: Driver,
  resourceId: string,
  range: { from: string; before: string },
): Promise<ConsumedEvent[]> {
  const { records } = await driver.executeQuery(
    `MATCH (t:Transition) WHERE t.resourceId = $rid AND t.observedAt >= datetime($from) AND t.observedAt < datetime($before)
     RETURN t.fromState AS from, t.toState AS to, coalesce(t.eventIds, []) AS ids ORDER BY t.observedAt`,
    { rid: resourceId, from: range.from, before: range.before },
    { routing: 'READ' },
  );
  return records.flatMap((r) =>
    (r.get('ids') as string[]).map((eventId) => ({
      eventId,
      from: r.get('from') as string,
      to: r.get('to') as string,
    })),
  );
}

/** One transition by id, or null. */
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
 * observed in [since, until], newest first, `first` at a time (1–500).
 */
export async function listTransitions(
  driver: Driver,
  options: {
    resourceId?: string | null;
    since?: string | null;
    until?: string | null;
    first?: number;
    after?: string | null;
  } = {},
): Promise<KeysetPage<TransitionRecord>> {
  for (const f of ['since', 'until'] as const) {
    const v = options[f];
    if (v != null && !DateTime.fromISO(v, { setZone: true }).isValid) throw badInput(f, 'must be an ISO-8601 time');
  }
  const keyset = newestFirst({ first: options.first ?? 50, after: options.after ?? null }, 'transitions');
  const where = options.resourceId ? 't.resourceId = $rid AND ' : '';
  const { records } = await driver.executeQuery(
    `MATCH (t:Transition)
     WHERE ${where}t.observedAt >= datetime(coalesce($since, '0001-01-01T00:00:00Z'))
       AND t.observedAt <= datetime(coalesce($until, '9999-12-31T23:59:59Z'))
       AND ${keyset.before('t', 'observedAt')}
     RETURN properties(t) AS t ORDER BY t.observedAt DESC, t.id DESC LIMIT $limit`,
    { rid: options.resourceId ?? null, since: options.since ?? null, until: options.until ?? null, ...keyset.params },
    { routing: 'READ' },
  );
  return keyset.cut(
    records.map((r) => transitionFromProperties(r.get('t'))),
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
