import type { Driver } from 'neo4j-driver';
import type { Kind, ResourceInput } from '../../model/index.js';
import { createBatch, mergeBatch, type PassRow, type WriteMode } from './statements.js';
import type { StateChange } from '../resources/upsert.js';

export { lockOrder, type PassRow, type WriteMode } from './statements.js';

/**
 * One load pass's write per kind and batch, in the shape of Cartography's loader: the resources of
 * one kind AND their outgoing edges in the same statement, parents first so every target already
 * exists. aitia's bookkeeping rides along: lifecycle, staleness marks lifted, provider attribute
 * keys, provenance-keyed edges. The statements are in ./inventory-statements.ts.
 */

/** Parents first: an edge is written inline only when its target's kind comes earlier. */
export const LOAD_ORDER: readonly Kind[] = ['cluster', 'host', 'storage', 'network', 'vm', 'lxc', 'service'];

export interface KindBatchResult {
  written: number;
  created: number;
  changes: StateChange[];
  edgesWritten: number;
  edgesCreated: number;
}

const CONSTRAINT_FAILED = 'Neo.ClientError.Schema.ConstraintValidationFailed';

/**
 * Writes one batch of `kind`; creations are read from the statement's counters. A `create` batch
 * one of whose ids another writer created meanwhile fails on the uniqueness constraint as a whole
 * (nothing of it stays) and is written again as `merge`.
 */
export async function writeKindBatch(
  driver: Driver,
  kind: Kind,
  batch: readonly PassRow[],
  stamp: { now: string; tag: string },
  mode: WriteMode = 'merge',
  rank?: Pick<ReadonlyMap<string, number>, 'get'>,
): Promise<KindBatchResult> {
  const run = (m: WriteMode) => {
    const prepared = m === 'create' ? createBatch(kind, batch, rank) : mergeBatch(kind, batch);
    return driver.executeQuery(prepared.cypher(), { ...prepared.params, kind, now: stamp.now, tag: stamp.tag });
  };
  const res = await run(mode).catch((err: unknown) => {
    if (mode === 'create' && (err as { code?: string }).code === CONSTRAINT_FAILED) return run('merge');
    throw err;
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
