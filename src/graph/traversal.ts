import { badInput, type Kind, type RelationshipType, type ResourceRecord } from '../model/index.js';
import type { Driver } from 'neo4j-driver';
import { resourceFromProperties } from './resources.js';
import { readQuery, toPlain } from './statements.js';

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
  /** One shortest path from the start to this resource (start excluded). */
  path: PathStep[];
}

/**
 * Everything reached from `id` within `maxDepth` hops over the impact edges (and MANIFESTS_AS),
 * each with its depth and one shortest path. `dependents` walks edges backwards (who is hit if X
 * fails: the blast radius); `dependencies` walks them forwards (what X needs).
 */
export async function traverse(
  driver: Driver,
  id: string,
  direction: 'dependents' | 'dependencies',
  maxDepth: number,
): Promise<Reached[]> {
  const q = depthQuantifier(maxDepth);
  const { records } = await readQuery(
    driver,
    `MATCH (x:Resource {id: $id})
     MATCH p = ANY SHORTEST (x)${impactHops(direction, q)}(n:Resource)
     WHERE n <> x
     RETURN properties(n) AS n, length(p) AS depth,
            [i IN range(0, length(p) - 1) | {type: type(relationships(p)[i]), id: nodes(p)[i + 1].id,
              name: nodes(p)[i + 1].name, kind: nodes(p)[i + 1].kind}] AS path
     ORDER BY depth, n.kind, n.name, n.id`,
    { id },
  );
  return records.map((r) => ({
    resource: resourceFromProperties(r.get('n')),
    depth: toPlain(r.get('depth')) as number,
    path: toPlain(r.get('path')) as PathStep[],
  }));
}
