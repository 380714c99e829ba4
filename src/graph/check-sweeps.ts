import type { Driver } from 'neo4j-driver';
import { int } from './values.js';

/**
 * Whole-graph look-ups the health scheduler runs each tick to keep conditions and health true
 * when checks come and go (a removed check cannot report its own removal). Each is bounded.
 */

/** Resources that are not missing/destroyed, have no check and no open `unmonitored` condition. */
export async function unmonitoredResourceIds(driver: Driver, limit: number): Promise<string[]> {
  const { records } = await driver.executeQuery(
    `MATCH (r:Resource)
     WHERE NOT coalesce(r.lifecycle, 'active') IN ['missing', 'destroyed']
       AND NOT EXISTS { (r)<-[:CHECKS]-(:Check) }
       AND NOT EXISTS { (r)<-[:CONDITION_OF]-(:Condition {type: 'unmonitored', status: 'open'}) }
     RETURN r.id AS id ORDER BY id LIMIT $limit`,
    { limit: int(limit) },
    { routing: 'READ' },
  );
  return records.map((r) => String(r.get('id')));
}

/** Open `unmonitored` conditions that no longer apply: the resource has a check now, or is gone. */
export async function staleUnmonitored(
  driver: Driver,
  limit: number,
): Promise<Array<{ resourceId: string; checkIds: string[]; lifecycle: string }>> {
  const { records } = await driver.executeQuery(
    `MATCH (:Condition {type: 'unmonitored', status: 'open'})-[:CONDITION_OF]->(r:Resource)
     WITH DISTINCT r, [(r)<-[:CHECKS]-(k:Check) | k.id] AS checkIds
     WHERE size(checkIds) > 0 OR coalesce(r.lifecycle, 'active') IN ['missing', 'destroyed']
     RETURN r.id AS id, checkIds, coalesce(r.lifecycle, 'active') AS lifecycle ORDER BY id LIMIT $limit`,
    { limit: int(limit) },
    { routing: 'READ' },
  );
  return records.map((r) => ({
    resourceId: String(r.get('id')),
    checkIds: r.get('checkIds') as string[],
    lifecycle: String(r.get('lifecycle')),
  }));
}

/** Which check flag keeps which scheduler-opened condition type open. */
const FLAG_OF = { check_failing: 'failing', unreachable: 'unreachable' } as const;

/**
 * Open conditions of `type` that the scheduler opened (its evidence carries `marker`) on
 * resources where no check has the matching flag any more: their checks were removed.
 */
export async function orphanedCheckConditions(
  driver: Driver,
  type: keyof typeof FLAG_OF,
  marker: string,
  limit: number,
): Promise<string[]> {
  const { records } = await driver.executeQuery(
    `MATCH (c:Condition {type: $type, status: 'open'})-[:CONDITION_OF]->(r:Resource)
     WHERE c.evidence CONTAINS $marker AND NOT EXISTS { MATCH (k:Check)-[:CHECKS]->(r) WHERE k[$flag] = true }
     RETURN DISTINCT r.id AS id ORDER BY id LIMIT $limit`,
    { type, marker, flag: FLAG_OF[type], limit: int(limit) },
    { routing: 'READ' },
  );
  return records.map((r) => String(r.get('id')));
}

/** Resources whose health was derived from checks they no longer have: health must return to unknown. */
export async function healthWithoutChecks(driver: Driver, limit: number): Promise<string[]> {
  const { records } = await driver.executeQuery(
    `MATCH (r:Resource)
     WHERE r.health IS NOT NULL AND r.health <> 'unknown' AND NOT EXISTS { (r)<-[:CHECKS]-(:Check) }
     RETURN r.id AS id ORDER BY id LIMIT $limit`,
    { limit: int(limit) },
    { routing: 'READ' },
  );
  return records.map((r) => String(r.get('id')));
}
