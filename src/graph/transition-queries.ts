import { DateTime } from 'luxon';
import type { Driver } from 'neo4j-driver';
import { badInput } from '../errors.js';
import { transitionFromProperties, type TransitionRecord } from './transition-record.js';
import { int } from './values.js';
import { decodeTimeCursor, encodeTimeCursor } from './time-cursor.js';

/** One transition by id, or null. */
export async function getTransition(driver: Driver, id: string): Promise<TransitionRecord | null> {
  const { records } = await driver.executeQuery(
    'MATCH (t:Transition {id: $id}) RETURN properties(t) AS t',
    { id },
    { routing: 'READ' },
  );
  return records[0] ? transitionFromProperties(records[0].get('t')) : null;
}

/** A page of transitions, newest first (Relay: the cursor is opaque). */
export interface TransitionPage {
  transitions: Array<{ transition: TransitionRecord; cursor: string }>;
  hasNextPage: boolean;
  endCursor: string | null;
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
): Promise<TransitionPage> {
  const first = options.first ?? 50;
  if (!Number.isInteger(first) || first < 1 || first > 500) throw badInput('first', 'must be an integer from 1 to 500');
  for (const f of ['since', 'until'] as const) {
    const v = options[f];
    if (v != null && !DateTime.fromISO(v, { setZone: true }).isValid) throw badInput(f, 'must be an ISO-8601 time');
  }
  const cursor = options.after ? decodeTimeCursor(options.after, 'transitions') : null;
  const where = options.resourceId ? 't.resourceId = $rid AND ' : '';
  const { records } = await driver.executeQuery(
    `MATCH (t:Transition)
     WHERE ${where}t.observedAt >= datetime(coalesce($since, '0001-01-01T00:00:00Z'))
       AND t.observedAt <= datetime(coalesce($until, '9999-12-31T23:59:59Z'))
       AND ($afterAt IS NULL OR t.observedAt < datetime($afterAt) OR (t.observedAt = datetime($afterAt) AND t.id < $afterId))
     RETURN properties(t) AS t ORDER BY t.observedAt DESC, t.id DESC LIMIT $limit`,
    {
      rid: options.resourceId ?? null,
      since: options.since ?? null,
      until: options.until ?? null,
      afterAt: cursor?.at ?? null,
      afterId: cursor?.id ?? null,
      limit: int(first + 1),
    },
    { routing: 'READ' },
  );
  const all = records.map((r) => transitionFromProperties(r.get('t')));
  const page = all
    .slice(0, first)
    .map((transition) => ({ transition, cursor: encodeTimeCursor(transition.observedAt, transition.id) }));
  return { transitions: page, hasNextPage: all.length > first, endCursor: page[page.length - 1]?.cursor ?? null };
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
