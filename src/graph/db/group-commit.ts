import type { Driver, Record as Neo4jRecord } from 'neo4j-driver';
import { isStatementError } from './shared-statement.js';
import { num } from './statements.js';

/**
 * Group commit: the writes concurrent requests ask for, of one statement text, sent as one
 * transaction of one statement, each caller's parameters a row of
 *
 *   UNWIND range(0, size($rows) - 1) AS __i
 *   CALL (__i) { WITH $rows[__i] AS row <the write, reading its values from row> }
 *   RETURN *
 *
 * Each caller is answered with its own row's records only once that transaction has committed:
 * nothing is acknowledged that is not stored. Under load most of a small write's cost is per
 * transaction (Bolt round trips, the commit's log flush), so a gate decision record and its audit
 * line cost one row of a shared commit instead of a commit each.
 *
 * A text has at most MAX_IN_FLIGHT transactions in flight; callers arriving meanwhile wait for the
 * next one (at most MAX_BATCH rows), so an idle service writes at once (a lone caller: its own
 * transaction, one row) and a busy one writes in batches that grow with the load. A statement error
 * (a value Neo4j refuses) may be one row's: each row of that batch is then written alone, so only
 * its caller fails. Anything else (Neo4j unavailable, the audit store down) fails the batch's
 * callers; their writes did not commit. Through executeQuery's bookmark manager, like writeWithAudit:
 * reads after the answer see the write.
 */

/** Rows per transaction at most (a bound on one statement's parameters and result). */
const MAX_BATCH = 100;
/** Transactions of one text in flight at most: further callers wait for the next, fuller one. */
const MAX_IN_FLIGHT = 2;

interface Waiter {
  row: Record<string, unknown>;
  resolve: (records: Neo4jRecord[]) => void;
  reject: (err: unknown) => void;
}

interface Queue {
  text: string;
  label: string;
  waiting: Waiter[];
  inFlight: number;
  scheduled: boolean;
}

/** What one label's group commits did: for bench:load's per-operation figures. */
export interface GroupCommitStats {
  /** Transactions committed or failed (a per-row fallback counts each row's). */
  transactions: number;
  /** Rows (callers) written. */
  rows: number;
  /** Transaction attempts retried by the driver (deadlocks, transient errors). */
  retries: number;
  /** Batches that fell back to one transaction per row. */
  fallbacks: number;
}

const queuesByDriver = new WeakMap<Driver, Map<string, Queue>>();
const statsByDriver = new WeakMap<Driver, Map<string, GroupCommitStats>>();

/** The counters of every label written through `driver` so far (a copy). */
export function groupCommitStats(driver: Driver): Map<string, GroupCommitStats> {
  return new Map(
    [...(statsByDriver.get(driver) ?? new Map<string, GroupCommitStats>())].map(([k, v]) => [k, { ...v }]),
  );
}

/**
 * Writes `row` through the write `cypher` (which reads it as `row` and ends in RETURN), in one
 * transaction with concurrent callers of the same text; resolves with this row's records once
 * committed. `label` names the writes in {@link groupCommitStats}.
 */
export function groupCommit(
  driver: Driver,
  label: string,
  cypher: string,
  row: Record<string, unknown>,
): Promise<Neo4jRecord[]> {
  let queues = queuesByDriver.get(driver);
  if (!queues) queuesByDriver.set(driver, (queues = new Map()));
  let queue = queues.get(cypher);
  if (!queue)
    queues.set(cypher, (queue = { text: batchedText(cypher), label, waiting: [], inFlight: 0, scheduled: false }));
  const q = queue;
  return new Promise((resolve, reject) => {
    q.waiting.push({ row, resolve, reject });
    // After this turn: every request parsed in the same turn has asked by then.
    if (!q.scheduled && q.inFlight < MAX_IN_FLIGHT) {
      q.scheduled = true;
      setImmediate(() => {
        q.scheduled = false;
        flush(driver, q);
      });
    }
  });
}

function batchedText(cypher: string): string {
  return `UNWIND range(0, size($rows) - 1) AS __i\nCALL (__i) { WITH $rows[__i] AS row ${cypher} }\nRETURN *`;
}

function statsOf(driver: Driver, label: string): GroupCommitStats {
  let all = statsByDriver.get(driver);
  if (!all) statsByDriver.set(driver, (all = new Map()));
  let s = all.get(label);
  if (!s) all.set(label, (s = { transactions: 0, rows: 0, retries: 0, fallbacks: 0 }));
  return s;
}

function flush(driver: Driver, q: Queue): void {
  while (q.inFlight < MAX_IN_FLIGHT && q.waiting.length > 0) {
    const batch = q.waiting.splice(0, MAX_BATCH);
    q.inFlight++;
    void commitBatch(driver, q, batch).finally(() => {
      q.inFlight--;
      flush(driver, q);
    });
  }
}

/** One transaction of `rows`; the records by row. */
async function commit(driver: Driver, q: Queue, rows: Record<string, unknown>[]): Promise<Neo4jRecord[][]> {
  const stats = statsOf(driver, q.label);
  stats.transactions++;
  let attempts = 0;
  const session = driver.session({ bookmarkManager: driver.executeQueryBookmarkManager });
  try {
    const { records } = await session.executeWrite((tx) => {
      if (attempts++ > 0) stats.retries++;
      return tx.run(q.text, { rows });
    });
    stats.rows += rows.length;
    const byRow: Neo4jRecord[][] = rows.map(() => []);
    for (const r of records) byRow[num(r.get('__i') as number)]!.push(r);
    return byRow;
  } finally {
    await session.close();
  }
}

async function commitBatch(driver: Driver, q: Queue, batch: Waiter[]): Promise<void> {
  try {
    const byRow = await commit(
      driver,
      q,
      batch.map((w) => w.row),
    );
    batch.forEach((w, i) => w.resolve(byRow[i]!));
  } catch (err) {
    if (batch.length > 1 && isStatementError(err)) {
      // Whose row Neo4j refused, each finds out alone: the others commit.
      statsOf(driver, q.label).fallbacks++;
      await Promise.all(
        batch.map((w) =>
          commit(driver, q, [w.row]).then(
            (byRow) => w.resolve(byRow[0]!),
            (e: unknown) => w.reject(e),
          ),
        ),
      );
    } else for (const w of batch) w.reject(err);
  }
}
