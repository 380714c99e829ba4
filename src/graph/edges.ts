import {
  badInput,
  type Direction,
  type EdgeConfidence,
  type EdgeInput,
  type EdgeRecord,
  groupBy,
  type Kind,
  notFound,
  type Provenance,
  refusePair,
  RELATIONSHIP_RULES,
  RELATIONSHIP_TYPES,
  type RelationshipType,
  RelationshipTypeSchema,
} from '../model/index.js';
import { type AuditInput, completeEntry, createAuditCypher, writeWithAudit } from './audit.js';
import { groupCommit } from './db/group-commit.js';
import { inBatches, isoNow, toPlain } from './db/statements.js';
import type { Driver, ManagedTransaction } from 'neo4j-driver';

/** Cypher projection for `(a)-[e]->(b)`, used by every edge read. */
export const EDGE_PROJECTION = '{type: type(e), fromId: a.id, toId: b.id, props: properties(e)}';

export function edgeFromRow(raw: unknown): EdgeRecord {
  const row = toPlain(raw) as { type: RelationshipType; fromId: string; toId: string; props: Record<string, unknown> };
  const p = row.props;
  return {
    type: row.type,
    fromId: row.fromId,
    toId: row.toId,
    provenance: p.provenance as Provenance,
    source: String(p.source ?? ''),
    rule: (p.rule as string | null) ?? null,
    confidence: (p.confidence as EdgeConfidence | null) ?? null,
    evidence: (p.evidence as string | null) ?? null,
    firstSeen: (p.firstSeen as string | null) ?? null,
    lastSeen: (p.lastSeen as string | null) ?? null,
    missingSince: (p.missingSince as string | null) ?? null,
  };
}

/**
 * An edge is owned by whoever asserted it: it is keyed on (from, type, to, provenance, source), so
 * a provider's observed edge, a resolver's inferred one and an agent's declared one can coexist and
 * each can be withdrawn without touching the others.
 */
function mergeCypher(type: RelationshipType, returns: 'edge' | 'created' = 'edge'): string {
  // `type` is checked against RELATIONSHIP_TYPES before it reaches here: never raw input.
  if (!(RELATIONSHIP_TYPES as readonly string[]).includes(type)) throw new Error(`not a relationship type: ${type}`);
  return `
    UNWIND $rows AS row
    MATCH (a:Resource {id: row.fromId}), (b:Resource {id: row.toId})
    MERGE (a)-[e:${type} {provenance: row.provenance, source: row.source}]->(b)
    ON CREATE SET e.firstSeen = datetime($now), e.created = true
    WITH a, b, e, row, coalesce(e.created, false) AS created
    SET e.lastSeen = datetime($now), e.updateTag = $tag,
        e.rule = row.rule, e.confidence = row.confidence,
        e.evidence = coalesce(row.evidence, e.evidence)
    REMOVE e.created
    RETURN ${returns === 'edge' ? `${EDGE_PROJECTION} AS edge, ` : ''}created`;
}

export interface SkippedEdge {
  edge: EdgeInput;
  reason: string;
}

export interface EdgeWriteResult {
  written: number;
  created: number;
  skipped: SkippedEdge[];
}

export async function kindsOf(tx: Pick<ManagedTransaction, 'run'> | Driver, ids: string[]): Promise<Map<string, Kind>> {
  const q = 'UNWIND $ids AS id MATCH (r:Resource {id: id}) RETURN r.id AS id, r.kind AS kind';
  const res = 'executeQuery' in tx ? await tx.executeQuery(q, { ids }) : await tx.run(q, { ids });
  return new Map(res.records.map((r) => [r.get('id') as string, r.get('kind') as Kind]));
}

/** Why an edge cannot be written given its endpoints' kinds, or null. */
export function refuseEdge(edge: EdgeInput, kinds: Map<string, Kind>): string | null {
  if (edge.fromId === edge.toId) return `a ${edge.type} edge from ${edge.fromId} to itself is not allowed`;
  const from = kinds.get(edge.fromId);
  const to = kinds.get(edge.toId);
  if (!from) return `source resource ${edge.fromId} does not exist`;
  if (!to) return `target resource ${edge.toId} does not exist`;
  return refusePair(edge.type, from, to);
}

/**
 * Batch edge upsert for ingest and resolvers: edges with a missing endpoint or a disallowed kind
 * pair are skipped and reported, never aborting the pass. Idempotent.
 */
export async function upsertEdges(
  driver: Driver,
  edges: EdgeInput[],
  options: { updateTag?: string; observedAt?: string; batchSize?: number } = {},
): Promise<EdgeWriteResult> {
  const result: EdgeWriteResult = { written: 0, created: 0, skipped: [] };
  const ids = [...new Set(edges.flatMap((e) => [e.fromId, e.toId]))];
  const kinds = await kindsOf(driver, ids);
  const valid: EdgeInput[] = [];
  for (const e of edges) {
    const reason = refuseEdge(e, kinds);
    if (reason) result.skipped.push({ edge: e, reason });
    else valid.push(e);
  }
  const byType = groupBy(valid, (e) => e.type);
  const now = options.observedAt ?? isoNow();
  for (const [type, rows] of byType) {
    await inBatches(rows, options.batchSize ?? 1000, async (batch) => {
      // Batches return only the created flags: ingest does not need every edge echoed back.
      const res = await driver.executeQuery(mergeCypher(type, 'created'), {
        rows: batch.map(edgeParams),
        now,
        tag: options.updateTag ?? null,
      });
      result.written += res.records.length;
      result.created += res.records.filter((r) => r.get('created')).length;
    });
  }
  return result;
}

function edgeParams(e: EdgeInput) {
  return {
    fromId: e.fromId,
    toId: e.toId,
    provenance: e.provenance,
    source: e.source,
    rule: e.rule ?? null,
    confidence: e.confidence ?? null,
    evidence: e.evidence ?? null,
  };
}

/**
 * The declared-edge write of createRelationship, for one row: both ends matched with the kinds the
 * type allows, the edge merged, the audit line (when given) created, all in one statement (one row
 * of a group commit). No row back: an end is gone or its kind not allowed, and nothing is written.
 */
function declareCypher(type: RelationshipType): string {
  if (!(RELATIONSHIP_TYPES as readonly string[]).includes(type)) throw new Error(`not a relationship type: ${type}`);
  // Every edge write sets lastSeen, so an edge without one is the one this MERGE just created:
  // no marker property to set and remove again.
  return `MATCH (a:Resource {id: row.fromId}), (b:Resource {id: row.toId}) WHERE [a.kind, b.kind] IN row.allowed
    MERGE (a)-[e:${type} {provenance: row.provenance, source: row.source}]->(b)
    ON CREATE SET e.firstSeen = datetime(row.now)
    WITH a, b, e, row, e.lastSeen IS NULL AS created
    SET e.lastSeen = datetime(row.now), e.updateTag = null,
        e.rule = row.rule, e.confidence = row.confidence,
        e.evidence = coalesce(row.evidence, e.evidence)
    WITH a, b, e, row, created
    FOREACH (x IN CASE WHEN row.audit IS NULL THEN [] ELSE [row.audit] END |
      ${createAuditCypher('x')})
    RETURN ${EDGE_PROJECTION} AS edge, created`;
}

/**
 * Creates one relationship after validating it; refused input (unknown resource, self-loop,
 * disallowed kind pair) is a BAD_USER_INPUT naming the field, and nothing is written. Validation
 * and write share one statement (the ends matched with their kinds), so a concurrent delete cannot
 * slip between them; with `audit`, its line commits in it too. Concurrent writes share one
 * transaction (group-commit.ts); this resolves once this one's has committed.
 */
export async function createRelationship(
  driver: Driver,
  edge: EdgeInput,
  audit?: () => AuditInput,
): Promise<{ relationship: EdgeRecord; created: boolean }> {
  const type = RelationshipTypeSchema.safeParse(edge.type);
  if (!type.success) throw badInput('type', `must be one of ${RELATIONSHIP_TYPES.join(', ')}`);
  if (edge.fromId === edge.toId)
    throw badInput('target', `a ${edge.type} edge from ${edge.fromId} to itself is not allowed`);
  const row = {
    ...edgeParams(edge),
    allowed: RELATIONSHIP_RULES[type.data].allowed.map((pair) => [...pair]),
    now: isoNow(),
    audit: audit ? completeEntry(audit()) : null,
  };
  const [rec] = await groupCommit(driver, 'relationship', declareCypher(type.data), row, ['edge', 'created']);
  if (rec) return { relationship: edgeFromRow(rec.get('edge')), created: Boolean(rec.get('created')) };
  // Nothing matched: which end is gone or refused, read (a refusal's path only).
  const kinds = await kindsOf(driver, [edge.fromId, edge.toId]);
  const from = kinds.get(edge.fromId);
  const to = kinds.get(edge.toId);
  if (!from) throw notFound('source', `resource ${edge.fromId}`);
  if (!to) throw notFound('target', `resource ${edge.toId}`);
  throw badInput('type', refusePair(edge.type, from, to) ?? `${edge.type} from ${from} to ${to} was not written`);
}

/** One validated edge, merged inside the caller's transaction (both endpoints must exist, the pair be allowed). */
export async function mergeEdgeTx(
  tx: ManagedTransaction,
  edge: EdgeInput,
  now: string,
): Promise<{ relationship: EdgeRecord; created: boolean }> {
  const kinds = await kindsOf(tx, [edge.fromId, edge.toId]);
  const from = kinds.get(edge.fromId);
  const to = kinds.get(edge.toId);
  if (!from) throw notFound('source', `resource ${edge.fromId}`);
  if (!to) throw notFound('target', `resource ${edge.toId}`);
  const refused = refusePair(edge.type, from, to);
  if (refused) throw badInput('type', refused);
  const res = await tx.run(mergeCypher(edge.type), { rows: [edgeParams(edge)], now, tag: null });
  const rec = res.records[0]!;
  return { relationship: edgeFromRow(rec.get('edge')), created: Boolean(rec.get('created')) };
}

export type { Direction };

/** Edges touching a resource, optionally of some types, in a direction; each with its provenance. */
export async function relationsOf(
  driver: Driver,
  id: string,
  options: { types?: RelationshipType[] | null; direction?: Direction; includeStale?: boolean } = {},
): Promise<EdgeRecord[]> {
  return (await relationsOfMany(driver, [id], options)).get(id) ?? [];
}

/** Batched form for DataLoaders: one query for many resources. */
export async function relationsOfMany(
  driver: Driver,
  ids: readonly string[],
  options: { types?: RelationshipType[] | null; direction?: Direction; includeStale?: boolean } = {},
): Promise<Map<string, EdgeRecord[]>> {
  const types = options.types && options.types.length > 0 ? options.types : [...RELATIONSHIP_TYPES];
  for (const t of types)
    if (!(RELATIONSHIP_TYPES as readonly string[]).includes(t))
      throw badInput('types', `unknown relationship type ${t}`);
  const direction = options.direction ?? 'BOTH';
  const { records } = await driver.executeQuery(
    `UNWIND $ids AS rid
     MATCH (x:Resource {id: rid})-[e]-(:Resource)
     WHERE type(e) IN $types AND ($stale OR e.missingSince IS NULL)
       AND ($dir = 'BOTH' OR ($dir = 'OUT' AND startNode(e) = x) OR ($dir = 'IN' AND endNode(e) = x))
     WITH rid, e, startNode(e) AS a, endNode(e) AS b
     RETURN rid, ${EDGE_PROJECTION} AS edge ORDER BY type(e), a.id, b.id`,
    { ids: [...new Set(ids)], types, dir: direction, stale: options.includeStale ?? false },
    { routing: 'READ' },
  );
  const rows = records.map((r) => ({ rid: r.get('rid') as string, edge: edgeFromRow(r.get('edge')) }));
  return new Map([...groupBy(rows, (r) => r.rid)].map(([rid, list]) => [rid, list.map((r) => r.edge)]));
}

/** Removes one edge; observed edges belong to their provider and are refused. */
export async function removeRelationship(
  driver: Driver,
  ref: { fromId: string; toId: string; type: RelationshipType; source?: string | null },
  audit?: () => AuditInput,
): Promise<{ removed: number }> {
  const type = RelationshipTypeSchema.safeParse(ref.type);
  if (!type.success) throw badInput('type', `must be one of ${RELATIONSHIP_TYPES.join(', ')}`);
  return writeWithAudit(
    driver,
    async (tx) => {
      const found = await tx.run(
        `MATCH (a:Resource {id: $from})-[e:${type.data}]->(b:Resource {id: $to})
         WHERE $source IS NULL OR e.source = $source
         RETURN e.provenance AS provenance, e.source AS source`,
        { from: ref.fromId, to: ref.toId, source: ref.source ?? null },
      );
      if (found.records.length === 0) throw notFound('relationship', `${ref.type} from ${ref.fromId} to ${ref.toId}`);
      const observed = found.records.filter((r) => r.get('provenance') === 'observed');
      if (observed.length > 0 && observed.length === found.records.length) {
        throw badInput(
          'relationship',
          `observed edges belong to their provider (${observed[0]!.get('source')}) and cannot be removed; they go when the provider stops reporting them`,
        );
      }
      const del = await tx.run(
        `MATCH (a:Resource {id: $from})-[e:${type.data}]->(b:Resource {id: $to})
         WHERE e.provenance <> 'observed' AND ($source IS NULL OR e.source = $source)
         DELETE e RETURN count(*) AS n`,
        { from: ref.fromId, to: ref.toId, source: ref.source ?? null },
      );
      return { removed: Number(del.records[0]?.get('n') ?? 0) };
    },
    audit,
  );
}

/**
 * Removes inferred edges asserted by one resolver `source` (optionally only one `rule`), and
 * nothing else: observed edges (a provider's) and declared ones (a principal's) are never matched,
 * whatever their source says. `exceptTag` keeps the edges a resolver run just (re)asserted, so a
 * run withdraws exactly what it no longer infers; `idPrefixes` confines it to edges whose both ends
 * lie under one of the prefixes.
 */
export async function withdrawInferredEdges(
  driver: Driver,
  options: {
    source: string;
    rule?: string | null;
    exceptTag?: string | null;
    idPrefixes?: readonly string[] | null;
    /** Only edges with at least one end among these ids (an incremental run's affected resources). */
    touching?: readonly string[] | null;
  },
): Promise<{ withdrawn: number }> {
  if (options.source.trim() === '') throw new Error('withdrawInferredEdges: source must not be empty');
  const { records } = await driver.executeQuery(
    `MATCH (a:Resource)-[e]->(b:Resource)
     WHERE e.provenance = 'inferred' AND e.source = $source
       AND ($rule IS NULL OR e.rule = $rule)
       AND ($except IS NULL OR coalesce(e.updateTag, '') <> $except)
       AND ($prefixes IS NULL OR (any(p IN $prefixes WHERE a.id STARTS WITH p) AND any(p IN $prefixes WHERE b.id STARTS WITH p)))
       AND ($touching IS NULL OR a.id IN $touching OR b.id IN $touching)
     DELETE e
     RETURN count(*) AS n`,
    {
      source: options.source,
      rule: options.rule ?? null,
      except: options.exceptTag ?? null,
      prefixes: options.idPrefixes ? [...options.idPrefixes] : null,
      touching: options.touching ? [...options.touching] : null,
    },
  );
  return { withdrawn: Number(records[0]?.get('n') ?? 0) };
}
