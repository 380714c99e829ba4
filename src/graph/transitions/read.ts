/**
 * The Transition repository's read side: a record from a node, by id, pages of a resource's (or
 * everyone's) transitions, the history that decides a state at a time, and the latest per resource.
 */
import {
  type Attribution,
  badInput,
  type Kind,
  noneAttribution,
  type PastAttribution,
  type TransitionDecision,
  type TransitionRecord,
} from '../../model/index.js';
import { oneRefId, refIdsCypher, type ResourceRef } from '../resources/read.js';
import { coalescedRead } from '../db/coalesced-read.js';
import { newestFirst, toPlain, type KeysetPage } from '../db/statements.js';
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
    ...(Array.isArray(p.attributionHistory)
      ? { attributionHistory: p.attributionHistory.flatMap((h) => parseJson<PastAttribution[]>(`[${String(h)}]`, [])) }
      : {}),
  };
}

/** Transitions by id, in no particular order; unknown ids are left out (DataLoaders re-order). */
export async function getTransitionsByIds(driver: Driver, ids: readonly string[]): Promise<TransitionRecord[]> {
  const { records } = await driver.executeQuery(
    'UNWIND $ids AS id MATCH (t:Transition {id: id}) RETURN properties(t) AS t',
    { ids: [...new Set(ids)] },
    { routing: 'READ' },
  );
  return records.map((r) => transitionFromProperties(r.get('t')));
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
    /** Only transitions of resources of this kind. */
    kind?: string | null;
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
       AND ($kind IS NULL OR t.kind = $kind)
       AND ($confidence IS NULL OR t.confidence = $confidence) AND ($decision IS NULL OR t.decision = $decision)
       AND ($actor IS NULL OR t.actor = $actor) AND ($actorKind IS NULL OR t.actorKind = $actorKind)
       AND ${keyset.before('t', 'observedAt')}`;
  const params = {
    rid: options.resourceId ?? null,
    since: options.since ?? null,
    until: options.until ?? null,
    kind: options.kind ?? null,
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
