import type { ConditionRecord, TransitionRecord } from '../model/index.js';
import type { Driver } from 'neo4j-driver';
import { conditionFromProperties } from './conditions.js';
import { int } from './db/statements.js';
import { transitionFromProperties } from './transitions/read.js';

/**
 * The reads behind an incident context: each one query over every resource in it, on the
 * (resourceId, time) indexes. Each asks for one more row than `limit`, so the caller can tell a
 * full answer from a cut one and say which bound was hit.
 */

/** Transitions of these resources observed in [since, until], oldest first (the story's order). */
export async function transitionsOfResources(
  driver: Driver,
  ids: readonly string[],
  window: { since: string; until: string },
  limit: number,
): Promise<TransitionRecord[]> {
  const { records } = await driver.executeQuery(
    `UNWIND $ids AS rid
     MATCH (t:Transition) WHERE t.resourceId = rid
       AND t.observedAt >= datetime($since) AND t.observedAt <= datetime($until)
     RETURN properties(t) AS t ORDER BY t.observedAt, t.id LIMIT $limit`,
    { ids: [...new Set(ids)], since: window.since, until: window.until, limit: int(limit + 1) },
    { routing: 'READ' },
  );
  return records.map((r) => transitionFromProperties(r.get('t')));
}

/**
 * Conditions of these resources that matter to an incident in [since, until]: open ones (whenever
 * they opened, suppressed included) and those that opened in the window, resolved since. Oldest first.
 */
export async function conditionsOfResources(
  driver: Driver,
  ids: readonly string[],
  window: { since: string; until: string },
  limit: number,
): Promise<ConditionRecord[]> {
  const { records } = await driver.executeQuery(
    `UNWIND $ids AS rid
     CALL (rid) {
       MATCH (c:Condition) WHERE c.resourceId = rid AND c.status = 'open' AND c.openedAt <= datetime($until)
       RETURN c
       UNION
       MATCH (c:Condition) WHERE c.resourceId = rid AND c.status = 'resolved'
         AND c.openedAt >= datetime($since) AND c.openedAt <= datetime($until)
       RETURN c
     }
     RETURN properties(c) AS c ORDER BY c.openedAt, c.id LIMIT $limit`,
    { ids: [...new Set(ids)], since: window.since, until: window.until, limit: int(limit + 1) },
    { routing: 'READ' },
  );
  return records.map((r) => conditionFromProperties(r.get('c')));
}
