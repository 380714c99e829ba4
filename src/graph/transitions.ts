import { DateTime } from 'luxon';
import type { Driver } from 'neo4j-driver';
import type { Attribution, ConsumedEvent } from '../../correlator/types.js';
import { badInput } from '../errors.js';
import { KindSchema, STATES, type Kind } from '../model/index.js';
import type { TransitionDecision } from '../policy/transition-gate.js';
import { transitionFromProperties, type TransitionRecord } from './transition-record.js';
import { isoNow } from './values.js';

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

/**
 * The natural key of a transition: resource, change and observation time to the millisecond
 * (`proxmox:lab/qemu/101#running>stopped@1778724511000`). The same observation stored twice is one.
 */
export function transitionId(t: { resourceId: string; from: string; to: string; observedAt: string }): string {
  const ms = DateTime.fromISO(t.observedAt, { setZone: true }).toMillis();
  return `${t.resourceId}#${t.from}>${t.to}@${ms}`;
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
