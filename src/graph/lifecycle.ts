import type { Driver } from 'neo4j-driver';
import type { Lifecycle } from '../model/index.js';
import { resourceFromProperties, type ResourceRecord } from './resource-record.js';
import { isoNow } from './values.js';

/** A lifecycle an operator set, with who, why and when. */
export interface LifecycleChange {
  lifecycle: Lifecycle;
  reason: string;
  /** The principal that set it. */
  by: string;
  at?: string;
}

/**
 * Sets a resource's lifecycle and keeps the reason, the principal and the time on the node
 * (`lifecycleReason`, `lifecycleSetBy`, `lifecycleSetAt`). Idempotent: setting the lifecycle the
 * resource already has writes nothing. Returns null when there is no such resource.
 */
export async function setResourceLifecycle(
  driver: Driver,
  id: string,
  change: LifecycleChange,
): Promise<{ resource: ResourceRecord; previous: Lifecycle } | null> {
  const { records } = await driver.executeQuery(
    `MATCH (r:Resource {id: $id})
     WITH r, coalesce(r.lifecycle, 'active') AS previous
     FOREACH (_ IN CASE WHEN previous <> $lifecycle THEN [1] ELSE [] END |
       SET r.lifecycle = $lifecycle, r.lifecycleReason = $reason, r.lifecycleSetBy = $by, r.lifecycleSetAt = datetime($at))
     RETURN previous, properties(r) AS p`,
    { id, lifecycle: change.lifecycle, reason: change.reason, by: change.by, at: change.at ?? isoNow() },
  );
  const record = records[0];
  if (!record) return null;
  return { resource: resourceFromProperties(record.get('p')), previous: record.get('previous') as Lifecycle };
}
