import type { Driver, ManagedTransaction } from 'neo4j-driver';
import { DateTime } from 'luxon';
import { badInput, notFound } from '../errors.js';
import {
  CONDITION_TYPES,
  ConditionStatusSchema,
  ConditionTypeSchema,
  type ConditionStatus,
  type ConditionType,
} from '../model/index.js';
import { conditionFromProperties, type ConditionRecord } from './condition-queries.js';
import { int, isoNow } from './values.js';
import { decodeTimeCursor, encodeTimeCursor } from './time-cursor.js';

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

/** A page of conditions, newest first. */
export interface ConditionPage {
  conditions: ConditionRecord[];
  endCursor: string | null;
  hasNextPage: boolean;
}

/** Lists conditions by resource, type and status, newest first, `first` at a time (max 500). */
export async function listConditions(
  driver: Driver,
  options: {
    resourceId?: string | null;
    type?: ConditionType | null;
    status?: ConditionStatus | null;
    first?: number;
    after?: string | null;
  } = {},
): Promise<ConditionPage> {
  if (options.type) checkType(options.type);
  if (options.status && !ConditionStatusSchema.safeParse(options.status).success)
    throw badInput('status', 'must be open or resolved');
  const first = options.first ?? 50;
  if (!Number.isInteger(first) || first < 1 || first > 500) throw badInput('first', 'must be an integer from 1 to 500');
  const cursor = options.after ? decodeTimeCursor(options.after, 'this list') : null;
  const { records } = await driver.executeQuery(
    `MATCH (c:Condition)
     WHERE ($rid IS NULL OR c.resourceId = $rid) AND ($type IS NULL OR c.type = $type) AND ($status IS NULL OR c.status = $status)
       AND ($afterAt IS NULL OR c.openedAt < datetime($afterAt) OR (c.openedAt = datetime($afterAt) AND c.id < $afterId))
     RETURN properties(c) AS c ORDER BY c.openedAt DESC, c.id DESC LIMIT $limit`,
    {
      rid: options.resourceId ?? null,
      type: options.type ?? null,
      status: options.status ?? null,
      afterAt: cursor?.at ?? null,
      afterId: cursor?.id ?? null,
      limit: int(first + 1),
    },
    { routing: 'READ' },
  );
  const all = records.map((r) => conditionFromProperties(r.get('c')));
  const page = all.slice(0, first);
  const last = page[page.length - 1];
  return {
    conditions: page,
    hasNextPage: all.length > first,
    endCursor: last ? encodeTimeCursor(last.openedAt, last.id) : null,
  };
}
