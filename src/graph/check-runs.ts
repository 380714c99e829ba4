import type { Driver } from 'neo4j-driver';
import type { CheckResult } from '../model/index.js';
import { checkFromProperties, type CheckRecord, type FlapCounters } from './checks.js';
import { int } from './values.js';

/** A due check with the properties of the resource it checks (the state checks read them). */
export interface DueCheck {
  check: CheckRecord;
  resource: Record<string, unknown>;
}

/**
 * Checks whose `nextDueAt` has come (oldest due first, at most `limit`), with their resource's
 * properties, in one query on the `nextDueAt` index. `all` ignores due times (tests; "check now").
 */
export async function dueChecks(
  driver: Driver,
  options: { now: string; limit: number; all?: boolean },
): Promise<DueCheck[]> {
  // Two fixed statements rather than `$all OR …`, so the due one can range-scan the nextDueAt index.
  const where = options.all === true ? '' : 'WHERE c.nextDueAt <= datetime($now)';
  const { records } = await driver.executeQuery(
    `MATCH (c:Check) ${where}
     WITH c ORDER BY c.nextDueAt, c.id LIMIT $limit
     MATCH (c)-[:CHECKS]->(r:Resource)
     RETURN properties(c) AS c, properties(r) AS r`,
    { now: options.now, limit: int(options.limit) },
    { routing: 'READ' },
  );
  return records.map((rec) => ({
    check: checkFromProperties(rec.get('c')),
    resource: rec.get('r') as Record<string, unknown>,
  }));
}

/** One run's outcome to store on its check. */
export interface CheckRunRow {
  checkId: string;
  result: CheckResult;
  nextDueAt: string;
  failing: FlapCounters;
  unreachable: FlapCounters;
}

/**
 * Stores a batch of runs in one statement: prepends each result to the check's bounded history
 * (keeping `historySize`), sets the next due time and the flap counters. A check removed while
 * it ran simply matches nothing.
 */
export async function recordCheckRuns(
  driver: Driver,
  rows: readonly CheckRunRow[],
  historySize: number,
): Promise<number> {
  if (rows.length === 0) return 0;
  const { records } = await driver.executeQuery(
    `UNWIND $rows AS row
     MATCH (c:Check {id: row.id})
     SET c.results = ([row.result] + coalesce(c.results, []))[..$n],
         c.lastRunAt = datetime(row.at), c.nextDueAt = datetime(row.nextDueAt), c.lastStatus = row.status,
         c.failing = row.f.active, c.failingFailStreak = row.f.failStreak, c.failingPassStreak = row.f.passStreak,
         c.unreachable = row.u.active, c.unreachableFailStreak = row.u.failStreak, c.unreachablePassStreak = row.u.passStreak
     RETURN count(c) AS n`,
    {
      n: int(historySize),
      rows: rows.map((r) => ({
        id: r.checkId,
        result: JSON.stringify(r.result),
        at: r.result.at,
        status: r.result.status,
        nextDueAt: r.nextDueAt,
        f: { active: r.failing.active, failStreak: int(r.failing.failStreak), passStreak: int(r.failing.passStreak) },
        u: {
          active: r.unreachable.active,
          failStreak: int(r.unreachable.failStreak),
          passStreak: int(r.unreachable.passStreak),
        },
      })),
    },
  );
  return Number(records[0]?.get('n') ?? 0);
}
