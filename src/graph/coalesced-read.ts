import type { Driver, Record as Neo4jRecord } from 'neo4j-driver';
import { readQuery } from './statements.js';

/**
 * The same read asked for by concurrent requests, sent to Neo4j as one statement. Under load most
 * of a small read's cost is per statement, not per row: the driver's session, packing and socket
 * write in this process, and Neo4j's transaction and result set (measured with 50 concurrent
 * lookups by slug: 1.5–2.5 ms of Neo4j CPU and 0.4–0.8 ms of ours per lookup one by one, 0.1–0.25
 * and ~0.05 about fourteen to a statement). Reads of one statement text and the same shared
 * parameters, asked in the same turn of the event loop, are run together as
 *
 *   UNWIND range(0, size($__rows) - 1) AS __i
 *   CALL (__i) { WITH $__rows[__i] AS __row <the statement, each per-call $p read as __row.p> }
 *   RETURN *
 *
 * and each caller gets back exactly the records its own statement would have returned, in their
 * order (the subquery runs once per row, so its ORDER BY and LIMIT stay per caller; callers with
 * the same parameters share a row). A lone caller runs its own statement unchanged, so an idle
 * service answers as before. It is a read, with readQuery's bookmarks: every caller's earlier
 * writes are visible, since it asked after they were acknowledged.
 *
 * Per-call parameters must be used before the statement's first WITH that drops `__row` from
 * scope; the others must be equal to share a statement (they become part of its key). Waiting for
 * a fuller statement was measured and dropped: at most 4 callers per statement, or at most 1–2
 * statements of a read in flight, gained nothing on bench:load (fewer req/s for the former).
 */

/** Callers per statement at most: larger groups are split (a bound on one statement's result). */
const MAX_BATCH = 200;

interface Waiter {
  params: Record<string, unknown>;
  resolve: (r: { records: Neo4jRecord[] }) => void;
  reject: (err: unknown) => void;
}

interface Pending {
  cypher: string;
  perCall: readonly string[];
  shared: Record<string, unknown>;
  waiting: Waiter[];
}

const pendingByDriver = new WeakMap<Driver, Map<string, Pending>>();
const batchedText = new Map<string, string>();

/**
 * Runs the read `cypher` with `params`, sharing one statement with concurrent callers of the same
 * text whose parameters differ only in `perCall`. Resolves like {@link readQuery}.
 */
export function coalescedRead(
  driver: Driver,
  cypher: string,
  params: Record<string, unknown>,
  perCall: readonly string[],
): Promise<{ records: Neo4jRecord[] }> {
  const shared: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) if (!perCall.includes(k)) shared[k] = v;
  const key = `${cypher}\u0000${JSON.stringify(shared)}`;
  let pending = pendingByDriver.get(driver);
  if (!pending) pendingByDriver.set(driver, (pending = new Map()));
  let group = pending.get(key);
  if (!group) {
    const created: Pending = { cypher, perCall, shared, waiting: [] };
    pending.set(key, (group = created));
    // After this turn's I/O callbacks and their promise chains: every request parsed in the same
    // turn has asked by then.
    setImmediate(() => {
      pending.delete(key);
      for (let i = 0; i < created.waiting.length; i += MAX_BATCH)
        void runGroup(driver, created, created.waiting.slice(i, i + MAX_BATCH));
    });
  }
  return new Promise((resolve, reject) => group.waiting.push({ params, resolve, reject }));
}

async function runGroup(driver: Driver, group: Pending, waiting: Waiter[]): Promise<void> {
  if (waiting.length === 1) return runAlone(driver, group.cypher, waiting[0]!);
  // Callers asking exactly the same share one row (and its records): a walk from the same host
  // asked by several agents at once is walked once.
  const rows: Record<string, unknown>[] = [];
  const rowOf: number[] = [];
  const rowByKey = new Map<string, number>();
  for (const w of waiting) {
    const row = Object.fromEntries(group.perCall.map((k) => [k, w.params[k] ?? null]));
    const key = JSON.stringify(row);
    let i = rowByKey.get(key);
    if (i === undefined) rowByKey.set(key, (i = rows.push(row) - 1));
    rowOf.push(i);
  }
  let records: Neo4jRecord[];
  try {
    ({ records } = await readQuery(driver, batchedCypher(group.cypher, group.perCall), {
      ...group.shared,
      __rows: rows,
    }));
  } catch (err) {
    // A statement error may be one caller's (a value Neo4j refuses): each asks alone, so no caller
    // gets another's error. Anything else (Neo4j unavailable) is every caller's answer.
    if (isStatementError(err)) await Promise.all(waiting.map((w) => runAlone(driver, group.cypher, w)));
    else for (const w of waiting) w.reject(err);
    return;
  }
  const byRow: Neo4jRecord[][] = rows.map(() => []);
  for (const r of records) byRow[Number(r.get('__i') as number | bigint | { toNumber(): number })]!.push(r);
  waiting.forEach((w, i) => w.resolve({ records: byRow[rowOf[i]!]!.slice() }));
}

async function runAlone(driver: Driver, cypher: string, w: Waiter): Promise<void> {
  try {
    w.resolve(await readQuery(driver, cypher, w.params));
  } catch (err) {
    w.reject(err);
  }
}

/** The shared statement for `cypher`: built once per text (texts come from code, a bounded set). */
function batchedCypher(cypher: string, perCall: readonly string[]): string {
  const cacheKey = `${perCall.join(',')}\u0000${cypher}`;
  let text = batchedText.get(cacheKey);
  if (text === undefined) {
    let inner = cypher;
    for (const p of perCall) inner = inner.replace(new RegExp(`\\$${p}\\b`, 'g'), `__row.${p}`);
    text = `UNWIND range(0, size($__rows) - 1) AS __i
CALL (__i) { WITH $__rows[__i] AS __row ${inner} }
RETURN *`;
    batchedText.set(cacheKey, text);
  }
  return text;
}

function isStatementError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('Neo.ClientError.');
}
