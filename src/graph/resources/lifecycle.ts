/**
 * A lifecycle an operator sets on a resource (deprecated, destroyed, …), kept with who, why and when.
 * The `missing` lifecycle a sync marks is staleness.ts's.
 */
import type { Lifecycle, ResourceRecord } from '../../model/index.js';
import { type AuditInput, writeWithAudit } from '../audit.js';
import { isoNow } from '../db/statements.js';
import { resourceFromProperties } from './read.js';
import type { Driver } from 'neo4j-driver';

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
  audit?: () => AuditInput,
): Promise<{ resource: ResourceRecord; previous: Lifecycle } | null> {
  // The audit line is written with the change, and only when there was a resource to change.
  const { records } = await writeWithAudit(
    driver,
    (tx) =>
      tx.run(
        `MATCH (r:Resource {id: $id})
     WITH r, coalesce(r.lifecycle, 'active') AS previous
     FOREACH (_ IN CASE WHEN previous <> $lifecycle THEN [1] ELSE [] END |
       SET r.lifecycle = $lifecycle, r.lifecycleReason = $reason, r.lifecycleSetBy = $by, r.lifecycleSetAt = datetime($at))
     RETURN previous, properties(r) AS p`,
        { id, lifecycle: change.lifecycle, reason: change.reason, by: change.by, at: change.at ?? isoNow() },
      ),
    (res) => (res.records.length > 0 ? (audit?.() ?? null) : null),
  );
  const record = records[0];
  if (!record) return null;
  return { resource: resourceFromProperties(record.get('p')), previous: record.get('previous') as Lifecycle };
}
