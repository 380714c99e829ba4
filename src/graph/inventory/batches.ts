import type { Driver } from 'neo4j-driver';
import { DEADLOCK } from '../db/guarded-driver.js';
import { type KindBatchResult, lockOrder, type PassRow, type WriteMode, writeKindBatch } from './write.js';
import type { EdgeInput, Kind } from '../../model/index.js';

/**
 * How a load pass writes one kind's rows: the new ones created in batches running side by side,
 * the known ones merged one batch at a time. Two create batches in flight take the locks of the
 * targets they share in one order for the whole pass (`lockOrder`: least shared first, then by id),
 * and new rows are grouped by their least shared target (VMs by host), so batches running together
 * rarely share a target at all.
 */

export interface PassWrite {
  batchSize: number;
  /** Create batches of one kind in flight at once. */
  concurrency: number;
  stamp: { now: string; tag: string };
  /** The pass's lock order over edge targets, and the edge counts it ranks them by. */
  order: { rank: Pick<ReadonlyMap<string, number>, 'get'>; compare: (a: string, b: string) => number };
}

/** The pass's lock order: targets ranked by how many of its inline edges point at them. */
export function lockOrderOf(inline: ReadonlyMap<string, readonly EdgeInput[]>): PassWrite['order'] {
  const rank = new Map<string, number>();
  for (const own of inline.values()) for (const e of own) rank.set(e.toId, (rank.get(e.toId) ?? 0) + 1);
  return { rank, compare: lockOrder(rank) };
}

/**
 * Writes one kind: `fresh` rows (ids read as absent) in parallel create batches, then `known` ones
 * one merge batch at a time (MERGE locks both ends of an edge it creates, in no order of ours; and
 * a repeated id, always known, applies its rows in order). A create batch that still deadlocks
 * after the driver's retries rolled back whole and is written again, alone, once the others are
 * done. Results in batch order.
 */
export async function writeKind(
  driver: Driver,
  kind: Kind,
  fresh: PassRow[],
  known: readonly PassRow[],
  pass: PassWrite,
): Promise<KindBatchResult[]> {
  const { rank } = pass.order;
  if (fresh.some((r) => r.edges.length > 0)) {
    // Each row's least target in the lock order, ranked once per row (not per comparison).
    const keyed = fresh.map((r) => {
      let [at, id] = [Infinity, ''];
      for (const e of r.edges) {
        const k = rank.get(e.toId) ?? 0;
        if (k < at || (k === at && e.toId < id)) [at, id] = [k, e.toId];
      }
      return { r, at: r.edges.length === 0 ? 0 : at, id };
    });
    keyed.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    keyed.forEach((k, i) => (fresh[i] = k.r));
  }
  const batches = (list: readonly PassRow[]) =>
    Array.from({ length: Math.ceil(list.length / pass.batchSize) }, (_, i) =>
      list.slice(i * pass.batchSize, (i + 1) * pass.batchSize),
    );
  const write = (batch: PassRow[], mode: WriteMode) => writeKindBatch(driver, kind, batch, pass.stamp, mode, rank);
  const deadlocked: number[] = [];
  const creates = batches(fresh);
  const created = await inParallel(creates, pass.concurrency, (batch, i) =>
    write(batch, 'create').catch((err: unknown) => {
      if ((err as { code?: string }).code !== DEADLOCK) throw err;
      deadlocked.push(i);
      return null;
    }),
  );
  for (const i of deadlocked) created[i] = await write(creates[i]!, 'create');
  const merged = await inParallel(batches(known), 1, (batch) => write(batch, 'merge'));
  return [...created, ...merged].filter((r): r is KindBatchResult => r !== null);
}

/**
 * `fn` over `items` with at most `limit` running at once; results in the items' order. A failure
 * starts nothing more and is thrown once those running have settled (no write outlives the call).
 */
async function inParallel<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i]!, i);
      } catch (err) {
        next = items.length;
        throw err;
      }
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, worker));
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return out;
}
