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
  type PastConditionAttribution,
} from '../model/index.js';
import type { Driver, ManagedTransaction } from 'neo4j-driver';
import { isoNow, newestFirst, toPlain, type KeysetPage } from './db/statements.js';
import { DateTime } from 'luxon';
import { appendFeedTx } from './feed.js';

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
    causeTransitionId: (p.causeTransitionId as string | null) ?? null,
    suppressed: p.suppressed === true,
    wouldSuppress: p.wouldSuppress === true,
    suppressionReasons: Array.isArray(p.suppressionReasons) ? p.suppressionReasons.map(String) : [],
    policyDigest: (p.policyDigest as string | null) ?? null,
    // Only a condition whose cause was explained again has a history (see conditions-reattribute.ts).
    ...(Array.isArray(p.attributionHistory)
      ? { attributionHistory: p.attributionHistory.map((h) => parseJson(h) as PastConditionAttribution) }
      : {}),
  };
}

/** Conditions of many resources in one query (for DataLoaders), newest first. */
export async function conditionsOfMany(
  driver: Driver,
  resourceIds: readonly string[],
  status: 'open' | 'resolved' | null,
  /** Only suppressed (true) or only unsuppressed (false) conditions; null: both. */
  suppressed: boolean | null = null,
): Promise<Map<string, ConditionRecord[]>> {
  const { records } = await driver.executeQuery(
    `UNWIND $ids AS rid
     MATCH (c:Condition) WHERE c.resourceId = rid AND ($status IS NULL OR c.status = $status)
       AND ($suppressed IS NULL OR coalesce(c.suppressed, false) = $suppressed)
     RETURN properties(c) AS c ORDER BY c.openedAt DESC`,
    { ids: [...new Set(resourceIds)], status, suppressed },
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

/** One condition to open (or refresh, when one of its type is open already). */
export interface ConditionOpen {
  resourceId: string;
  type: ConditionType;
  evidence: unknown;
  attribution?: unknown;
  at: string;
  /** The transition it followed (linked `-[:CAUSED_BY]->` when the condition is new). */
  causeTransitionId?: string | null;
  /** The attribution gate's decision for a new condition; none means not suppressed. */
  suppression?: { suppressed: boolean; wouldSuppress: boolean; reasons: string[]; policyDigest: string | null };
}

/** One open condition to resolve. */
export interface ConditionResolve {
  resourceId: string;
  type: ConditionType;
  evidence: unknown;
  at: string;
}

/**
 * Opens conditions in one statement inside the caller's transaction. Writers of one resource's
 * conditions are serialised by a write lock on the resource node (held to the end of the
 * transaction), so two concurrent opens cannot both create an open condition. Where one of the
 * type is open already its evidence, attribution (if given) and lastSeenAt are updated and
 * `opened` is false. New ids: `<resourceId>#<type>#<openedAt epoch ms>`. Resources that do not
 * exist are left out of the answer.
 */
export async function openConditionsTx(
  tx: ManagedTransaction,
  opens: readonly ConditionOpen[],
): Promise<Array<{ condition: ConditionRecord; opened: boolean }>> {
  if (opens.length === 0) return [];
  const rows = opens.map((o) => ({
    rid: o.resourceId,
    type: checkType(o.type),
    at: o.at,
    id: `${o.resourceId}#${o.type}#${DateTime.fromISO(o.at, { zone: 'utc' }).toMillis()}`,
    evidence: json(o.evidence),
    attribution: json(o.attribution),
    cause: o.causeTransitionId ?? null,
    suppressed: o.suppression?.suppressed ?? false,
    wouldSuppress: o.suppression?.wouldSuppress ?? false,
    reasons: o.suppression?.reasons ?? [],
    digest: o.suppression?.policyDigest ?? null,
  }));
  const res = await tx.run(
    `UNWIND $rows AS row
     MATCH (r:Resource {id: row.rid})
     SET r.conditionLock = true REMOVE r.conditionLock
     WITH r, row
     OPTIONAL MATCH (c:Condition {resourceId: row.rid, type: row.type, status: 'open'})
     CALL (r, row, c) {
       WITH r, row, c WHERE c IS NULL
       CREATE (n:Condition {id: row.id, resourceId: row.rid, type: row.type, status: 'open', openedAt: datetime(row.at),
                            lastSeenAt: datetime(row.at), resolvedAt: null, evidence: row.evidence, attribution: row.attribution,
                            causeTransitionId: row.cause, suppressed: row.suppressed, wouldSuppress: row.wouldSuppress,
                            suppressionReasons: row.reasons, policyDigest: row.digest})
       CREATE (n)-[:CONDITION_OF]->(r)
       WITH n, row
       OPTIONAL MATCH (t:Transition {id: row.cause})
       FOREACH (_ IN CASE WHEN t IS NULL THEN [] ELSE [1] END | MERGE (n)-[:CAUSED_BY]->(t))
       RETURN n AS cond, true AS opened
       UNION
       WITH row, c WHERE c IS NOT NULL
       SET c.evidence = row.evidence, c.lastSeenAt = datetime(row.at), c.attribution = coalesce(row.attribution, c.attribution)
       RETURN c AS cond, false AS opened
     }
     RETURN properties(cond) AS c, opened`,
    { rows },
  );
  const result = res.records.map((r) => ({
    condition: conditionFromProperties(r.get('c')),
    opened: Boolean(r.get('opened')),
  }));
  // Every new condition is reported on the feed in this transaction; refreshes are not news.
  await appendFeedTx(
    tx,
    result
      .filter((r) => r.opened)
      .map(({ condition: c }) => ({
        topic: 'condition' as const,
        resourceId: c.resourceId,
        change: c.suppressed ? 'suppressed' : 'opened',
        at: c.openedAt,
        payload: c,
      })),
  );
  return result;
}

/** Resolves the open conditions named, in one statement inside the caller's transaction. */
export async function resolveConditionsTx(
  tx: ManagedTransaction,
  resolves: readonly ConditionResolve[],
): Promise<ConditionRecord[]> {
  if (resolves.length === 0) return [];
  const res = await tx.run(
    `UNWIND $rows AS row
     MATCH (c:Condition {resourceId: row.rid, type: row.type, status: 'open'})
     SET c.status = 'resolved', c.resolvedAt = datetime(row.at), c.resolutionEvidence = row.evidence
     RETURN properties(c) AS c`,
    {
      rows: resolves.map((r) => ({ rid: r.resourceId, type: checkType(r.type), at: r.at, evidence: json(r.evidence) })),
    },
  );
  const resolved = res.records.map((r) => conditionFromProperties(r.get('c')));
  await appendFeedTx(
    tx,
    resolved.map((c) => ({
      topic: 'condition' as const,
      resourceId: c.resourceId,
      change: 'resolved',
      at: c.resolvedAt ?? c.openedAt,
      payload: c,
    })),
  );
  return resolved;
}

/**
 * Opens a condition, idempotently: when one of this type is already open on the resource its
 * evidence, attribution (if given) and lastSeenAt are updated and `opened` is false. An unknown
 * resource is NOT_FOUND.
 */
export async function openCondition(
  driver: Driver,
  input: { resourceId: string; type: ConditionType; evidence: unknown; attribution?: unknown; at?: string },
): Promise<{ condition: ConditionRecord; opened: boolean }> {
  checkType(input.type);
  const session = driver.session();
  try {
    const [result] = await session.executeWrite((tx) => openConditionsTx(tx, [{ ...input, at: input.at ?? isoNow() }]));
    if (!result) throw notFound('resourceId', `resource ${input.resourceId}`);
    return result;
  } finally {
    await session.close();
  }
}

/** Resolves the open condition of this type on the resource, if any; `resolved` says whether one was. */
export async function resolveCondition(
  driver: Driver,
  input: { resourceId: string; type: ConditionType; evidence: unknown; at?: string },
): Promise<{ condition: ConditionRecord | null; resolved: boolean }> {
  checkType(input.type);
  const session = driver.session();
  try {
    const [condition] = await session.executeWrite((tx) =>
      resolveConditionsTx(tx, [{ ...input, at: input.at ?? isoNow() }]),
    );
    return condition ? { condition, resolved: true } : { condition: null, resolved: false };
  } finally {
    await session.close();
  }
}

/** The filter of the `conditions` query. */
export interface ConditionSearch {
  resourceId?: string | null;
  type?: ConditionType | null;
  status?: ConditionStatus | null;
  /** Only conditions open at some moment at or after this time: still open, or resolved since. */
  since?: string | null;
  /** Only suppressed (true) or only unsuppressed (false) conditions; null: both. */
  suppressed?: boolean | null;
  /** Only conditions that would have been suppressed (shadow mode): true. */
  wouldSuppress?: boolean | null;
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
       AND ($suppressed IS NULL OR coalesce(c.suppressed, false) = $suppressed)
       AND ($wouldSuppress IS NULL OR coalesce(c.wouldSuppress, false) = $wouldSuppress)
       AND ${keyset.before('c', 'openedAt')}
     RETURN properties(c) AS c ORDER BY c.openedAt DESC, c.id DESC LIMIT $limit`,
    {
      rid: filter.resourceId ?? null,
      type: filter.type ?? null,
      status: filter.status ?? null,
      since: filter.since ?? null,
      suppressed: filter.suppressed ?? null,
      wouldSuppress: filter.wouldSuppress ?? null,
      ...keyset.params,
    },
    { routing: 'READ' },
  );
  return keyset.cut(
    records.map((r) => conditionFromProperties(r.get('c'))),
    (c) => ({ at: c.openedAt, id: c.id }),
  );
}

/**
 * Resources a pass saw (its update tag) in `state` with no open condition of `type`: a resource
 * first seen already paused on an I/O error has no transition, but its condition is real. A pass
 * writes only under its scope's id prefix, so a range seek on the unique id finds its resources:
 * no index on `updateTag`, whose every entry each pass would rewrite.
 */
export async function resourcesMissingStateCondition(
  driver: Driver,
  query: { scope: string; updateTag: string; state: string; type: ConditionType },
): Promise<string[]> {
  const prefix = query.scope.endsWith('/') ? query.scope : `${query.scope}/`;
  const { records } = await driver.executeQuery(
    `MATCH (r:Resource) WHERE r.id STARTS WITH $prefix AND r.state = $state AND r.updateTag = $tag
       AND NOT EXISTS { MATCH (c:Condition {resourceId: r.id, type: $type, status: 'open'}) }
     RETURN r.id AS id ORDER BY id`,
    { prefix, tag: query.updateTag, state: query.state, type: checkType(query.type) },
    { routing: 'READ' },
  );
  return records.map((r) => r.get('id') as string);
}
