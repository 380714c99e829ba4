import {
  type EdgeInput,
  type Kind,
  KIND_LABELS,
  RELATIONSHIP_TYPES,
  type RelationshipType,
  type ResourceInput,
} from '../../model/index.js';
import { attributeProperties } from '../resources/attributes.js';
import { observedResourceSet, providerAttrKeys } from '../resources/upsert.js';

/**
 * The two statements of a load pass, per kind and batch, and their parameters. Labels and types
 * come from closed lists (KIND_LABELS, RELATIONSHIP_TYPES), never from input.
 *
 * `merge` (Cartography's shape): MERGE each resource with every rule of a resource seen again (kind
 * fixed, lifecycle, attribute keys, state change returned), then its outgoing edges in a CALL
 * branch per type, MERGEd on (provenance, source).
 *
 * `create`: for ids the pass read as absent a moment before. What those rules give a new resource,
 * in one CREATE; then the batch's edges, which cannot exist yet, CREATEd in the pass's lock order
 * ({@link lockOrder}). That order is what lets two batches run at once: both lock their shared
 * targets in the same order, so they wait for each other instead of deadlocking.
 */

/** A resource and the outgoing edges (targets already checked) written in its statement. */
export interface PassRow {
  resource: ResourceInput;
  edges: EdgeInput[];
}

/** `create` for a batch of ids read as absent a moment ago, `merge` for the rest. */
export type WriteMode = 'merge' | 'create';

/** What a batch sends: its statement (picked by the edge types present) and parameters. */
export interface PreparedBatch {
  cypher: () => string;
  params: Record<string, unknown>;
}

const cyphers = new Map<string, string>();
const cached = (key: string, build: () => string) => () =>
  cyphers.get(key) ?? (cyphers.set(key, build()), cyphers.get(key)!);
const present = (set: Set<RelationshipType>) => RELATIONSHIP_TYPES.filter((t) => set.has(t));

/** A row's own fields; nulls left out (a missing key reads as null). */
function nodeParams(r: ResourceInput): Record<string, unknown> {
  const p: Record<string, unknown> = { id: r.id, provider: r.provider, name: r.name, state: r.state };
  if (r.rawState != null) p.rawState = r.rawState;
  if (r.lifecycle != null) p.lifecycle = r.lifecycle;
  p.attrs = attributeProperties(r.attributes);
  p.attrKeys = providerAttrKeys(r);
  return p;
}

/** Compact: the edge shares the batch's (provenance, source) and has no rule, confidence or evidence. */
const compactIn = (e: EdgeInput, first: EdgeInput | undefined) =>
  e.provenance === first?.provenance &&
  e.source === first.source &&
  e.rule == null &&
  e.confidence == null &&
  e.evidence == null;

function mergeBranch(t: RelationshipType, compact: boolean): string {
  const [list, to, prov, src, rule, conf] = compact
    ? [`row.\`${t}\``, 'x', '$provenance', '$source', 'null', 'null']
    : [`row.\`${t}+\``, 'x.to', 'x.provenance', 'x.source', 'x.rule', 'x.confidence'];
  return `
      UNWIND ${list} AS x
      MATCH (b:Resource {id: ${to}})
      MERGE (r)-[e:${t} {provenance: ${prov}, source: ${src}}]->(b)
      ON CREATE SET e.firstSeen = now
      SET e.lastSeen = now, e.updateTag = $tag, e.rule = ${rule}, e.confidence = ${conf}${compact ? '' : ', e.evidence = coalesce(x.evidence, e.evidence)'}`;
}

function mergeCypher(kind: Kind, plain: readonly RelationshipType[], full: readonly RelationshipType[]): string {
  const branches = [...plain.map((t) => mergeBranch(t, true)), ...full.map((t) => mergeBranch(t, false))];
  // datetime($now) once per statement, not once per row and property. UNION ALL: the branches
  // return nothing, and UNION would hash every row (the whole row map) to drop duplicates.
  return `
    WITH datetime($now) AS now
    UNWIND $rows AS row
    MERGE (r:Resource {id: row.id})
    ON CREATE SET r.kind = $kind, r.provider = row.provider, r.firstSeen = now
    WITH now, r, row, r.state AS previous
    WHERE r.kind = $kind
    ${observedResourceSet(kind, 'now')}
    WITH now, r, row, previous
    ${branches.length > 0 ? `CALL (now, r, row) {${branches.join('\n      UNION ALL')}\n    }` : ''}
    // Only the rows whose state changed go back (what the correlator needs), not every row.
    RETURN count(*) AS written, collect(CASE WHEN previous <> row.state THEN [row.id, previous] END) AS changes`;
}

/** Merge parameters: each row with its compact edges as target lists per type, the rest as maps. */
export function mergeBatch(kind: Kind, rows: readonly PassRow[]): PreparedBatch {
  const plain = new Set<RelationshipType>();
  const full = new Set<RelationshipType>();
  const first = rows.find((r) => r.edges.length > 0)?.edges[0];
  const push = (p: Record<string, unknown>, key: string, v: unknown) =>
    ((p[key] as unknown[] | undefined) ?? (p[key] = [])).push(v);
  const params = rows.map(({ resource, edges }) => {
    const p = nodeParams(resource);
    for (const e of edges) {
      if (compactIn(e, first)) {
        push(p, e.type, e.toId);
        plain.add(e.type);
        continue;
      }
      const x: Record<string, unknown> = { to: e.toId, provenance: e.provenance, source: e.source };
      if (e.rule != null) x.rule = e.rule;
      if (e.confidence != null) x.confidence = e.confidence;
      if (e.evidence != null) x.evidence = e.evidence;
      push(p, `${e.type}+`, x);
      full.add(e.type);
    }
    return p;
  });
  const [p, f] = [present(plain), present(full)];
  const key = `merge ${kind} ${p.join(' ')} / ${f.join(' ')}`;
  return {
    cypher: cached(key, () => mergeCypher(kind, p, f)),
    params: { rows: params, provenance: first?.provenance ?? null, source: first?.source ?? null },
  };
}

function createCypher(kind: Kind, types: readonly RelationshipType[]): string {
  // An edge is [row index, target index, type] or, when not compact, [..., provenance, source, rule, confidence, evidence].
  const branches = types.map(
    (t) => `
        WITH * WHERE x[2] = '${t}'
        CREATE (r)-[:${t} {provenance: coalesce(x[3], $provenance), source: coalesce(x[4], $source),
                           firstSeen: now, lastSeen: now, updateTag: $tag, rule: x[5], confidence: x[6], evidence: x[7]}]->(b)`,
  );
  // Each target is looked up once ([b] keeps a missing one's place in the list as [null]); UNION
  // ALL as in the merge, no Distinct over the edges.
  return `
    WITH datetime($now) AS now
    UNWIND $rows AS row
    CREATE (r:Resource:${KIND_LABELS[kind]} {id: row[0], kind: $kind, provider: row[1], name: row[2], state: row[3],
      rawState: row[4], lifecycle: row[5], providerAttrKeys: row[6], firstSeen: now, lastSeen: now, updateTag: $tag})
    SET r += row[7]
    WITH now, collect(r) AS created
    ${
      branches.length > 0
        ? `CALL (now, created) {
      UNWIND $targets AS id
      OPTIONAL MATCH (b:Resource {id: id})
      WITH now, created, collect([b]) AS targets
      UNWIND $edges AS x
      WITH now, x, created[toInteger(x[0])] AS r, targets[toInteger(x[1])][0] AS b
      WHERE b IS NOT NULL
      CALL (now, x, r, b) {${branches.join('\n        UNION ALL')}
      }
    }`
        : ''
    }
    RETURN size(created) AS written, [] AS changes`;
}

/**
 * The order in which concurrent create batches lock their targets: by how many of the pass's edges
 * point at a target (`rank`), then by id. One order for the whole pass, so no two batches wait on
 * each other in a cycle; the busiest targets (a cluster every VM depends on) come last, so a batch
 * holds them only for the end of its statement.
 */
export function lockOrder(rank?: Pick<ReadonlyMap<string, number>, 'get'>): (a: string, b: string) => number {
  return (a, b) => (rank?.get(a) ?? 0) - (rank?.get(b) ?? 0) || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * Create parameters: each row as a list of the resource's fields, the distinct targets in the
 * pass's lock order (`lockOrder(rank)`, by id without a rank), and every edge of the batch in one
 * list in that order.
 */
export function createBatch(
  kind: Kind,
  rows: readonly PassRow[],
  rank?: Pick<ReadonlyMap<string, number>, 'get'>,
): PreparedBatch {
  const types = new Set<RelationshipType>();
  const first = rows.find((r) => r.edges.length > 0)?.edges[0];
  // Each target ranked once, not once per comparison (a rank is a look-up in the pass's index).
  const targets = [...new Set(rows.flatMap((r) => r.edges.map((e) => e.toId)))]
    .map((id) => ({ id, k: rank?.get(id) ?? 0 }))
    .sort((a, b) => a.k - b.k || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((t) => t.id);
  const at = new Map(targets.map((id, i) => [id, i]));
  const edges: unknown[][] = [];
  const params = rows.map(({ resource: r, edges: own }, i) => {
    for (const e of own) {
      types.add(e.type);
      const t = at.get(e.toId)!;
      edges.push(
        compactIn(e, first)
          ? [i, t, e.type]
          : [i, t, e.type, e.provenance, e.source, e.rule ?? null, e.confidence ?? null, e.evidence ?? null],
      );
    }
    // What the merge path's rules give a new resource (lifecycle active unless given), as a list:
    // no key names to encode per row.
    return [
      r.id,
      r.provider,
      r.name,
      r.state,
      r.rawState ?? null,
      r.lifecycle ?? 'active',
      providerAttrKeys(r),
      attributeProperties(r.attributes),
    ];
  });
  edges.sort((a, b) => (a[1] as number) - (b[1] as number));
  const t = present(types);
  const key = `create ${kind} ${t.join(' ')}`;
  return {
    cypher: cached(key, () => createCypher(kind, t)),
    params: { rows: params, targets, edges, provenance: first?.provenance ?? null, source: first?.source ?? null },
  };
}
