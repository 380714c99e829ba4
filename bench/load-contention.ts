/**
 * What bench:load's mixed phase measures of write contention: Neo4j's own view of the transactions
 * in flight, sampled (`SHOW TRANSACTIONS`: each one's accumulated lock wait and whether it is
 * blocked now), and the group commits' counters (transactions, rows, the driver's retries). The
 * sampler runs on the bench's own driver, not the service's, so its statements are not counted.
 */
import type { Driver } from 'neo4j-driver';
import { type GroupCommitStats, groupCommitStats } from '../src/graph/db/group-commit.js';
import { num } from '../src/graph/db/statements.js';

/** Which operation a transaction's current statement belongs to (the writes are recognised by their text). */
function operationOf(query: string): string {
  if (query.includes('CREATE (d:Decision)')) return 'classifyAction';
  if (query.includes('row.allowed') && query.includes('MERGE (a)-[e:')) return 'createRelationship';
  return 'other';
}

export interface LockFigures {
  /** Sum over sampled transactions of the lock wait Neo4j reports for each (its largest value seen), ms. */
  waitMs: Map<string, number>;
  /** Samples in which a transaction of the operation was blocked on a lock. */
  blocked: Map<string, number>;
  samples: number;
}

/** Samples `SHOW TRANSACTIONS` every `everyMs` until stopped; stop() gives the figures per operation. */
export function sampleLocks(driver: Driver, everyMs = 100): { stop(): Promise<LockFigures> } {
  const waitByTx = new Map<string, { op: string; ms: number }>();
  const blocked = new Map<string, number>();
  let samples = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        const { records } = await driver.executeQuery(
          'SHOW TRANSACTIONS YIELD transactionId, currentQuery, status, waitTime RETURN *',
        );
        samples++;
        for (const r of records) {
          const query = String(r.get('currentQuery') ?? '');
          if (query.includes('SHOW TRANSACTIONS')) continue;
          const op = operationOf(query);
          const w = r.get('waitTime') as { seconds?: unknown; nanoseconds?: unknown } | null;
          const ms = w ? Math.max(0, num(w.seconds as number) * 1000 + num(w.nanoseconds as number) / 1e6) : 0;
          const id = String(r.get('transactionId'));
          const seen = waitByTx.get(id);
          if (!seen || ms > seen.ms) waitByTx.set(id, { op, ms });
          if (String(r.get('status') ?? '').startsWith('Blocked')) blocked.set(op, (blocked.get(op) ?? 0) + 1);
        }
      } catch {
        // A sample lost under load is just one fewer sample.
      }
      await new Promise((res) => setTimeout(res, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const waitMs = new Map<string, number>();
      for (const { op, ms } of waitByTx.values()) waitMs.set(op, (waitMs.get(op) ?? 0) + ms);
      return { waitMs, blocked, samples };
    },
  };
}

/** The group commits' counters accrued since `before` (groupCommitStats of the same driver). */
export function groupCommitsSince(
  driver: Driver,
  before: Map<string, GroupCommitStats>,
): Map<string, GroupCommitStats> {
  const out = new Map<string, GroupCommitStats>();
  for (const [label, now] of groupCommitStats(driver)) {
    const was = before.get(label) ?? { transactions: 0, rows: 0, retries: 0, fallbacks: 0, commitMs: 0 };
    out.set(label, {
      transactions: now.transactions - was.transactions,
      rows: now.rows - was.rows,
      retries: now.retries - was.retries,
      fallbacks: now.fallbacks - was.fallbacks,
      commitMs: now.commitMs - was.commitMs,
    });
  }
  return out;
}
