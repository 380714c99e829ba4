import {
  type CheckDefinition,
  type CheckKind,
  type CheckRecord,
  type CheckResult,
  CheckResultSchema,
  type FlapCounters,
  type Health,
  HealthSchema,
  notFound,
} from '../model/index.js';
import { createHash } from 'node:crypto';
import { type AuditInput, writeWithAudit } from './audit.js';
import { appendFeedTx } from './feed.js';
import type { Driver } from 'neo4j-driver';
import { inBatches, int, toPlain } from './db/statements.js';

/**
 * The Check repository: `(:Check {id, resourceId, kind, spec (JSON), intervalSeconds, critical,
 * createdBy, createdAt, nextDueAt, lastRunAt, results, <flap counters>})-[:CHECKS]->(:Resource)`.
 * `results` is a bounded list property (newest first) of JSON-encoded results: one write per run,
 * no result nodes to prune. The flap counters are the state of the two debouncing machines
 * (failing; unreachable) so a restart continues where it stopped.
 */

function parseResults(raw: unknown): CheckResult[] {
  if (!Array.isArray(raw)) return [];
  const out: CheckResult[] = [];
  for (const text of raw) {
    try {
      const parsed = CheckResultSchema.safeParse(JSON.parse(String(text)));
      if (parsed.success) out.push(parsed.data);
    } catch {
      // A result that does not parse is skipped, not fatal: the next run writes a good one.
    }
  }
  return out;
}

/** Builds a record from a Check node's properties. */
export function checkFromProperties(raw: unknown): CheckRecord {
  const p = toPlain(raw) as Record<string, unknown>;
  const counters = (prefix: 'failing' | 'unreachable'): FlapCounters => ({
    active: p[prefix] === true,
    failStreak: Number(p[`${prefix}FailStreak`] ?? 0),
    passStreak: Number(p[`${prefix}PassStreak`] ?? 0),
  });
  return {
    id: String(p.id),
    resourceId: String(p.resourceId),
    kind: p.kind as CheckKind,
    spec: JSON.parse(String(p.spec ?? '{}')) as Record<string, unknown>,
    intervalSeconds: Number(p.intervalSeconds),
    critical: p.critical === true,
    createdBy: String(p.createdBy ?? ''),
    createdAt: String(p.createdAt),
    nextDueAt: (p.nextDueAt as string | null) ?? null,
    lastRunAt: (p.lastRunAt as string | null) ?? null,
    results: parseResults(p.results),
    failing: counters('failing'),
    unreachable: counters('unreachable'),
  };
}

/** The spec as canonical JSON (sorted keys), so equal specs compare and hash equal. */
function canonicalSpec(spec: Record<string, unknown>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(spec).sort(([a], [b]) => a.localeCompare(b))));
}

/** A check's natural key: the resource, the kind and the spec. It contains the resource id. */
export function checkIdOf(resourceId: string, definition: CheckDefinition): string {
  const digest = createHash('sha256')
    .update(`${definition.kind}\n${canonicalSpec(definition.spec)}`)
    .digest('hex')
    .slice(0, 16);
  return `${resourceId}#check#${definition.kind}#${digest}`;
}

/**
 * Creates a check, due at once. Idempotent on (resource, kind, spec): a repeat returns the
 * existing check with `created: false` and takes the new interval and critical flag.
 * The definition must already be validated (zod at the edge).
 */
export async function createCheck(
  driver: Driver,
  input: {
    resourceId: string;
    definition: CheckDefinition;
    intervalSeconds: number;
    critical: boolean;
    createdBy: string;
    at: string;
  },
  audit?: () => AuditInput,
): Promise<{ check: CheckRecord; created: boolean }> {
  const id = checkIdOf(input.resourceId, input.definition);
  // The audit line only when the resource matched (a check was written): else nothing commits.
  const records = await writeWithAudit(
    driver,
    async (tx) =>
      (
        await tx.run(
          `MATCH (r:Resource {id: $rid})
     MERGE (c:Check {id: $id})
     ON CREATE SET c.resourceId = $rid, c.kind = $kind, c.spec = $spec, c.createdBy = $by, c.createdAt = datetime($at),
                   c.nextDueAt = datetime($at), c.results = [], c.isNew = true
     SET c.intervalSeconds = $interval, c.critical = $critical
     MERGE (c)-[:CHECKS]->(r)
     WITH c, coalesce(c.isNew, false) AS created
     REMOVE c.isNew
     RETURN properties(c) AS c, created`,
          {
            rid: input.resourceId,
            id,
            kind: input.definition.kind,
            spec: canonicalSpec(input.definition.spec),
            by: input.createdBy,
            at: input.at,
            interval: input.intervalSeconds,
            critical: input.critical,
          },
        )
      ).records,
    (rows) => (rows.length > 0 && audit ? audit() : null),
  );
  const rec = records[0];
  if (!rec) throw notFound('input.resourceId', `resource ${input.resourceId}`);
  return { check: checkFromProperties(rec.get('c')), created: rec.get('created') === true };
}

/**
 * Removes a check and its results; the resource's health follows at the scheduler's next tick.
 * With `audit`, its audit line commits with the removal (none when there was no such check).
 */
export async function removeCheck(
  driver: Driver,
  id: string,
  audit?: () => AuditInput,
): Promise<{ resourceId: string } | null> {
  const records = await writeWithAudit(
    driver,
    async (tx) =>
      (await tx.run('MATCH (c:Check {id: $id}) WITH c, c.resourceId AS rid DETACH DELETE c RETURN rid', { id }))
        .records,
    (rows) => (rows.length > 0 && audit ? audit() : null),
  );
  return records[0] ? { resourceId: String(records[0].get('rid')) } : null;
}

/** One check by id, or null. */
export async function getCheck(driver: Driver, id: string): Promise<CheckRecord | null> {
  const { records } = await driver.executeQuery(
    'MATCH (c:Check {id: $id}) RETURN properties(c) AS c',
    { id },
    { routing: 'READ' },
  );
  return records[0] ? checkFromProperties(records[0].get('c')) : null;
}

/** The checks of many resources in one query, oldest first per resource. */
export async function checksOfResources(
  driver: Driver,
  resourceIds: readonly string[],
): Promise<Map<string, CheckRecord[]>> {
  const { records } = await driver.executeQuery(
    `UNWIND $ids AS rid
     MATCH (c:Check)-[:CHECKS]->(:Resource {id: rid})
     RETURN properties(c) AS c ORDER BY c.createdAt, c.id`,
    { ids: [...new Set(resourceIds)] },
    { routing: 'READ' },
  );
  const out = new Map<string, CheckRecord[]>();
  for (const r of records) {
    const c = checkFromProperties(r.get('c'));
    const list = out.get(c.resourceId);
    if (list) list.push(c);
    else out.set(c.resourceId, [c]);
  }
  return out;
}

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

/**
 * Whole-graph look-ups the health scheduler runs each tick to keep conditions and health true
 * when checks come and go (a removed check cannot report its own removal). Each is bounded.
 */

/** Resources that are not missing/destroyed, have no check and no open `unmonitored` condition. */
export async function unmonitoredResourceIds(driver: Driver, limit: number): Promise<string[]> {
  const { records } = await driver.executeQuery(
    `MATCH (r:Resource)
     WHERE NOT coalesce(r.lifecycle, 'active') IN ['missing', 'destroyed']
       AND NOT EXISTS { (r)<-[:CHECKS]-(:Check) }
       AND NOT EXISTS { (r)<-[:CONDITION_OF]-(:Condition {type: 'unmonitored', status: 'open'}) }
     RETURN r.id AS id ORDER BY id LIMIT $limit`,
    { limit: int(limit) },
    { routing: 'READ' },
  );
  return records.map((r) => String(r.get('id')));
}

/** Open `unmonitored` conditions that no longer apply: the resource has a check now, or is gone. */
export async function staleUnmonitored(
  driver: Driver,
  limit: number,
): Promise<Array<{ resourceId: string; checkIds: string[]; lifecycle: string }>> {
  const { records } = await driver.executeQuery(
    `MATCH (:Condition {type: 'unmonitored', status: 'open'})-[:CONDITION_OF]->(r:Resource)
     WITH DISTINCT r, [(r)<-[:CHECKS]-(k:Check) | k.id] AS checkIds
     WHERE size(checkIds) > 0 OR coalesce(r.lifecycle, 'active') IN ['missing', 'destroyed']
     RETURN r.id AS id, checkIds, coalesce(r.lifecycle, 'active') AS lifecycle ORDER BY id LIMIT $limit`,
    { limit: int(limit) },
    { routing: 'READ' },
  );
  return records.map((r) => ({
    resourceId: String(r.get('id')),
    checkIds: r.get('checkIds') as string[],
    lifecycle: String(r.get('lifecycle')),
  }));
}

/** Which check flag keeps which scheduler-opened condition type open. */
const FLAG_OF = { check_failing: 'failing', unreachable: 'unreachable' } as const;

/**
 * Open conditions of `type` that the scheduler opened (its evidence carries `marker`) on
 * resources where no check has the matching flag any more: their checks were removed.
 */
export async function orphanedCheckConditions(
  driver: Driver,
  type: keyof typeof FLAG_OF,
  marker: string,
  limit: number,
): Promise<string[]> {
  const { records } = await driver.executeQuery(
    `MATCH (c:Condition {type: $type, status: 'open'})-[:CONDITION_OF]->(r:Resource)
     WHERE c.evidence CONTAINS $marker AND NOT EXISTS { MATCH (k:Check)-[:CHECKS]->(r) WHERE k[$flag] = true }
     RETURN DISTINCT r.id AS id ORDER BY id LIMIT $limit`,
    { type, marker, flag: FLAG_OF[type], limit: int(limit) },
    { routing: 'READ' },
  );
  return records.map((r) => String(r.get('id')));
}

/** Resources whose health was derived from checks they no longer have: health must return to unknown. */
export async function healthWithoutChecks(driver: Driver, limit: number): Promise<string[]> {
  const { records } = await driver.executeQuery(
    `MATCH (r:Resource)
     WHERE r.health IS NOT NULL AND r.health <> 'unknown' AND NOT EXISTS { (r)<-[:CHECKS]-(:Check) }
     RETURN r.id AS id ORDER BY id LIMIT $limit`,
    { limit: int(limit) },
    { routing: 'READ' },
  );
  return records.map((r) => String(r.get('id')));
}

/** One resource's derived health, as the scheduler decided it. */
export interface HealthRow {
  resourceId: string;
  health: Health;
  /** Status summary, e.g. "degraded: 1 pass, 1 fail, 0 unknown — …". */
  lastCheck: string;
  /** When it was derived (ISO-8601). */
  at: string;
}

/**
 * THE writer of health: sets `health`, `last_check` and `lastCheckAt` on resources, batched.
 * Nothing else in aitia writes these properties (a unit test scans the sources; an e2e test runs
 * every GraphQL mutation and checks they are unchanged). Only the health scheduler calls it.
 */
export async function writeHealth(
  driver: Driver,
  rows: readonly HealthRow[],
  options: { batchSize?: number } = {},
): Promise<number> {
  for (const [i, r] of rows.entries()) {
    if (!HealthSchema.safeParse(r.health).success)
      throw new Error(`writeHealth rows[${i}].health: not a health value: ${String(r.health)}`);
  }
  let written = 0;
  const session = driver.session();
  try {
    await inBatches(rows, options.batchSize ?? 1000, async (batch) => {
      written += await session.executeWrite(async (tx) => {
        const res = await tx.run(
          `UNWIND $rows AS row
           MATCH (r:Resource {id: row.id})
           WITH r, row, coalesce(r.health, 'unknown') AS before
           SET r.health = row.health, r.last_check = row.lastCheck, r.lastCheckAt = datetime(row.at)
           RETURN r.id AS id, before, row.health AS after, row.at AS at, row.lastCheck AS lastCheck`,
          { rows: batch.map((r) => ({ id: r.resourceId, health: r.health, lastCheck: r.lastCheck, at: r.at })) },
        );
        // A change of health goes on the feed in the same transaction; the same health again does not.
        const changed = res.records.filter((r) => r.get('before') !== r.get('after'));
        await appendFeedTx(
          tx,
          changed.map((r) => ({
            topic: 'health' as const,
            resourceId: r.get('id') as string,
            change: 'changed',
            at: r.get('at') as string,
            payload: {
              resourceId: r.get('id'),
              from: r.get('before'),
              to: r.get('after'),
              at: r.get('at'),
              lastCheck: r.get('lastCheck'),
            },
          })),
        );
        return res.records.length;
      });
    });
  } finally {
    await session.close();
  }
  return written;
}
