import type { Driver } from 'neo4j-driver';
import { DateTime } from 'luxon';
import { badInput } from '../errors.js';
import { CONDITION_STATUSES, CONDITION_TYPES, type ConditionStatus, type ConditionType } from '../model/index.js';
import { conditionFromProperties, type ConditionRecord } from './condition-queries.js';
import { int } from './values.js';
import { decodeTimeCursor, encodeTimeCursor } from './time-cursor.js';

/** The filter of the `conditions` query. */
export interface ConditionSearch {
  resourceId?: string | null;
  type?: ConditionType | null;
  status?: ConditionStatus | null;
  /** Only conditions open at some moment at or after this time: still open, or resolved since. */
  since?: string | null;
}

export interface ConditionSearchPage {
  conditions: ConditionRecord[];
  /** One cursor per condition, for Relay edges. */
  cursors: string[];
  hasNextPage: boolean;
}

/**
 * Conditions newest first (openedAt, then id), `first` at a time (1–500), keyset-paginated so a
 * page boundary never skips or repeats a condition. Every bad argument is BAD_USER_INPUT naming it.
 */
export async function searchConditions(
  driver: Driver,
  filter: ConditionSearch,
  page: { first: number; after?: string | null },
): Promise<ConditionSearchPage> {
  if (filter.type && !(CONDITION_TYPES as readonly string[]).includes(filter.type))
    throw badInput('filter.type', `must be one of ${CONDITION_TYPES.join(', ')}`);
  if (filter.status && !(CONDITION_STATUSES as readonly string[]).includes(filter.status))
    throw badInput('filter.status', 'must be open or resolved');
  if (filter.since && !DateTime.fromISO(filter.since).isValid)
    throw badInput('filter.since', 'must be an ISO-8601 timestamp');
  if (!Number.isInteger(page.first) || page.first < 1 || page.first > 500)
    throw badInput('first', 'must be an integer from 1 to 500');
  const cursor = page.after ? decodeTimeCursor(page.after, 'conditions') : null;
  const { records } = await driver.executeQuery(
    `MATCH (c:Condition)
     WHERE ($rid IS NULL OR c.resourceId = $rid) AND ($type IS NULL OR c.type = $type) AND ($status IS NULL OR c.status = $status)
       AND ($since IS NULL OR c.resolvedAt IS NULL OR c.resolvedAt >= datetime($since))
       AND ($afterAt IS NULL OR c.openedAt < datetime($afterAt) OR (c.openedAt = datetime($afterAt) AND c.id < $afterId))
     RETURN properties(c) AS c ORDER BY c.openedAt DESC, c.id DESC LIMIT $limit`,
    {
      rid: filter.resourceId ?? null,
      type: filter.type ?? null,
      status: filter.status ?? null,
      since: filter.since ?? null,
      afterAt: cursor?.at ?? null,
      afterId: cursor?.id ?? null,
      limit: int(page.first + 1),
    },
    { routing: 'READ' },
  );
  const all = records.map((r) => conditionFromProperties(r.get('c')));
  const conditions = all.slice(0, page.first);
  return {
    conditions,
    cursors: conditions.map((c) => encodeTimeCursor(c.openedAt, c.id)),
    hasNextPage: all.length > page.first,
  };
}
