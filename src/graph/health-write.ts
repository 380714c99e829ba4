import type { Driver } from 'neo4j-driver';
import { HealthSchema, type Health } from '../model/index.js';

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
  const size = options.batchSize ?? 1000;
  let written = 0;
  for (let i = 0; i < rows.length; i += size) {
    const { records } = await driver.executeQuery(
      `UNWIND $rows AS row
       MATCH (r:Resource {id: row.id})
       SET r.health = row.health, r.last_check = row.lastCheck, r.lastCheckAt = datetime(row.at)
       RETURN count(r) AS n`,
      {
        rows: rows
          .slice(i, i + size)
          .map((r) => ({ id: r.resourceId, health: r.health, lastCheck: r.lastCheck, at: r.at })),
      },
    );
    written += Number(records[0]?.get('n') ?? 0);
  }
  return written;
}
