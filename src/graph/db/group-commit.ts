import type { Driver, Record as Neo4jRecord } from 'neo4j-driver';
import { isStatementError } from './shared-statement.js';
import { num } from './statements.js';

/**
 * Group commit: the writes concurrent requests ask for, sent as one transaction, a statement per
 * text, each caller's parameters a row of
 *
 *   UNWIND range(0, size($rows) - 1) AS __i
 *   CALL (__i) { WITH $rows[__i] AS row <the write, reading its values from row> }
 *   RETURN *
 *
 * Each caller is answered with its own row's records only once that transaction has committed:
 * nothing is acknowledged that is not stored. Under load most of a small write's cost is per
 * transaction (Bolt round trips, the commit's log flush), so a gate decision record and its audit
 * line cost one row of a shared commit instead of a commit each; a declared edge written meanwhile
 * commits in the same transaction, by its own statement.
 *
 * A driver has at most `maxInFlight` of these transactions in flight; callers arriving meanwhile
 * wait for the next one (at most `maxBatch` rows), so an idle service writes at once (a lone caller:
 * its own transaction, one row) and a busy one in batches that grow with the load. A statement
 * error (a value Neo4j refuses) may be one row's: each row of that batch is then written alone, so
 * only its caller fails. Anything else (Neo4j unavailable, the audit store down) fails the batch's
 * callers; their writes did not commit. Through executeQuery's bookmark manager, like
 * writeWithAudit: reads after the answer see the write.
 */

/** How batches are cut: rows per transaction and transactions in flight per driver, at most. */
export interface GroupCommitBounds {
  /** A bound on one statement's parameters and result. */
  maxBatch: number;
  /** Further callers wait for the next, fuller transaction. */
  maxInFlight: number;
}

const DEFAULT_BOUNDS: GroupCommitBounds = { maxBatch: 100, maxInFlight: 2 };
let bounds: GroupCommitBounds = DEFAULT_BOUNDS;

/** Sets the bounds (bench:load compares them); no argument restores the defaults. */
export function setGroupCommitBounds(b: Partial<GroupCommitBounds> = DEFAULT_BOUNDS): void {
  const next = { ...DEFAULT_BOUNDS, ...b };
  for (const [k, v] of Object.entries(next)) {
    if (!Number.isInteger(v) || v < 1) throw new Error(`group commit ${k}: must be a whole number ≥ 1, not ${v}`);
  }
  bounds = next;
}

interface Waiter {
  text: string;
  label: string;
  row: Record<string, unknown>;
  resolve: (records: Neo4jRecord[]) => void;
  reject: (err: unknown) => void;
}

/** One driver's writes waiting for a transaction, whatever their texts. */
interface Queue {
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
  /** Wall time from opening each transaction to its commit, summed, ms. */
  commitMs: number;
}

const queues = new WeakMap<Driver, Queue>();
const statsByDriver = new WeakMap<Driver, Map<string, GroupCommitStats>>();
const batchedTexts = new Map<string, string>();

/** The counters of every label written through `driver` so far (a copy). */
export function groupCommitStats(driver: Driver): Map<string, GroupCommitStats> {
  return new Map(
    [...(statsByDriver.get(driver) ?? new Map<string, GroupCommitStats>())].map(([k, v]) => [k, { ...v }]),
  );
}

/**
 * Writes `row` through the write `cypher` (which reads it as `row` and ends in RETURN), in one
 * transaction with concurrent callers; resolves with this row's records once
 * committed. `label` names the writes in {@link groupCommitStats}.
 */
export function groupCommit(
  driver: Driver,
  label: string,
  cypher: string,
  row: Record<string, unknown>,
): Promise<Neo4jRecord[]> {
  let q = queues.get(driver);
  if (!q) queues.set(driver, (q = { waiting: [], inFlight: 0, scheduled: false }));
  let text = batchedTexts.get(cypher);
  if (text === undefined) batchedTexts.set(cypher, (text = batchedText(cypher)));
  const queue = q;
  return new Promise((resolve, reject) => {
    queue.waiting.push({ text: text!, label, row, resolve, reject });
    // After this turn: every request parsed in the same turn has asked by then.
    if (!queue.scheduled && queue.inFlight < bounds.maxInFlight) {
      queue.scheduled = true;
      setImmediate(() => {
        queue.scheduled = false;
        flush(driver, queue);
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
  if (!s) all.set(label, (s = { transactions: 0, rows: 0, retries: 0, fallbacks: 0, commitMs: 0 }));
  return s;
}

function flush(driver: Driver, q: Queue): void {
  while (q.inFlight < bounds.maxInFlight && q.waiting.length > 0) {
    const batch = q.waiting.splice(0, bounds.maxBatch);
    q.inFlight++;
    void commitBatch(driver, batch).finally(() => {
      q.inFlight--;
      flush(driver, q);
    });
  }
}

/** One transaction of `batch`: a statement per text, its rows in order; each waiter's records. */
async function commit(driver: Driver, batch: Waiter[]): Promise<Neo4jRecord[][]> {
  const byText = new Map<string, number[]>();
  batch.forEach((w, i) => {
    const at = byText.get(w.text);
    if (at) at.push(i);
    else byText.set(w.text, [i]);
  });
  const labels = [...new Set(batch.map((w) => w.label))].map((l) => statsOf(driver, l));
  for (const s of labels) s.transactions++;
  let attempts = 0;
  const started = performance.now();
  const session = driver.session({ bookmarkManager: driver.executeQueryBookmarkManager });
  try {
    const byWaiter: Neo4jRecord[][] = batch.map(() => []);
    await session.executeWrite(async (tx) => {
      if (attempts++ > 0) for (const s of labels) s.retries++;
      for (const w of byWaiter) w.length = 0;
      // Pipelined: every text's statement is sent before the first answer is awaited, so a batch of
      // two texts costs one round trip to Neo4j, not two (the driver runs them in order).
      const runs = [...byText].map(([text, members]) =>
        tx.run(text, { rows: members.map((i) => batch[i]!.row) }).then(({ records }) => {
          for (const r of records) byWaiter[members[num(r.get('__i') as number)]!]!.push(r);
        }),
      );
      const failed = (await Promise.allSettled(runs)).find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
    });
    for (const w of batch) statsOf(driver, w.label).rows++;
    return byWaiter;
  } finally {
    const ms = performance.now() - started;
    for (const s of labels) s.commitMs += ms;
    await session.close();
  }
}

async function commitBatch(driver: Driver, batch: Waiter[]): Promise<void> {
  try {
    const records = await commit(driver, batch);
    batch.forEach((w, i) => w.resolve(records[i]!));
  } catch (err) {
    if (batch.length > 1 && isStatementError(err)) {
      // Whose row Neo4j refused, each finds out alone: the others commit.
      for (const l of new Set(batch.map((w) => w.label))) statsOf(driver, l).fallbacks++;
      await Promise.all(
        batch.map((w) =>
          commit(driver, [w]).then(
            (records) => w.resolve(records[0]!),
            (e: unknown) => w.reject(e),
          ),
        ),
      );
    } else for (const w of batch) w.reject(err);
  }
}
