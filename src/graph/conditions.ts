import {
  badInput,
  CONDITION_STATUSES,
  CONDITION_TYPES,
  type ConditionRecord,
  type ConditionStatus,
  type ConditionType,
  ConditionTypeSchema,
  groupBy,
  notFound,
} from '../model/index.js';
import type { Driver, ManagedTransaction } from 'neo4j-driver';
import { isoNow, newestFirst, toPlain, type KeysetPage } from './statements.js';
import { DateTime } from 'luxon';

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

/**
 * The Condition repository (write side; reads for DataLoaders are in condition-queries.ts):
 * `(:Condition {id, resourceId, type, status, openedAt, lastSeenAt, resolvedAt, evidence,
 * attribution})-[:CONDITION_OF]->(:Resource)`. At most one open condition per (resource, type).
 * Evidence and attribution are stored as JSON text (Neo4j properties cannot hold maps).
 */

function checkType(type: string): ConditionType {
  const parsed = ConditionTypeSchema.safeParse(type);
  if (!parsed.success) throw badInput('type', `must be one of ${CONDITION_TYPES.join(', ')}`);
  return parsed.data;
}

const json = (v: unknown): string | null => (v === undefined || v === null ? null : JSON.stringify(v));

/**
 * Serialises writers of one resource's conditions: a write lock on the resource node, held to the
 * end of the transaction, so two concurrent opens cannot both create an open condition.
 */
async function lockResource(tx: ManagedTransaction, resourceId: string): Promise<void> {
  const res = await tx.run(
    'MATCH (r:Resource {id: $id}) SET r.conditionLock = true REMOVE r.conditionLock RETURN r.id AS id',
    { id: resourceId },
  );
  if (res.records.length === 0) throw notFound('resourceId', `resource ${resourceId}`);
}

/**
 * Opens a condition, idempotently: when one of this type is already open on the resource its
 * evidence, attribution (if given) and lastSeenAt are updated and `opened` is false.
 * Id: `<resourceId>#<type>#<openedAt epoch ms>`.
 */
export async function openCondition(
  driver: Driver,
  input: { resourceId: string; type: ConditionType; evidence: unknown; attribution?: unknown; at?: string },
): Promise<{ condition: ConditionRecord; opened: boolean }> {
  const type = checkType(input.type);
  const at = input.at ?? isoNow();
  const session = driver.session();
  try {
    return await session.executeWrite(async (tx) => {
      await lockResource(tx, input.resourceId);
      const params = {
        rid: input.resourceId,
        type,
        at,
        evidence: json(input.evidence),
        attribution: json(input.attribution),
      };
      const existing = await tx.run(
        `MATCH (c:Condition {resourceId: $rid, type: $type, status: 'open'})
         SET c.evidence = $evidence, c.lastSeenAt = datetime($at), c.attribution = coalesce($attribution, c.attribution)
         RETURN properties(c) AS c`,
        params,
      );
      if (existing.records[0])
        return { condition: conditionFromProperties(existing.records[0].get('c')), opened: false };
      const id = `${input.resourceId}#${type}#${DateTime.fromISO(at, { zone: 'utc' }).toMillis()}`;
      const created = await tx.run(
        `MATCH (r:Resource {id: $rid})
         CREATE (c:Condition {id: $id, resourceId: $rid, type: $type, status: 'open', openedAt: datetime($at),
                              lastSeenAt: datetime($at), resolvedAt: null, evidence: $evidence, attribution: $attribution})
         CREATE (c)-[:CONDITION_OF]->(r)
         RETURN properties(c) AS c`,
        { ...params, id },
      );
      return { condition: conditionFromProperties(created.records[0]!.get('c')), opened: true };
    });
  } finally {
    await session.close();
  }
}

/** Resolves the open condition of this type on the resource, if any; `resolved` says whether one was. */
export async function resolveCondition(
  driver: Driver,
  input: { resourceId: string; type: ConditionType; evidence: unknown; at?: string },
): Promise<{ condition: ConditionRecord | null; resolved: boolean }> {
  const type = checkType(input.type);
  const { records } = await driver.executeQuery(
    `MATCH (c:Condition {resourceId: $rid, type: $type, status: 'open'})
     SET c.status = 'resolved', c.resolvedAt = datetime($at), c.resolutionEvidence = $evidence
     RETURN properties(c) AS c`,
    { rid: input.resourceId, type, at: input.at ?? isoNow(), evidence: json(input.evidence) },
  );
  const rec = records[0];
  return rec
    ? { condition: conditionFromProperties(rec.get('c')), resolved: true }
    : { condition: null, resolved: false };
}

/** The filter of the `conditions` query. */
export interface ConditionSearch {
  resourceId?: string | null;
  type?: ConditionType | null;
  status?: ConditionStatus | null;
  /** Only conditions open at some moment at or after this time: still open, or resolved since. */
  since?: string | null;
}

/**
 * Conditions newest first (openedAt, then id), `first` at a time (1–500), keyset-paginated so a
 * page boundary never skips or repeats a condition. Every bad argument is BAD_USER_INPUT naming it.
 */
export async function searchConditions(
  driver: Driver,
  filter: ConditionSearch,
  page: { first: number; after?: string | null },
): Promise<KeysetPage<ConditionRecord>> {
  if (filter.type && !(CONDITION_TYPES as readonly string[]).includes(filter.type))
    throw badInput('filter.type', `must be one of ${CONDITION_TYPES.join(', ')}`);
  if (filter.status && !(CONDITION_STATUSES as readonly string[]).includes(filter.status))
    throw badInput('filter.status', 'must be open or resolved');
  if (filter.since && !DateTime.fromISO(filter.since).isValid)
    throw badInput('filter.since', 'must be an ISO-8601 timestamp');
  const keyset = newestFirst(page, 'conditions');
  const { records } = await driver.executeQuery(
    `MATCH (c:Condition)
     WHERE ($rid IS NULL OR c.resourceId = $rid) AND ($type IS NULL OR c.type = $type) AND ($status IS NULL OR c.status = $status)
       AND ($since IS NULL OR c.resolvedAt IS NULL OR c.resolvedAt >= datetime($since))
       AND ${keyset.before('c', 'openedAt')}
     RETURN properties(c) AS c ORDER BY c.openedAt DESC, c.id DESC LIMIT $limit`,
    {
      rid: filter.resourceId ?? null,
      type: filter.type ?? null,
      status: filter.status ?? null,
      since: filter.since ?? null,
      ...keyset.params,
    },
    { routing: 'READ' },
  );
  return keyset.cut(
    records.map((r) => conditionFromProperties(r.get('c'))),
    (c) => ({ at: c.openedAt, id: c.id }),
  );
}
