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
import { mergeEdgeTx } from '../edges.js';
import { declaredAttributeProperties } from './attributes.js';
import { resourceFromProperties } from './read.js';
import type { Driver, ManagedTransaction } from 'neo4j-driver';

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
          attrs: declaredAttributeProperties(input.attributes, input.declaredBy, input.at),
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

/** What a declared resource's removal found, under a write lock on it: refused, or what to resolve. */
export type DeclaredRemovalPlan = { checks: string[] } | { openConditions: ConditionType[] };

/**
 * The first step of removing a declared (`manual:`) resource, inside the caller's transaction:
 * locks it and reads what stands in the way. Provider resources are never deleted (null), nor one
 * that still has checks (their ids: remove them first, or the scheduler would keep probing
 * something that no longer exists); otherwise the types of its open conditions, which the caller
 * resolves (kept as history, reported on the feed) before {@link deleteDeclaredTx}. The condition
 * write is the caller's: conditions are written from two places only (services/declared.ts runs
 * both steps in the health scheduler's condition write).
 */
export async function planDeclaredRemovalTx(tx: ManagedTransaction, id: string): Promise<DeclaredRemovalPlan | null> {
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
  return { openConditions: rec.get('open') as ConditionType[] };
}

/** The last step: the node and its edges go; returns how many edges went with it. */
export async function deleteDeclaredTx(tx: ManagedTransaction, id: string): Promise<number> {
  const gone = await tx.run(
    `MATCH (r:Resource {id: $id}) OPTIONAL MATCH (r)-[e]-(:Resource)
     WITH r, count(e) AS edges DETACH DELETE r RETURN edges`,
    { id },
  );
  return Number(gone.records[0]?.get('edges') ?? 0);
}
