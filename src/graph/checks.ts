import { createHash } from 'node:crypto';
import type { Driver } from 'neo4j-driver';
import { notFound } from '../errors.js';
import { CheckResultSchema, type CheckDefinition, type CheckKind, type CheckResult } from '../model/index.js';
import { toPlain } from './values.js';

/**
 * The Check repository: `(:Check {id, resourceId, kind, spec (JSON), intervalSeconds, critical,
 * createdBy, createdAt, nextDueAt, lastRunAt, results, <flap counters>})-[:CHECKS]->(:Resource)`.
 * `results` is a bounded list property (newest first) of JSON-encoded results: one write per run,
 * no result nodes to prune. The flap counters are the state of the two debouncing machines
 * (failing; unreachable) so a restart continues where it stopped.
 */

/** The stored state of one debouncing machine (mirrors scheduler/flap-state.ts). */
export interface FlapCounters {
  active: boolean;
  failStreak: number;
  passStreak: number;
}

/** A Check as reads return it. */
export interface CheckRecord {
  id: string;
  resourceId: string;
  kind: CheckKind;
  spec: Record<string, unknown>;
  intervalSeconds: number;
  critical: boolean;
  createdBy: string;
  createdAt: string;
  nextDueAt: string | null;
  lastRunAt: string | null;
  /** Newest first, at most the history size. */
  results: CheckResult[];
  failing: FlapCounters;
  unreachable: FlapCounters;
}

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
): Promise<{ check: CheckRecord; created: boolean }> {
  const id = checkIdOf(input.resourceId, input.definition);
  const { records } = await driver.executeQuery(
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
  );
  const rec = records[0];
  if (!rec) throw notFound('input.resourceId', `resource ${input.resourceId}`);
  return { check: checkFromProperties(rec.get('c')), created: rec.get('created') === true };
}

/** Removes a check and its results; the resource's health follows at the scheduler's next tick. */
export async function removeCheck(driver: Driver, id: string): Promise<{ resourceId: string } | null> {
  const { records } = await driver.executeQuery(
    'MATCH (c:Check {id: $id}) WITH c, c.resourceId AS rid DETACH DELETE c RETURN rid',
    { id },
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
