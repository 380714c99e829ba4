import { badInput, type Kind, providerOfId, type RelationshipType, type ResourceRecord } from '../model/index.js';
import type { Driver } from 'neo4j-driver';
import { identityResource, resourceFromProperties } from './resources/read.js';
import { coalescedRead } from './db/coalesced-read.js';
import { toPlain } from './db/statements.js';

/** Edge types along which failure propagates: what runs on, is stored on, depends on or belongs to X. */
export const IMPACT_TYPES = [
  'DEPENDS_ON',
  'RUNS_ON',
  'STORED_ON',
  'MEMBER_OF',
] as const satisfies readonly RelationshipType[];

export const MIN_DEPTH = 1;
export const MAX_DEPTH = 10;

/**
 * Cypher cannot take a path-length bound as a parameter, so the bound is picked from this fixed
 * table of literals; anything outside 1..10 is refused before a query is built.
 */
const DEPTH_LITERALS: Readonly<Record<number, string>> = Object.fromEntries(
  Array.from({ length: MAX_DEPTH }, (_, i) => [i + 1, `{1,${i + 1}}`]),
);

export function depthQuantifier(maxDepth: number): string {
  const q = Number.isInteger(maxDepth) ? DEPTH_LITERALS[maxDepth] : undefined;
  if (!q) throw badInput('maxDepth', `must be an integer from ${MIN_DEPTH} to ${MAX_DEPTH}, got ${maxDepth}`);
  return q;
}

/**
 * The quantified hop pattern of a traversal. Each hop goes from a (nearer the start) to b. Impact
 * edges are followed against their direction for dependents and along it for dependencies;
 * MANIFESTS_AS (one real thing seen by two providers) either way, so a Proxmox VM's blast radius
 * reaches the nested ESXi host it is, and that host's VMs.
 */
export function impactHops(direction: 'dependents' | 'dependencies', quantifier: string): string {
  const types = [...IMPACT_TYPES, 'MANIFESTS_AS'].join('|');
  const along = direction === 'dependents' ? 'startNode(r) = b' : 'startNode(r) = a';
  // Stale edges (a complete sync no longer saw them, e.g. a VM's old host) carry no impact.
  return `((a)-[r:${types}]-(b) WHERE r.missingSince IS NULL AND (type(r) = 'MANIFESTS_AS' OR ${along}))${quantifier}`;
}

/** One step of a path: the edge type and the resource it reaches. */
export interface PathStep {
  type: RelationshipType;
  id: string;
  name: string;
  kind: Kind;
}

export interface Reached {
  resource: ResourceRecord;
  depth: number;
  /** One shortest path from the start to this resource (start excluded); empty when not asked for. */
  path: PathStep[];
}

/**
 * What a walk sends back. `resources: 'identity'` reads only id, kind and name of each reached
 * resource (its provider is its id's prefix; the other fields of its record are placeholders): for
 * a caller that asked for nothing else, it saves Neo4j and the driver the work of every other
 * property of every resource reached.
 */
export interface TraverseView {
  resources: 'full' | 'identity';
  path: boolean;
}

export const FULL_VIEW: TraverseView = { resources: 'full', path: true };

// A list, not a map: the driver decodes no keys (a walk may reach thousands of resources). The
// row is flat ([id, kind, name, depth, path] or [properties, depth, path]): no list inside a list;
// identity without paths is a string (rowOf).
const READ: Record<TraverseView['resources'], string> = { full: 'properties(n)', identity: 'n.id, n.kind, n.name' };
const PATH = `[i IN range(0, length(p) - 1) | {type: type(relationships(p)[i]), id: nodes(p)[i + 1].id,
              name: nodes(p)[i + 1].name, kind: nodes(p)[i + 1].kind}]`;

/**
 * One reached resource's row. Identity without paths, the commonest walk (an agent's blast
 * radius): one string, `kind depth id name`, which the driver decodes at about half the CPU of
 * the five-item list (one string instead of three and a list); kinds and ids have no whitespace
 * (the model refuses it), so the name is all that follows the third space.
 */
function rowOf(view: TraverseView, depth: string): string {
  if (view.resources === 'identity' && !view.path)
    return `n.kind + ' ' + toString(${depth}) + ' ' + n.id + ' ' + coalesce(n.name, '')`;
  return `[${READ[view.resources]}, ${depth}, ${view.path ? PATH : '[]'}]`;
}

/**
 * The statement of a walk: the start's properties and one row per resource reached. With paths,
 * one shortest path each (ANY SHORTEST over the hops of {@link impactHops}). Without, the depth
 * alone, by a breadth-first expansion of the impact edges in the walk's direction, which Neo4j
 * runs as a pruning BFS at ~60 % of the shortest-path search's CPU (bench:load's host walks:
 * 1.3–1.8 vs 2.0–3.4 ms) — but it cannot follow MANIFESTS_AS either way. So it stands only when
 * no MANIFESTS_AS edge leaves the start or any resource it reached short of maxDepth (where a
 * walk could take one): then no walk path has one and both searches reach the same resources at
 * the same depths. Otherwise the shortest-path search answers.
 */
function walkCypher(direction: 'dependents' | 'dependencies', maxDepth: number, view: TraverseView): string {
  const hops = impactHops(direction, depthQuantifier(maxDepth));
  const shortest = `COLLECT {
       MATCH p = ANY SHORTEST (x)${hops}(n)
       WHERE n <> x
       RETURN ${rowOf(view, 'length(p)')}
     }`;
  // The far end is left unlabelled: only resources carry impact edges, and a label there makes
  // the planner try a shortest path into every resource in the graph instead of expanding from x.
  if (view.path) return `MATCH (x:Resource {id: $id}) RETURN properties(x) AS root, ${shortest} AS reached`;
  const [left, right] = direction === 'dependents' ? ['<-', '-'] : ['-', '->'];
  // Any MANIFESTS_AS edge, stale or not: a degree look-up per resource, where reading each edge's
  // missingSince cost the walk ~60 % more db hits (a stale one only sends it the long way).
  const twin = (node: string) => `EXISTS { (${node})-[:MANIFESTS_AS]-() }`;
  return `MATCH (x:Resource {id: $id})
     CALL (x) {
       MATCH p = (x)${left}[rs:${IMPACT_TYPES.join('|')}*1..${maxDepth}]${right}(n)
       WHERE n <> x AND all(r IN rs WHERE r.missingSince IS NULL)
       WITH n, min(length(p)) AS depth
       RETURN collect(${rowOf(view, 'depth')}) AS along,
              any(m IN collect(CASE WHEN depth < ${maxDepth} THEN n END) WHERE ${twin('m')}) AS twins
     }
     RETURN properties(x) AS root, CASE WHEN twins OR ${twin('x')} THEN ${shortest} ELSE along END AS reached`;
}

/**
 * Everything reached from `id` within `maxDepth` hops over the impact edges (and MANIFESTS_AS),
 * each with its depth and one shortest path, nearest first; and the start itself (null when no
 * resource has that id) — one statement. `dependents` walks edges backwards (who is hit if X
 * fails: the blast radius); `dependencies` walks them forwards (what X needs).
 */
export async function traverseFrom(
  driver: Driver,
  id: string,
  direction: 'dependents' | 'dependencies',
  maxDepth: number,
  view: TraverseView = FULL_VIEW,
): Promise<{ root: ResourceRecord | null; reached: Reached[] }> {
  const { records } = await coalescedRead(driver, walkCypher(direction, maxDepth, view), { id }, ['id']);
  const found = records[0];
  if (!found) return { root: null, reached: [] };
  const rows = found.get('reached') as (unknown[] | string)[];
  const reached: Reached[] = rows.map((r) =>
    typeof r === 'string'
      ? identityRow(r)
      : {
          resource: recordOf(view.resources, r),
          depth: toPlain(r[r.length - 2]) as number,
          path: toPlain(r[r.length - 1]) as PathStep[],
        },
  );
  // Nearest first, then by kind, name and id: sorted here, where it costs Neo4j nothing.
  reached.sort(
    (a, b) =>
      a.depth - b.depth ||
      byText(a.resource.kind, b.resource.kind) ||
      byText(a.resource.name, b.resource.name) ||
      byText(a.resource.id, b.resource.id),
  );
  return { root: resourceFromProperties(found.get('root')), reached };
}

/** A `kind depth id name` row (see rowOf). */
function identityRow(row: string): Reached {
  const a = row.indexOf(' ');
  const b = row.indexOf(' ', a + 1);
  const c = row.indexOf(' ', b + 1);
  const id = row.slice(b + 1, c);
  return {
    resource: identityResource(id, row.slice(0, a) as Kind, row.slice(c + 1), providerOfId(id)!),
    depth: Number(row.slice(a + 1, b)),
    path: [],
  };
}

function recordOf(read: TraverseView['resources'], row: unknown[]): ResourceRecord {
  if (read === 'full') return resourceFromProperties(row[0]);
  const [id, kind, name] = row as [string, Kind, string | null];
  // The model refuses a resource whose provider is not its id's prefix.
  return identityResource(id, kind, name ?? '', providerOfId(id)!);
}

/** What a walk from `id` reaches, every field read (nothing when no resource has that id). */
export async function traverse(
  driver: Driver,
  id: string,
  direction: 'dependents' | 'dependencies',
  maxDepth: number,
): Promise<Reached[]> {
  return (await traverseFrom(driver, id, direction, maxDepth)).reached;
}

/** String order as Cypher's ORDER BY has it (UTF-16 units vs code points differ only past U+E000). */
function byText(a: string, b: string): number {
  return a === b ? 0 : a < b ? -1 : 1;
}
