import type { Driver } from 'neo4j-driver';
import { toPlain } from './values.js';
import { groupBy } from '../util/group-by.js';

/** A Condition as reads return it (the write side lives in conditions.ts). */
export interface ConditionRecord {
  id: string;
  type: string;
  status: 'open' | 'resolved';
  resourceId: string;
  openedAt: string;
  resolvedAt: string | null;
  evidence: unknown;
  attribution: unknown;
}

function parseJson(v: unknown): unknown {
  if (typeof v !== 'string') return v ?? null;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

/** Builds a record from a Condition node's properties (evidence/attribution are stored as JSON text). */
export function conditionFromProperties(raw: unknown): ConditionRecord {
  const p = toPlain(raw) as Record<string, unknown>;
  return {
    id: String(p.id),
    type: String(p.type),
    status: p.status === 'resolved' ? 'resolved' : 'open',
    resourceId: String(p.resourceId),
    openedAt: String(p.openedAt),
    resolvedAt: (p.resolvedAt as string | null) ?? null,
    evidence: parseJson(p.evidence),
    attribution: parseJson(p.attribution),
  };
}

/** Conditions of many resources in one query (for DataLoaders), newest first. */
export async function conditionsOfMany(
  driver: Driver,
  resourceIds: readonly string[],
  status: 'open' | 'resolved' | null,
): Promise<Map<string, ConditionRecord[]>> {
  const { records } = await driver.executeQuery(
    `UNWIND $ids AS rid
     MATCH (c:Condition) WHERE c.resourceId = rid AND ($status IS NULL OR c.status = $status)
     RETURN properties(c) AS c ORDER BY c.openedAt DESC`,
    { ids: [...new Set(resourceIds)], status },
    { routing: 'READ' },
  );
  return groupBy(
    records.map((r) => conditionFromProperties(r.get('c'))),
    (c) => c.resourceId,
  );
}
