import type { Driver } from 'neo4j-driver';
import { ATTRIBUTE_PREFIX, AttributeKeySchema, type Kind, type Provider } from '../model/index.js';

/**
 * Ids of resources of one provider and kind whose attribute `key` equals `value`, e.g. the Proxmox
 * cluster whose `api_url` is the configured one (to hang a condition on it when the API is down).
 */
export async function findResourceIdsByAttribute(
  driver: Driver,
  query: { provider: Provider; kind: Kind; key: string; value: string | number | boolean },
): Promise<string[]> {
  if (!AttributeKeySchema.safeParse(query.key).success)
    throw new Error(`not an attribute key: ${JSON.stringify(query.key)}`);
  const { records } = await driver.executeQuery(
    'MATCH (r:Resource) WHERE r.provider = $provider AND r.kind = $kind AND r[$prop] = $value RETURN r.id AS id ORDER BY r.lastSeen DESC, r.id',
    { provider: query.provider, kind: query.kind, prop: ATTRIBUTE_PREFIX + query.key, value: query.value },
    { routing: 'READ' },
  );
  return records.map((r) => r.get('id') as string);
}

/** Which of these ids already exist as resources. */
export async function existingResourceIds(driver: Driver, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { records } = await driver.executeQuery(
    'UNWIND $ids AS id MATCH (r:Resource {id: id}) RETURN r.id AS id',
    { ids: [...new Set(ids)] },
    { routing: 'READ' },
  );
  return new Set(records.map((r) => r.get('id') as string));
}
