import type { Driver } from 'neo4j-driver';
import { kindsOf, refuseEdge, upsertEdges } from '../graph/edges.js';
import { LOAD_ORDER, type PassRow } from '../graph/inventory/write.js';
import { clearAttributes } from '../graph/resources/attributes.js';
import { markUnseenResourcesMissing, refreshEdgeStaleness } from '../graph/resources/staleness.js';
import { refuseKindChanges } from '../graph/resources/upsert.js';
import {
  badInput,
  checkResourceInput,
  describeZodIssues,
  type EdgeInput,
  groupBy,
  type Kind,
  RELATIONSHIP_TYPES,
  type ResourceInput,
} from '../model/index.js';
import { lockOrderOf, type PassWrite, writeKind } from '../graph/inventory/batches.js';
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
  /** Batches of new resources of one kind in flight at once. Default 2. */
  concurrency?: number;
}

/** Validates every row before anything is written: the fast check, and zod's message for a bad row. */
function validated(rows: readonly InventoryRow[]): ResourceInput[] {
  return rows.map((r, i) => {
    const checked = checkResourceInput(r.resource);
    if (!checked.ok) throw badInput(`resources[${i}]`, describeZodIssues(checked.issues));
    return checked.data;
  });
}

/**
 * Which edges ride in their source's statement: the source is in this pass and the target comes
 * earlier in LOAD_ORDER (or already exists outside the pass). Their endpoint kinds are checked in
 * memory from the pass's own rows; only targets outside the pass are read. The rest (a source
 * outside the pass, a target written later) go through upsertEdges after the resources.
 */
async function planEdges(
  driver: Driver,
  passKinds: Map<string, Kind>,
  edges: readonly EdgeInput[],
  skip: (e: EdgeInput, reason: string) => void,
): Promise<{ inline: Map<string, EdgeInput[]>; deferred: EdgeInput[] }> {
  const rank = (k: Kind) => LOAD_ORDER.indexOf(k);
  const candidates: EdgeInput[] = [];
  const deferred: EdgeInput[] = [];
  const outside = new Set<string>();
  for (const e of edges) {
    if (!(RELATIONSHIP_TYPES as readonly string[]).includes(e.type))
      throw new Error(`not a relationship type: ${e.type}`);
    const from = passKinds.get(e.fromId);
    const to = passKinds.get(e.toId);
    if (from && (to === undefined || rank(to) < rank(from))) {
      candidates.push(e);
      if (to === undefined) outside.add(e.toId);
    } else deferred.push(e);
  }
  const kinds = outside.size > 0 ? await kindsOf(driver, [...outside]) : new Map<string, Kind>();
  for (const [id, k] of passKinds) kinds.set(id, k);
  const inline = new Map<string, EdgeInput[]>();
  for (const e of candidates) {
    const reason = refuseEdge(e, kinds);
    if (reason) skip(e, reason);
    else (inline.get(e.fromId) ?? inline.set(e.fromId, []).get(e.fromId)!).push(e);
  }
  return { inline, deferred };
}

/**
 * Loads a pass: one statement per kind and batch (parents first) that merges the resources and
 * their outgoing edges together, stamped with the sync's update tag; then attributes the source
 * stopped reporting, then the few edges that could not ride along. Rows are validated and kind
 * changes refused before anything is written; edges with a missing endpoint or a refused kind pair
 * are skipped into the report. Counts, state changes and skips are added to `report`.
 */
export async function loadInventory(
  driver: Driver,
  rows: InventoryRow[],
  edges: EdgeInput[],
  options: LoadOptions,
  report: IngestReport,
): Promise<void> {
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 1000));
  const resources = validated(rows);
  // Which ids are stored (and none changes kind) is read while the edges are planned here.
  const reading = (async () => {
    const stored = new Set<string>();
    for (let i = 0; i < resources.length; i += 20_000)
      for (const id of await refuseKindChanges(driver, resources.slice(i, i + 20_000))) stored.add(id);
    return stored;
  })();
  const passKinds = new Map<string, Kind>();
  const repeated = new Set<string>();
  for (const r of resources) {
    if (passKinds.has(r.id)) repeated.add(r.id);
    else passKinds.set(r.id, r.kind);
  }
  const skipped: IngestReport['skipped'] = [];
  const skipInto = (list: IngestReport['skipped']) => (e: EdgeInput, reason: string) =>
    list.push({ what: 'edge', id: `${e.type} ${e.fromId} -> ${e.toId}`, reason });
  const [stored, { inline, deferred }] = await Promise.all([
    reading,
    planEdges(driver, passKinds, edges, skipInto(skipped)),
  ]);
  // Recorded once the pass goes ahead (a refused kind change records nothing).
  report.skipped.push(...skipped);
  const skip = skipInto(report.skipped);

  const byKind = groupBy(resources, (r) => r.kind);
  const pass: PassWrite = {
    batchSize,
    concurrency: Math.max(1, Math.floor(options.concurrency ?? 2)),
    stamp: { now: options.observedAt, tag: options.updateTag },
    order: lockOrderOf(inline),
  };
  for (const kind of LOAD_ORDER) {
    const fresh: PassRow[] = [];
    const known: PassRow[] = [];
    for (const resource of byKind.get(kind) ?? []) {
      const own = inline.get(resource.id) ?? [];
      inline.delete(resource.id); // a repeated id carries its edges once
      (stored.has(resource.id) || repeated.has(resource.id) ? known : fresh).push({ resource, edges: own });
    }
    const results = await writeKind(driver, kind, fresh, known, pass);
    for (const res of results) {
      report.resources.written += res.written;
      report.resources.created += res.created;
      report.stateChanges.push(...res.changes);
      report.edges.written += res.edgesWritten;
      report.edges.created += res.edgesCreated;
    }
  }

  await clearAttributes(
    driver,
    rows.map((r) => ({ id: r.resource.id, keys: r.clear })),
    { batchSize },
  );
  for (let i = 0; i < deferred.length; i += batchSize * 5) {
    const res = await upsertEdges(driver, deferred.slice(i, i + batchSize * 5), {
      updateTag: options.updateTag,
      observedAt: options.observedAt,
      batchSize,
    });
    report.edges.written += res.written;
    report.edges.created += res.created;
    for (const s of res.skipped) skip(s.edge, s.reason);
  }
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
