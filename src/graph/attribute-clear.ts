import type { Driver } from 'neo4j-driver';
import { ATTRIBUTE_PREFIX, AttributeKeySchema } from '../model/index.js';

/**
 * Removes attributes a provider stopped reporting (a lock that ended, tags removed), batched.
 * `upsertResources` only adds and overwrites (`SET r += …`); setting a property to null through
 * the same map removes it. Keys are validated: they become property names.
 */
export async function clearAttributes(
  driver: Driver,
  rows: ReadonlyArray<{ id: string; keys: readonly string[] }>,
  options: { batchSize?: number } = {},
): Promise<number> {
  const params = rows
    .filter((r) => r.keys.length > 0)
    .map((r) => {
      for (const k of r.keys) {
        if (!AttributeKeySchema.safeParse(k).success) throw new Error(`not an attribute key: ${JSON.stringify(k)}`);
      }
      return { id: r.id, nulls: Object.fromEntries(r.keys.map((k) => [ATTRIBUTE_PREFIX + k, null])) };
    });
  const size = options.batchSize ?? 1000;
  let touched = 0;
  for (let i = 0; i < params.length; i += size) {
    const { records } = await driver.executeQuery(
      'UNWIND $rows AS row MATCH (r:Resource {id: row.id}) SET r += row.nulls RETURN count(r) AS n',
      { rows: params.slice(i, i + size) },
    );
    touched += Number(records[0]?.get('n') ?? 0);
  }
  return touched;
}
