import { randomUUID } from 'node:crypto';
import type { Driver } from 'neo4j-driver';
import { badInput } from '../errors.js';
import { int, isoNow, toPlain } from './values.js';
import { decodeTimeCursor, encodeTimeCursor } from './time-cursor.js';

/** One mutation as it was asked and answered. */
export interface AuditEntry {
  id: string;
  at: string;
  principal: string;
  role: string;
  operation: string;
  targetIds: string[];
  outcome: 'ok' | 'refused' | 'error';
  detail: string | null;
}

/** Records a mutation; the audit trail is append-only. */
export async function writeAudit(
  driver: Driver,
  entry: Omit<AuditEntry, 'id' | 'at'> & { at?: string },
): Promise<AuditEntry> {
  const full: AuditEntry = { id: randomUUID(), at: entry.at ?? isoNow(), ...entry, detail: entry.detail ?? null };
  await driver.executeQuery(
    `CREATE (a:AuditEntry {id: $id, at: datetime($at), principal: $principal, role: $role, operation: $operation,
       targetIds: $targetIds, outcome: $outcome, detail: $detail})`,
    { ...full },
  );
  return full;
}

export interface AuditFilter {
  principal?: string | null;
  operation?: string | null;
  targetId?: string | null;
  outcome?: string | null;
  since?: string | null;
}

/** Newest first; keyset paging on (at, id). */
export async function listAudit(driver: Driver, filter: AuditFilter, page: { first: number; after?: string | null }) {
  if (!Number.isInteger(page.first) || page.first < 1 || page.first > 500)
    throw badInput('first', `must be an integer from 1 to 500, got ${page.first}`);
  const cursor = page.after ? decodeTimeCursor(page.after, 'auditLog') : null;
  const { records } = await driver.executeQuery(
    `MATCH (a:AuditEntry)
     WHERE ($principal IS NULL OR a.principal = $principal)
       AND ($operation IS NULL OR a.operation = $operation)
       AND ($targetId IS NULL OR $targetId IN a.targetIds)
       AND ($outcome IS NULL OR a.outcome = $outcome)
       AND ($since IS NULL OR a.at >= datetime($since))
       AND ($afterAt IS NULL OR a.at < datetime($afterAt) OR (a.at = datetime($afterAt) AND a.id < $afterId))
     RETURN properties(a) AS a ORDER BY a.at DESC, a.id DESC LIMIT $limit`,
    {
      principal: filter.principal ?? null,
      operation: filter.operation ?? null,
      targetId: filter.targetId ?? null,
      outcome: filter.outcome ?? null,
      since: filter.since ?? null,
      afterAt: cursor?.at ?? null,
      afterId: cursor?.id ?? null,
      limit: int(page.first + 1),
    },
    { routing: 'READ' },
  );
  const all = records.map((r) => toPlain(r.get('a')) as AuditEntry);
  const nodes = all.slice(0, page.first);
  const last = nodes[nodes.length - 1];
  return {
    nodes,
    hasNextPage: all.length > page.first,
    endCursor: last ? encodeTimeCursor(last.at, last.id) : null,
  };
}
