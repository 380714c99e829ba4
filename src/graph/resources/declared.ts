/**
 * Declared (`manual:`) resources: what an agent or operator declares exists (a service it
 * discovered) with its declared placement, found again by (kind, name, runsOn), and removed.
 */
import {
  type Attributes,
  type ConditionType,
  type EdgeRecord,
  type Kind,
  KIND_LABELS,
  type ResourceRecord,
} from '../../model/index.js';
import { type AuditInput, writeWithAudit } from '../audit.js';
import { resolveConditionsTx } from '../conditions.js';
import { mergeEdgeTx } from '../edges.js';
import { attributeProperties } from './attributes.js';
import { resourceFromProperties } from './read.js';
import type { Driver } from 'neo4j-driver';

/** A resource an agent or operator declares (e.g. a service it discovered), with its placement. */
export interface DeclaredResourceInput {
  kind: Kind;
  name: string;
  /** What it runs on, by id; declared placement, kept apart from what providers observe. */
  runsOnId: string | null;
  /** Descriptive attributes only (the service checks them). */
  attributes: Attributes;
  declaredBy: string;
  evidence: string | null;
  at: string;
}

/**
 * The `manual:` resource already declared for (kind, name, runsOn), if any: declarations are
 * idempotent on that triple, whatever id they got.
 */
export async function findDeclaredResource(
  driver: Driver,
  key: { kind: Kind; name: string; runsOnId: string | null },
): Promise<ResourceRecord | null> {
  const { records } = await driver.executeQuery(
    `MATCH (r:Resource {name: $name}) USING INDEX r:Resource(name) WHERE r.kind = $kind AND r.provider = 'manual'
       AND CASE WHEN $runsOn IS NULL THEN NOT EXISTS { (r)-[:RUNS_ON]->() }
                ELSE EXISTS { (r)-[:RUNS_ON]->(:Resource {id: $runsOn}) } END
     RETURN properties(r) AS p ORDER BY r.id LIMIT 1`,
    { kind: key.kind, name: key.name, runsOn: key.runsOnId },
    { routing: 'READ' },
  );
  return records[0] ? resourceFromProperties(records[0].get('p')) : null;
}

/**
 * Creates (or refreshes) a declared `manual:` resource and its declared RUNS_ON edge in one
 * transaction: provenance `declared`, who declared it and the evidence on the node and the edge.
 */
export async function declareManualResource(
  driver: Driver,
  id: string,
  input: DeclaredResourceInput,
  audit?: () => AuditInput,
): Promise<{ resource: ResourceRecord; created: boolean; relationship: EdgeRecord | null }> {
  const label = KIND_LABELS[input.kind];
  return writeWithAudit(
    driver,
    async (tx) => {
      const res = await tx.run(
        `MERGE (r:Resource {id: $id})
         ON CREATE SET r:${label}, r.isNew = true, r.kind = $kind, r.provider = 'manual', r.name = $name,
           r.state = 'unknown', r.lifecycle = 'active', r.provenance = 'declared', r.declaredBy = $by,
           r.firstSeen = datetime($at)
         SET r += $attrs, r.evidence = $evidence, r.lastSeen = datetime($at)
         WITH r, coalesce(r.isNew, false) AS created
         REMOVE r.isNew
         RETURN properties(r) AS p, created`,
        {
          id,
          kind: input.kind,
          name: input.name,
          by: input.declaredBy,
          evidence: input.evidence,
          at: input.at,
          attrs: attributeProperties(input.attributes),
        },
      );
      const rec = res.records[0]!;
      const edge = input.runsOnId
        ? await mergeEdgeTx(
            tx,
            {
              type: 'RUNS_ON',
              fromId: id,
              toId: input.runsOnId,
              provenance: 'declared',
              source: input.declaredBy,
              evidence: input.evidence,
            },
            input.at,
          )
        : null;
      return {
        resource: resourceFromProperties(rec.get('p')),
        created: Boolean(rec.get('created')),
        relationship: edge?.relationship ?? null,
      };
    },
    audit,
  );
}

/** What removing a declared resource did. */
export interface DeclaredRemoval {
  /** Edges that went with it (its placement, and what others declared on it). */
  edges: number;
  /** Its open conditions, resolved (they stay as history). */
  resolvedConditions: number;
}

/**
 * Removes a declared (`manual:`) resource in one transaction: its open conditions are resolved
 * (kept as history, reported on the feed), then the node and its edges go. Provider resources are
 * never deleted (null), nor one that still has checks (their ids are returned: remove them first,
 * or the scheduler would keep probing something that no longer exists).
 */
export async function removeDeclaredResource(
  driver: Driver,
  id: string,
  removal: { by: string; at: string },
  audit?: () => AuditInput,
): Promise<{ removed: DeclaredRemoval } | { checks: string[] } | null> {
  return writeWithAudit(
    driver,
    async (tx): Promise<{ removed: DeclaredRemoval } | { checks: string[] } | null> => {
      const found = await tx.run(
        `MATCH (r:Resource {id: $id}) WHERE r.provider = 'manual'
         SET r.removing = true REMOVE r.removing
         RETURN [(k:Check)-[:CHECKS]->(r) | k.id] AS checks,
                [(c:Condition {status: 'open'})-[:CONDITION_OF]->(r) | c.type] AS open`,
        { id },
      );
      const rec = found.records[0];
      if (!rec) return null;
      const checks = (rec.get('checks') as string[]).sort();
      if (checks.length > 0) return { checks };
      const resolved = await resolveConditionsTx(
        tx,
        (rec.get('open') as ConditionType[]).map((type) => ({
          resourceId: id,
          type,
          evidence: { reason: `resource removed by ${removal.by}` },
          at: removal.at,
        })),
      );
      const gone = await tx.run(
        `MATCH (r:Resource {id: $id}) OPTIONAL MATCH (r)-[e]-(:Resource)
         WITH r, count(e) AS edges DETACH DELETE r RETURN edges`,
        { id },
      );
      return { removed: { edges: Number(gone.records[0]?.get('edges') ?? 0), resolvedConditions: resolved.length } };
    },
    // Only a removal is an effect to audit with; the refusals are audited by the caller.
    (result) => (result && 'removed' in result ? (audit?.() ?? null) : null),
  );
}
