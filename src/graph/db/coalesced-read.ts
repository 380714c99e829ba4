import { type Driver, type Record as Neo4jRecord } from 'neo4j-driver';
import {
  admit,
  type Group,
  isStatementError,
  learnColumns,
  perRow,
  rowsOf,
  runShared,
  type SharedStatement,
  type Unit,
  type Waiter,
} from './shared-statement.js';
import { num, readQuery } from './statements.js';

/**
 * The reads concurrent requests ask for, sent to Neo4j as one statement per turn of the event loop.
 * Under load most of a small read's cost is per statement, not per row: the driver's session,
 * packing and socket write in this process, and Neo4j's transaction, Bolt messages and thread
 * hand-offs (measured with 50 concurrent lookups by slug: 1.5–2.5 ms of Neo4j CPU and 0.4–0.8 ms
 * of ours per lookup one by one, 0.1–0.25 and ~0.05 about fourteen to a statement). Reads of one
 * statement text and the same shared parameters, asked in the same turn, are run together as
 *
 *   UNWIND range(0, size($__rows) - 1) AS __i
 *   CALL (__i) { WITH $__rows[__i] AS __row <the statement, each per-call $p read as __row.p> }
 *   RETURN *
 *
 * and each caller gets back exactly the records its own statement would have returned, in their
 * order (the subquery runs once per row, so its ORDER BY and LIMIT stay per caller; callers with
 * the same parameters share a row). Different texts asked in the same turn (a slug look-up, a
 * walk, a transition page) go as one statement too, the shared statement: a UNION ALL with a
 * branch per member text, each returning `__u, __i, [its columns]`, each caller's records rebuilt
 * from its branch. A text becomes a member once Neo4j has named its columns (its first run), up
 * to eight (shared-statement.ts); members not asked this turn send no rows. One statement text
 * whatever the turn's mix, so one plan, compiled again only when a member joins: a plan per
 * combination of texts cost Neo4j 0.2–0.7 s to compile each, a storm under a mixed load. Three
 * texts of seven callers each cost Neo4j and this process ~30 % less CPU as one statement than as
 * three; on bench:load's read mix, 0.07 statements per request instead of 0.15 and Neo4j's CPU per
 * request down from 0.5–0.7 ms to 0.3–0.4. A lone caller runs its own statement unchanged, so an
 * idle service answers as before; one text alone runs its batched statement. It is a read, with
 * readQuery's bookmarks: every caller's earlier writes are visible, since it asked after they were
 * acknowledged.
 *
 * Per-call parameters must be used before the statement's first WITH that drops `__row` from
 * scope; the others must be equal to share a row set (they become part of its key; in the shared
 * statement each text's are renamed apart, and a second set of them runs on its own). Waiting for
 * a fuller statement was measured and dropped: at most 4 callers per statement, or at most 1–2
 * statements of a read in flight, gained nothing on bench:load (fewer req/s for the former).
 *
 * Not DataLoader (already a dependency, for the resolvers): its batch function settles every caller
 * of a turn together, from one array, while a turn here is several statements that settle on their
 * own (a lone caller's, a text's batched one, the shared one, a text not yet a member); under it
 * each caller would wait for the turn's slowest statement. And the shared statement crosses texts,
 * so it would be one loader keyed by text and parameters, with the grouping, the MAX_BATCH split,
 * the members and the per-caller retry of a refused statement all still here: what it would
 * replace is the turn's queue, a Map and a setImmediate.
 */

/** Callers per statement at most: larger sets are split (a bound on one statement's result). */
const MAX_BATCH = 200;

const pendingByDriver = new WeakMap<Driver, Map<string, Group>>();
const batchedText = new Map<string, string>();
/** One driver's shared statement (plans are Neo4j's, so per driver). */
const sharedByDriver = new WeakMap<Driver, SharedStatement>();
/** Drivers whose reads go without the shared statement (setSharedStatement). */
const unshared = new WeakSet<Driver>();

/**
 * Turns the shared statement off (or on again) for reads through `driver`: each text's callers then
 * go as their own batched statement, as before the shared statement. On unless turned off; for
 * comparing the two in one run (bench:load passes a driver with it off to a second server).
 */
export function setSharedStatement(driver: Driver, on: boolean): void {
  if (on) unshared.delete(driver);
  else unshared.add(driver);
}

/**
 * Runs the read `cypher` with `params`, sharing one statement with concurrent callers of the same
 * text whose parameters differ only in `perCall`, and with concurrent reads of other texts.
 * Resolves like {@link readQuery}.
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
  // After this turn's I/O callbacks and their promise chains: every request parsed in the same
  // turn has asked by then.
  if (pending.size === 0) setImmediate(flush, driver, pending);
  let group = pending.get(key);
  if (!group) {
    const fuseKey = `${cypher}\u0000${perCall.join(',')}\u0000${Object.keys(shared).join(',')}`;
    pending.set(key, (group = { fuseKey, cypher, perCall, shared, waiting: [] }));
  }
  const waiting = group.waiting;
  return new Promise((resolve, reject) => waiting.push({ params, resolve, reject }));
}

function flush(driver: Driver, pending: Map<string, Group>): void {
  const groups = [...pending.values()];
  pending.clear();
  const all: Unit[] = [];
  for (const group of groups)
    for (let i = 0; i < group.waiting.length; i += MAX_BATCH)
      all.push({ group, waiting: group.waiting.slice(i, i + MAX_BATCH) });
  if (unshared.has(driver)) {
    for (const unit of all) void runUnit(driver, unit);
    return;
  }
  let statement = sharedByDriver.get(driver);
  if (!statement) sharedByDriver.set(driver, (statement = { members: [], text: null }));
  admit(statement, groups);
  const { members } = statement;
  // One unit per text in the shared statement, which carries at most MAX_BATCH callers: the
  // smallest first, so one large text does not keep the others out.
  all.sort((a, b) => a.waiting.length - b.waiting.length);
  const inShared: (Unit | undefined)[] = [];
  let callers = 0;
  for (const unit of all) {
    const m = members.findIndex((x) => x.key === unit.group.fuseKey);
    if (m === -1 || inShared[m] || callers + unit.waiting.length > MAX_BATCH) void runUnit(driver, unit);
    else {
      [inShared[m], callers] = [unit, callers + unit.waiting.length];
      members[m]!.lastShared = unit.group.shared;
    }
  }
  const units = inShared.filter((u) => u !== undefined);
  if (units.length === 1) void runUnit(driver, units[0]!);
  else if (units.length > 1) void runShared(driver, statement, inShared, runUnit);
}

/** One text's callers in one statement: their own statement when alone, else the batched one. */
async function runUnit(driver: Driver, unit: Unit): Promise<void> {
  const { group, waiting } = unit;
  if (waiting.length === 1) return runAlone(driver, group.cypher, waiting[0]!);
  // Callers asking exactly the same share one row (and its records): a walk from the same host
  // asked by several agents at once is walked once.
  const { rows, rowOf } = rowsOf(unit);
  let records: Neo4jRecord[];
  try {
    let keys: readonly string[] | null;
    ({ records, keys } = await readQuery(driver, batchedCypher(group.cypher, group.perCall), {
      ...group.shared,
      __rows: rows,
    }));
    learnColumns(group.cypher, keys);
  } catch (err) {
    // A statement error may be one caller's (a value Neo4j refuses): each asks alone, so no caller
    // gets another's error. Anything else (Neo4j unavailable) is every caller's answer.
    if (isStatementError(err)) await Promise.all(waiting.map((w) => runAlone(driver, group.cypher, w)));
    else for (const w of waiting) w.reject(err);
    return;
  }
  const byRow: Neo4jRecord[][] = rows.map(() => []);
  for (const r of records) byRow[num(r.get('__i') as number)]!.push(r);
  waiting.forEach((w, i) => w.resolve({ records: byRow[rowOf[i]!]!.slice() }));
}

async function runAlone(driver: Driver, cypher: string, w: Waiter): Promise<void> {
  try {
    const { records, keys } = await readQuery(driver, cypher, w.params);
    learnColumns(cypher, keys);
    w.resolve({ records });
  } catch (err) {
    w.reject(err);
  }
}

/** The batched statement for `cypher`: built once per text (texts come from code, a bounded set). */
function batchedCypher(cypher: string, perCall: readonly string[]): string {
  const cacheKey = `${perCall.join(',')}\u0000${cypher}`;
  let text = batchedText.get(cacheKey);
  if (text === undefined) batchedText.set(cacheKey, (text = `${perRow(cypher, perCall, '$__rows')}\nRETURN *`));
  return text;
}
