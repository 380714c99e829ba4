import type { Driver } from 'neo4j-driver';
import {
  type EdgeInput,
  type Kind,
  RELATIONSHIP_TYPES,
  type RelationshipType,
  type ResourceInput,
} from '../model/index.js';
import { attributeProperties, observedResourceSet, providerAttrKeys, type StateChange } from './resources.js';

/**
 * One load pass's write statement per kind and batch, in the shape of Cartography's loader: the
 * resources of one kind AND their outgoing edges merged in the same statement (a CALL branch per
 * edge type), parents first so every target already exists. aitia's bookkeeping rides along:
 * lifecycle, staleness marks lifted, provider attribute keys, provenance-keyed edges.
 */

/** Parents first: an edge is written inline only when its target's kind comes earlier. */
export const LOAD_ORDER: readonly Kind[] = ['cluster', 'host', 'storage', 'network', 'vm', 'lxc', 'service'];

/** A resource and the outgoing edges (targets already checked) written in its statement. */
export interface PassRow {
  resource: ResourceInput;
  edges: EdgeInput[];
}

export interface KindBatchResult {
  written: number;
  created: number;
  changes: StateChange[];
  edgesWritten: number;
  edgesCreated: number;
}

const cyphers = new Map<string, string>();

/** What a batch sends: rows, and which edge types it carries in the compact and the full form. */
export interface PreparedBatch {
  rows: Record<string, unknown>[];
  plain: RelationshipType[];
  full: RelationshipType[];
  /** The (provenance, source) every compact edge of the batch has. */
  provenance: string | null;
  source: string | null;
}

function edgeBranch(t: RelationshipType, compact: boolean): string {
  if (!(RELATIONSHIP_TYPES as readonly string[]).includes(t)) throw new Error(`not a relationship type: ${t}`);
  // Compact: a list of target ids sharing the batch's provenance and source, no rule/confidence/evidence.
  const [list, to, prov, src, rule, conf, evidence] = compact
    ? [`row.\`${t}\``, 'x', '$provenance', '$source', 'null', 'null', '']
    : [
        `row.\`${t}+\``,
        'x.to',
        'x.provenance',
        'x.source',
        'x.rule',
        'x.confidence',
        'coalesce(x.evidence, e.evidence)',
      ];
  return `
      UNWIND ${list} AS x
      MATCH (b:Resource {id: ${to}})
      MERGE (r)-[e:${t} {provenance: ${prov}, source: ${src}}]->(b)
      ON CREATE SET e.firstSeen = now
      SET e.lastSeen = now, e.updateTag = $tag, e.rule = ${rule}, e.confidence = ${conf}${evidence ? `, e.evidence = ${evidence}` : ''}`;
}

/** The statement for `kind` with one CALL branch per edge type and form present. Labels and types come from closed lists. */
function kindCypher(kind: Kind, plain: readonly RelationshipType[], full: readonly RelationshipType[]): string {
  const key = `${kind} ${plain.join(' ')} / ${full.join(' ')}`;
  const cached = cyphers.get(key);
  if (cached) return cached;
  const branches = [...plain.map((t) => edgeBranch(t, true)), ...full.map((t) => edgeBranch(t, false))];
  const edges = branches.length > 0 ? `CALL (now, r, row) {${branches.join('\n      UNION')}\n    }` : '';
  // datetime($now) once per statement, not once per row and property.
  const cypher = `
    WITH datetime($now) AS now
    UNWIND $rows AS row
    MERGE (r:Resource {id: row.id})
    ON CREATE SET r.kind = $kind, r.provider = row.provider, r.firstSeen = now
    WITH now, r, row, r.state AS previous
    WHERE r.kind = $kind
    ${observedResourceSet(kind, 'now')}
    WITH now, r, row, previous
    ${edges}
    // Only the rows whose state changed go back (what the correlator needs), not every row.
    RETURN count(*) AS written, collect(CASE WHEN previous <> row.state THEN [row.id, previous] END) AS changes`;
  cyphers.set(key, cypher);
  return cypher;
}

/** Statement parameters for one batch: nulls left out (a missing key reads as null), edges grouped by type. */
export function kindBatchParams(rows: readonly PassRow[]): PreparedBatch {
  const plain = new Set<RelationshipType>();
  const full = new Set<RelationshipType>();
  const first = rows.find((r) => r.edges.length > 0)?.edges[0];
  const [provenance, source] = first ? [first.provenance, first.source] : [null, null];
  const push = (p: Record<string, unknown>, key: string, v: unknown) =>
    ((p[key] as unknown[] | undefined) ?? (p[key] = [])).push(v);
  const params = rows.map(({ resource: r, edges }) => {
    const p: Record<string, unknown> = { id: r.id, provider: r.provider, name: r.name, state: r.state };
    if (r.rawState != null) p.rawState = r.rawState;
    if (r.lifecycle != null) p.lifecycle = r.lifecycle;
    p.attrs = attributeProperties(r.attributes);
    p.attrKeys = providerAttrKeys(r);
    for (const e of edges) {
      if (
        e.provenance === provenance &&
        e.source === source &&
        e.rule == null &&
        e.confidence == null &&
        e.evidence == null
      ) {
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
  const present = (set: Set<RelationshipType>) => RELATIONSHIP_TYPES.filter((t) => set.has(t));
  return { rows: params, plain: present(plain), full: present(full), provenance, source };
}

/** Writes one prepared batch of `kind`; creations are read from the statement's counters. */
export async function writeKindBatch(
  driver: Driver,
  kind: Kind,
  batch: readonly PassRow[],
  prepared: PreparedBatch,
  stamp: { now: string; tag: string },
): Promise<KindBatchResult> {
  const res = await driver.executeQuery(kindCypher(kind, prepared.plain, prepared.full), {
    rows: prepared.rows,
    provenance: prepared.provenance,
    source: prepared.source,
    kind,
    now: stamp.now,
    tag: stamp.tag,
  });
  const counters = res.summary.counters.updates();
  const rec = res.records[0];
  const byId = new Map<string, ResourceInput>();
  const changes: StateChange[] = [];
  for (const [id, from] of (rec?.get('changes') ?? []) as Array<[string, string]>) {
    if (byId.size === 0) for (const r of batch) byId.set(r.resource.id, r.resource);
    const row = byId.get(id)!;
    changes.push({ id, kind, from, to: row.state, rawState: row.rawState ?? null });
  }
  return {
    written: Number(rec?.get('written') ?? 0),
    created: counters.nodesCreated,
    changes,
    edgesWritten: batch.reduce((n, r) => n + r.edges.length, 0),
    edgesCreated: counters.relationshipsCreated,
  };
}
