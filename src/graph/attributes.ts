import type { Driver } from 'neo4j-driver';
import { badInput, notFound } from '../errors.js';
import { ATTRIBUTE_PREFIX, planAttributeUpdate, type AttributePlan } from '../model/index.js';
import { getResourceById } from './resources.js';
import { resourceFromProperties, type ResourceRecord } from './resource-record.js';

/**
 * Merges an agent's or operator's attributes into a resource. Owned keys are stripped and listed;
 * an invalid key or value refuses the whole update (nothing written).
 */
export async function updateAttributes(
  driver: Driver,
  id: string,
  input: unknown,
): Promise<{ resource: ResourceRecord; ignored: AttributePlan['ignored']; message: string }> {
  const current = await getResourceById(driver, id);
  if (!current) throw notFound('id', `resource ${id}`);
  const planned = planAttributeUpdate(input, current);
  if (!planned.ok) throw badInput(planned.field, planned.reason);
  const { plan } = planned;
  const props = Object.fromEntries(Object.entries(plan.set).map(([k, v]) => [ATTRIBUTE_PREFIX + k, v]));
  let resource = current;
  if (Object.keys(props).length > 0) {
    const { records } = await driver.executeQuery(
      'MATCH (r:Resource {id: $id}) SET r += $props RETURN properties(r) AS p',
      { id, props },
    );
    resource = resourceFromProperties(records[0]!.get('p'));
  }
  return { resource, ignored: plan.ignored, message: plan.message };
}
