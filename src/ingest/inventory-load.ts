import type { Driver } from 'neo4j-driver';
import { kindsOf, upsertEdges } from '../graph/edges.js';
import { LOAD_ORDER, type PassRow } from '../graph/inventory/write.js';
import { clearAttributes } from '../graph/resources/attributes.js';
import { markUnseenResourcesMissing, refreshEdgeStaleness } from '../graph/resources/staleness.js';
import { anyResourceBetween, refuseKindChanges } from '../graph/resources/upsert.js';
import {
  badInput,
  checkResourceInput,
  describeZodIssues,
  type EdgeInput,
  type Kind,
  RELATIONSHIP_TYPES,
  type ResourceInput,
} from '../model/index.js';
import { lockOrder } from '../graph/inventory/statements.js';
import { type PassWrite, writeKind } from '../graph/inventory/batches.js';
import { type EdgePlace, PassIndex } from './inventory-pass.js';
import type { IngestReport } from './report.js';

/** A validated resource row and the attribute keys its source owns but no longer reports. */
export interface InventoryRow {
  resource: ResourceInput;
  clear: string[];
  /** Outgoing edges of this resource (fromId is its id), streamed with it instead of held apart. */
  edges?: EdgeInput[];
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

/**
 * Batches per create lane held at once. Two keep the lanes' batches apart (rows sorted by least
 * target) and the writes as fast as eight did, and what is live stays small: peak RSS of one load
 * 150 → 133 MB at 50,000, 164 → 140 MB at 200,000 (docs/benchmarks.md).
 */
const WINDOW_BATCHES = 2;
/** Ids per kind-change read. */
const READ_CHUNK = 5_000;

function checked(r: InventoryRow, i: number): ResourceInput {
  const c = checkResourceInput(r.resource);
  if (!c.ok) throw badInput(`resources[${i}]`, describeZodIssues(c.issues));
  return c.data;
}

/**
 * Iterates `rows` once more, checking it gives as many as the first time: the loader walks a pass
 * several times (index with its edges, one walk per kind or one in all, late edges) and holds
 * none of its rows.
 */
function* again(rows: Iterable<InventoryRow>, count: number): Generator<[InventoryRow, number]> {
  let i = 0;
  for (const r of rows) yield [r, i++];
  if (i !== count)
    throw new Error(`rows: iterated again it gave ${i} rows, not ${count}: pass an array or a re-iterable source`);
}

/** Places an edge (inline, deferred or skipped into `skip`), counting inline ones per target for the lock order. */
function planner(index: PassIndex, skip: (e: EdgeInput, reason: string) => void): (e: EdgeInput) => EdgePlace {
  return (e) => {
    if (!(RELATIONSHIP_TYPES as readonly string[]).includes(e.type))
      throw new Error(`not a relationship type: ${e.type}`);
    const p = index.place(e);
    if (p.place === 'skip') skip(e, p.reason!);
    else if (p.place === 'inline') index.countTarget(e.toId);
    return p.place;
  };
}

/**
 * First walk: every row validated and indexed (id, kind, repeated), kind changes refused in
 * chunks, and the edge targets not (yet) seen in the pass collected. Nothing is written. While
 * every edge's target came before it (parents first, as provider passes list them) the rows' edges
 * are placed too, as they come: a placement depends only on the kinds of the ends, which the first
 * row of an id fixes. `deferred` is how many of them go after the resources, or null once an edge
 * came before its target (then they are placed in a walk of their own).
 */
async function indexPass(
  driver: Driver,
  rows: Iterable<InventoryRow>,
  edges: readonly EdgeInput[],
  index: PassIndex,
  plan: (e: EdgeInput) => EdgePlace,
): Promise<{ count: number; clears: boolean; kinds: Set<Kind>; ordered: boolean; deferred: number | null }> {
  const unseen = new Set<string>();
  const kinds = new Set<Kind>();
  let chunk: ResourceInput[] = [];
  let [min, max] = ['', ''];
  let count = 0;
  let clears = false;
  let [ordered, last] = [true, 0];
  let deferred: number | null = 0;
  const refuse = async () => {
    const list = chunk;
    chunk = [];
    // No stored id between the chunk's least and greatest (a new scope's first pass): none of its
    // ids is stored and none can change kind; one index range probe instead of every id's seek.
    if (!(await anyResourceBetween(driver, min, max))) return;
    for (const id of await refuseKindChanges(driver, list)) index.markStored(id);
  };
  for (const r of rows) {
    const resource = checked(r, count);
    if (index.add(resource.id, resource.kind)) {
      if (chunk.length === 0) [min, max] = [resource.id, resource.id];
      else if (resource.id < min) min = resource.id;
      else if (resource.id > max) max = resource.id;
      chunk.push(resource);
    }
    (r.edges ?? []).forEach((e, j) => {
      if (e.fromId !== resource.id)
        throw badInput(`resources[${count}].edges[${j}].fromId`, `must be the resource's id ${resource.id}`);
      if (!index.has(e.toId)) {
        unseen.add(e.toId);
        deferred = null;
      } else if (deferred !== null && plan(e) === 'deferred') deferred++;
    });
    count++;
    clears ||= r.clear.length > 0;
    kinds.add(resource.kind);
    const rank = LOAD_ORDER.indexOf(resource.kind);
    [ordered, last] = [ordered && rank >= last, rank];
    if (chunk.length >= READ_CHUNK) await refuse();
  }
  if (chunk.length > 0) await refuse();
  for (const e of edges) if (!index.has(e.toId)) unseen.add(e.toId);
  const outside = [...unseen].filter((id) => !index.has(id));
  for (let i = 0; i < outside.length; i += 20_000)
    for (const [id, k] of await kindsOf(driver, outside.slice(i, i + 20_000))) index.outside.set(id, k);
  return { count, clears, kinds, ordered, deferred };
}

/**
 * Places the loose `edges` after the rows' own. Those that ride inline are grouped by source (they
 * are held anyway).
 */
function placeLoose(
  edges: readonly EdgeInput[],
  plan: (e: EdgeInput) => EdgePlace,
): { loose: Map<string, EdgeInput[]>; looseDeferred: EdgeInput[] } {
  const loose = new Map<string, EdgeInput[]>();
  const looseDeferred: EdgeInput[] = [];
  for (const e of edges) {
    const place = plan(e);
    if (place === 'inline') (loose.get(e.fromId) ?? loose.set(e.fromId, []).get(e.fromId)!).push(e);
    else if (place === 'deferred') looseDeferred.push(e);
  }
  return { loose, looseDeferred };
}

/**
 * Loads a pass: one statement per kind and batch (parents first) that merges the resources and
 * their outgoing edges together, stamped with the sync's update tag; then attributes the source
 * stopped reporting, then the few edges that could not ride along. Rows are validated and kind
 * changes refused before anything is written; edges with a missing endpoint or a refused kind pair
 * are skipped into the report. Counts, state changes and skips are added to `report`.
 *
 * `rows` is walked several times (an array, or a source that yields the same rows each time) and
 * written a window of batches at a time: the loader holds an id per resource, not the pass's rows,
 * parameters or results. Edges may come with their source row (`row.edges`, streamed) or in
 * `edges` (held for the pass).
 */
export async function loadInventory(
  driver: Driver,
  rows: Iterable<InventoryRow>,
  edges: readonly EdgeInput[],
  options: LoadOptions,
  report: IngestReport,
): Promise<void> {
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 1000));
  const index = new PassIndex();
  const skipInto = (list: IngestReport['skipped']) => (e: EdgeInput, reason: string) =>
    list.push({ what: 'edge', id: `${e.type} ${e.fromId} -> ${e.toId}`, reason });
  const skipped: IngestReport['skipped'] = [];
  const plan = planner(index, skipInto(skipped));
  const first = await indexPass(driver, rows, edges, index, plan);
  const { count, clears, kinds, ordered } = first;
  let deferred = first.deferred;
  if (deferred === null) {
    // An edge came before its target: what the first walk placed is dropped and every edge placed
    // again, now that all ids and the outside targets' kinds are known.
    index.resetRanks();
    skipped.length = 0;
    deferred = 0;
    for (const [r] of again(rows, count)) for (const e of r.edges ?? []) if (plan(e) === 'deferred') deferred++;
  }
  const { loose, looseDeferred } = placeLoose(edges, plan);
  // Recorded once the pass goes ahead (a refused kind change records nothing).
  report.skipped.push(...skipped);
  const skip = skipInto(report.skipped);

  const ranks = { get: (id: string) => index.rank(id) };
  const pass: PassWrite = {
    batchSize,
    concurrency: Math.max(1, Math.floor(options.concurrency ?? 2)),
    stamp: { now: options.observedAt, tag: options.updateTag },
    order: { rank: ranks, compare: lockOrder(ranks) },
  };
  const window = batchSize * pass.concurrency * WINDOW_BATCHES;
  // Rows already parents first (as provider passes list them) are written in one walk, a kind's
  // last window flushed before the next kind's first row; otherwise one walk per kind present.
  for (const only of ordered ? [null] : LOAD_ORDER.filter((k) => kinds.has(k))) {
    let kind: Kind | null = null;
    let fresh: PassRow[] = [];
    let known: PassRow[] = [];
    const flush = async () => {
      if (kind === null || fresh.length + known.length === 0) return;
      const results = await writeKind(driver, kind, fresh, known, pass);
      [fresh, known] = [[], []];
      for (const res of results) {
        report.resources.written += res.written;
        report.resources.created += res.created;
        report.stateChanges.push(...res.changes);
        report.edges.written += res.edgesWritten;
        report.edges.created += res.edgesCreated;
      }
    };
    for (const [r, i] of again(rows, count)) {
      if (only !== null && r.resource.kind !== only) continue;
      const resource = checked(r, i);
      if (resource.kind !== kind) {
        if (kind !== null && LOAD_ORDER.indexOf(resource.kind) < LOAD_ORDER.indexOf(kind))
          throw new Error(`rows: iterated again they came in another order (a ${resource.kind} after a ${kind})`);
        await flush();
        kind = resource.kind;
      }
      const own = (r.edges ?? []).filter((e) => index.place(e).place === 'inline');
      const held = loose.get(resource.id);
      if (held) {
        own.push(...held);
        loose.delete(resource.id); // a repeated id carries its loose edges once
      }
      (index.known(resource.id) ? known : fresh).push({ resource, edges: own });
      if (fresh.length + known.length >= window) await flush();
    }
    await flush();
  }

  if (clears) {
    let chunk: Array<{ id: string; keys: string[] }> = [];
    const flush = async () => {
      await clearAttributes(driver, chunk, { batchSize });
      chunk = [];
    };
    for (const [r] of again(rows, count)) {
      if (r.clear.length > 0) chunk.push({ id: r.resource.id, keys: r.clear });
      if (chunk.length >= window) await flush();
    }
    await flush();
  }

  let later: EdgeInput[] = [];
  const writeLater = async () => {
    const res = await upsertEdges(driver, later, {
      updateTag: options.updateTag,
      observedAt: options.observedAt,
      batchSize,
    });
    later = [];
    report.edges.written += res.written;
    report.edges.created += res.created;
    for (const s of res.skipped) skip(s.edge, s.reason);
  };
  const defer = async (e: EdgeInput) => {
    later.push(e);
    if (later.length >= batchSize * 5) await writeLater();
  };
  if (deferred > 0)
    for (const [r] of again(rows, count))
      for (const e of r.edges ?? []) if (index.place(e).place === 'deferred') await defer(e);
  for (const e of looseDeferred) await defer(e);
  if (later.length > 0) await writeLater();
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
