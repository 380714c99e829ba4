import neo4j, { type Driver, isRetryableError, Record as Neo4jRecord } from 'neo4j-driver';
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
 * commits in the same transaction.
 *
 * The batch is one auto-commit statement, one Bolt round trip (a managed transaction is two:
 * BEGIN+RUN+PULL, then COMMIT): every text written so far (up to MERGED_TEXTS, in the order first
 * written) is a `CALL` of its own reading `$rows<k>`, the texts a batch does not hold sent no rows,
 * so Neo4j plans one text whatever the batch's mix (again only when a text joins). Each text names
 * the columns its caller reads, which come back as one list per text. A batch holding a text past
 * MERGED_TEXTS is a managed transaction, a statement per text, pipelined.
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

const DEFAULT_BOUNDS: GroupCommitBounds = { maxBatch: 100, maxInFlight: 8 };
let bounds: GroupCommitBounds = DEFAULT_BOUNDS;

/** Sets the bounds (bench:load compares them); no argument restores the defaults. */
export function setGroupCommitBounds(b: Partial<GroupCommitBounds> = DEFAULT_BOUNDS): void {
  const next = { ...DEFAULT_BOUNDS, ...b };
  for (const [k, v] of Object.entries(next)) {
    if (!Number.isInteger(v) || v < 1) throw new Error(`group commit ${k}: must be a whole number ≥ 1, not ${v}`);
  }
  bounds = next;
}

/** A write text as group commit runs it: batched alone, and its place in the merged statement. */
interface WriteText {
  batched: string;
  cypher: string;
  columns: readonly string[];
  /** Its index among the merged texts; null past MERGED_TEXTS. */
  slot: number | null;
}

/** Texts the merged statement holds at most; more are planned as one statement each. */
const MERGED_TEXTS = 8;

interface Waiter {
  text: WriteText;
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
const texts = new Map<string, WriteText>();
let merged: { text: string; slots: WriteText[] } = { text: '', slots: [] };

/** The counters of every label written through `driver` so far (a copy). */
export function groupCommitStats(driver: Driver): Map<string, GroupCommitStats> {
  return new Map(
    [...(statsByDriver.get(driver) ?? new Map<string, GroupCommitStats>())].map(([k, v]) => [k, { ...v }]),
  );
}

/**
 * Writes `row` through the write `cypher` (which reads it as `row` and ends in a RETURN of
 * `columns`, by those names), in one transaction with concurrent callers; resolves with this row's
 * records once committed. `label` names the writes in {@link groupCommitStats}.
 */
export function groupCommit(
  driver: Driver,
  label: string,
  cypher: string,
  row: Record<string, unknown>,
  columns: readonly string[],
): Promise<Neo4jRecord[]> {
  let q = queues.get(driver);
  if (!q) queues.set(driver, (q = { waiting: [], inFlight: 0, scheduled: false }));
  const text = writeText(cypher, columns);
  const queue = q;
  return new Promise((resolve, reject) => {
    queue.waiting.push({ text, label, row, resolve, reject });
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

function writeText(cypher: string, columns: readonly string[]): WriteText {
  const known = texts.get(cypher);
  if (known) return known;
  for (const c of columns) {
    if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(c)) throw new Error(`group commit column ${JSON.stringify(c)}: not a name`);
  }
  const slot = merged.slots.length < MERGED_TEXTS ? merged.slots.length : null;
  const text: WriteText = {
    batched: `UNWIND range(0, size($rows) - 1) AS __i\nCALL (__i) { WITH $rows[__i] AS row ${cypher} }\nRETURN *`,
    cypher,
    columns: [...columns],
    slot,
  };
  texts.set(cypher, text);
  if (slot !== null) {
    const slots = [...merged.slots, text];
    merged = { slots, text: mergedText(slots) };
  }
  return text;
}

/** Every merged text's `CALL`, each answering its rows' columns as `[[i, [values]], …]` in `__r<k>`. */
function mergedText(slots: readonly WriteText[]): string {
  const calls = slots.map(
    (t, k) => `CALL () {
  UNWIND range(0, size($rows${k}) - 1) AS __i
  CALL (__i) { WITH $rows${k}[__i] AS row ${t.cypher} }
  RETURN collect([__i, [${t.columns.join(', ')}]]) AS __r${k}
}`,
  );
  return `${calls.join('\n')}\nRETURN ${slots.map((_, k) => `__r${k}`).join(', ')}`;
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

/** One transaction of `batch`: each waiter's records. */
async function commit(driver: Driver, batch: Waiter[]): Promise<Neo4jRecord[][]> {
  const labels = [...new Set(batch.map((w) => w.label))].map((l) => statsOf(driver, l));
  for (const s of labels) s.transactions++;
  const started = performance.now();
  try {
    const onRetry = () => {
      for (const s of labels) s.retries++;
    };
    const byWaiter = batch.every((w) => w.text.slot !== null)
      ? await commitMerged(driver, batch, onRetry)
      : await commitPipelined(driver, batch, onRetry);
    for (const w of batch) statsOf(driver, w.label).rows++;
    return byWaiter;
  } finally {
    const ms = performance.now() - started;
    for (const s of labels) s.commitMs += ms;
  }
}

/** Retries of a transient failure (a deadlock, a leader switch) for this long, as executeWrite does. */
const RETRY_FOR_MS = 30_000;

/** The batch as the merged statement, auto-committed: one round trip; retried like a managed transaction. */
async function commitMerged(driver: Driver, batch: Waiter[], onRetry: () => void): Promise<Neo4jRecord[][]> {
  const { text, slots } = merged;
  const params: Record<string, unknown[]> = Object.fromEntries(slots.map((_, k) => [`rows${k}`, []]));
  const members: number[][] = slots.map(() => []);
  batch.forEach((w, i) => {
    params[`rows${w.text.slot!}`]!.push(w.row);
    members[w.text.slot!]!.push(i);
  });
  const deadline = performance.now() + RETRY_FOR_MS;
  for (let delay = 100; ; delay *= 2) {
    const session = driver.session({
      defaultAccessMode: neo4j.session.WRITE,
      bookmarkManager: driver.executeQueryBookmarkManager,
    });
    try {
      const { records } = await session.run(text, params);
      const byWaiter: Neo4jRecord[][] = batch.map(() => []);
      slots.forEach((t, k) => {
        for (const [i, values] of records[0]!.get(`__r${k}`) as Array<[unknown, unknown[]]>) {
          byWaiter[members[k]![num(i as number)]!]!.push(new Neo4jRecord(t.columns as string[], values));
        }
      });
      return byWaiter;
    } catch (err) {
      if (!isRetryableError(err) || performance.now() + delay > deadline) throw err;
    } finally {
      await session.close();
    }
    onRetry();
    await new Promise((r) => setTimeout(r, delay * (0.8 + Math.random() * 0.4)));
  }
}

/** A statement per text in one managed transaction, pipelined: every one sent before the first answer is awaited. */
async function commitPipelined(driver: Driver, batch: Waiter[], onRetry: () => void): Promise<Neo4jRecord[][]> {
  const byText = new Map<WriteText, number[]>();
  batch.forEach((w, i) => {
    const at = byText.get(w.text);
    if (at) at.push(i);
    else byText.set(w.text, [i]);
  });
  let attempts = 0;
  const session = driver.session({ bookmarkManager: driver.executeQueryBookmarkManager });
  try {
    const byWaiter: Neo4jRecord[][] = batch.map(() => []);
    await session.executeWrite(async (tx) => {
      if (attempts++ > 0) onRetry();
      for (const w of byWaiter) w.length = 0;
      const runs = [...byText].map(([text, members]) =>
        tx.run(text.batched, { rows: members.map((i) => batch[i]!.row) }).then(({ records }) => {
          for (const r of records) byWaiter[members[num(r.get('__i') as number)]!]!.push(r);
        }),
      );
      const failed = (await Promise.allSettled(runs)).find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
    });
    return byWaiter;
  } finally {
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
