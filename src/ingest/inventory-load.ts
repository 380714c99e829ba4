import type { Driver } from 'neo4j-driver';
import {
  clearAttributes,
  markUnseenResourcesMissing,
  refreshEdgeStaleness,
  upsertResources,
} from '../graph/resources.js';
import { upsertEdges } from '../graph/edges.js';
import type { EdgeInput, Kind, ResourceInput } from '../model/index.js';
import type { IngestReport } from './report.js';

/** A validated resource row and the attribute keys its source owns but no longer reports. */
export interface InventoryRow {
  resource: ResourceInput;
  clear: string[];
}

/** How one load pass stamps and batches its writes. */
export interface LoadOptions {
  updateTag: string;
  observedAt: string;
  /** Rows per UNWIND statement. Default 1000. */
  batchSize?: number;
}

/** Calls `fn` on slices of `rows`, so a very large inventory never sits in one call. */
async function inSlices<T>(rows: T[], size: number, fn: (slice: T[]) => Promise<void>): Promise<void> {
  for (let i = 0; i < rows.length; i += size) await fn(rows.slice(i, i + size));
}

/**
 * Loads rows then edges, batched with UNWIND and idempotent MERGE, each stamped with the sync's
 * update tag. Edges with a missing endpoint or a refused kind pair are skipped into the report.
 * Counts, state changes and skips are added to `report`.
 */
export async function loadInventory(
  driver: Driver,
  rows: InventoryRow[],
  edges: EdgeInput[],
  options: LoadOptions,
  report: IngestReport,
): Promise<void> {
  const batchSize = options.batchSize ?? 1000;
  const write = { updateTag: options.updateTag, observedAt: options.observedAt, batchSize };
  // Slices of a few batches: upsertResources/upsertEdges group a call's rows by kind or type in
  // memory (copying as they go) before batching, so one huge call costs more than several small ones.
  const slice = Math.max(batchSize * 5, 1000);
  await inSlices(rows, slice, async (part) => {
    const res = await upsertResources(
      driver,
      part.map((r) => r.resource),
      write,
    );
    report.resources.written += res.written;
    report.resources.created += res.created;
    report.stateChanges.push(...res.changes);
  });
  await clearAttributes(
    driver,
    rows.map((r) => ({ id: r.resource.id, keys: r.clear })),
    { batchSize },
  );
  await inSlices(edges, slice, async (part) => {
    const res = await upsertEdges(driver, part, write);
    report.edges.written += res.written;
    report.edges.created += res.created;
    for (const s of res.skipped)
      report.skipped.push({ what: 'edge', id: `${s.edge.type} ${s.edge.fromId} -> ${s.edge.toId}`, reason: s.reason });
  });
}

/**
 * Staleness, after a load: only a complete pass marks the resources of `scope` it no longer saw as
 * missing and their edges from `source` as stale; any pass refreshes the edges it did see. Counts go
 * into `report`.
 */
export async function markStaleness(
  driver: Driver,
  report: IngestReport,
  pass: { scope: string; source: string; updateTag: string; observedAt: string; kinds?: readonly Kind[] | null },
): Promise<void> {
  const { scope, source, updateTag, observedAt: at } = pass;
  const kinds = pass.kinds ? { kinds: pass.kinds } : {};
  if (report.complete) {
    const marked = await markUnseenResourcesMissing(driver, { scope, updateTag, at, ...kinds });
    report.markedMissing = marked.newlyMarked;
  }
  const edges = await refreshEdgeStaleness(driver, {
    scope,
    source,
    updateTag,
    markUnseen: report.complete,
    at,
    ...kinds,
  });
  report.edgesMarkedMissing = edges.marked;
}
