/**
 * The reference loader for bench:ingest: Cartography's load() statement shape, as issue 18 quotes
 * it, for the same synthetic rows: per label and batch, `MERGE (i:Label {id}) ON CREATE SET
 * i.firstseen = timestamp() SET i += item.props` then a CALL branch per relationship (OPTIONAL
 * MATCH of the target by id, MERGE, `SET r.lastupdated = $tag`), parents first, returning nothing.
 * Its own labels, each with a uniqueness constraint on id as Cartography creates; no aitia
 * bookkeeping. Labels and types are constants here, never input.
 */
import type { Driver } from 'neo4j-driver';

export interface ReferenceItem {
  id: string;
  props: Record<string, unknown>;
  /** Target ids by relationship key (see RELS). */
  [target: string]: unknown;
}

/** Per label: the relationships each item carries, as [item key, type, target label]. */
export const REFERENCE_LABELS = {
  RefCluster: [],
  RefHost: [['cluster_id', 'MEMBER_OF', 'RefCluster']],
  RefGuest: [
    ['host_id', 'RUNS_ON', 'RefHost'],
    ['cluster_id', 'DEPENDS_ON', 'RefCluster'],
  ],
  RefService: [
    ['guest_id', 'RUNS_ON', 'RefGuest'],
    ['dep_guest_id', 'DEPENDS_ON', 'RefGuest'],
    ['host_id', 'DEPENDS_ON', 'RefHost'],
  ],
} as const satisfies Record<string, ReadonlyArray<readonly [string, string, string]>>;
export type ReferenceLabel = keyof typeof REFERENCE_LABELS;

function statement(label: ReferenceLabel): string {
  const branches = REFERENCE_LABELS[label].map(
    ([key, type, target]) => `
    OPTIONAL MATCH (j:${target} {id: item.${key}})
    WITH i, item, j WHERE j IS NOT NULL
    MERGE (i)-[r:${type}]->(j)
    SET r.lastupdated = $tag`,
  );
  return `
  UNWIND $rows AS item
  MERGE (i:${label} {id: item.id})
  ON CREATE SET i.firstseen = timestamp()
  SET i += item.props, i.lastupdated = $tag
  ${branches.length > 0 ? `WITH i, item\n  CALL (i, item) {${branches.join('\n    UNION')}\n  }` : ''}`;
}

export async function createReferenceConstraints(driver: Driver): Promise<void> {
  for (const label of Object.keys(REFERENCE_LABELS))
    await driver.executeQuery(
      `CREATE CONSTRAINT bench_ref_${label.toLowerCase()}_id IF NOT EXISTS FOR (n:${label}) REQUIRE n.id IS UNIQUE`,
    );
}

/** Loads items parents first in batches, as they come; returns what Neo4j counted as created. */
export async function loadReference(
  driver: Driver,
  items: ReadonlyMap<ReferenceLabel, Iterable<ReferenceItem>>,
  batchSize: number,
  tag: string,
): Promise<{ nodes: number; relationships: number }> {
  const created = { nodes: 0, relationships: 0 };
  for (const label of Object.keys(REFERENCE_LABELS) as ReferenceLabel[]) {
    const cypher = statement(label);
    let rows: ReferenceItem[] = [];
    const write = async () => {
      const res = await driver.executeQuery(cypher, { rows, tag });
      rows = [];
      const c = res.summary.counters.updates();
      created.nodes += c.nodesCreated;
      created.relationships += c.relationshipsCreated;
    };
    // Batch by batch from the items as they come, as aitia's loader does.
    for (const item of items.get(label) ?? []) {
      rows.push(item);
      if (rows.length >= batchSize) await write();
    }
    if (rows.length > 0) await write();
  }
  return created;
}

/** Removes every reference node and its relationships, in bounded transactions. */
export async function wipeReference(driver: Driver): Promise<void> {
  const session = driver.session();
  try {
    await session.run(
      `MATCH (n) WHERE n:RefCluster OR n:RefHost OR n:RefGuest OR n:RefService
       CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS`,
    );
  } finally {
    await session.close();
  }
}
