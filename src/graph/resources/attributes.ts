/**
 * A resource's attributes (`attr.<key>` properties): how they are stored, an agent's or operator's
 * update under the ownership rules (recording who wrote each key, `attrBy.<key>`), and the removal
 * of keys a provider stopped reporting.
 */
import {
  AitiaError,
  ATTRIBUTE_PREFIX,
  ATTRIBUTE_WRITER_PREFIX,
  AttributeKeySchema,
  type AttributePlan,
  type Attributes,
  badInput,
  notFound,
  planAttributeUpdate,
  type ResourceRecord,
  type Role,
  writerRecord,
} from '../../model/index.js';
import { type AuditInput, writeWithAudit } from '../audit.js';
import { inBatches, isoNow } from '../db/statements.js';
import { getResourceById, resourceFromProperties } from './read.js';
import type { Driver } from 'neo4j-driver';

/** Attributes as node properties (`attr.<key>`), for `SET r += $props`. */
export function attributeProperties(attributes: Attributes | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(attributes ?? {}).map(([k, v]) => [ATTRIBUTE_PREFIX + k, v]));
}

/**
 * A declaration's attributes as node properties, each recorded as its declarer's (`attrBy.<key>`):
 * declaring again makes a key the declarer's again, whoever wrote it in between.
 */
export function declaredAttributeProperties(attributes: Attributes, declaredBy: string, at: string) {
  const record = writerRecord({ by: 'declarer', name: declaredBy, at });
  return {
    ...attributeProperties(attributes),
    ...Object.fromEntries(Object.keys(attributes).map((k) => [ATTRIBUTE_WRITER_PREFIX + k, record])),
  };
}

/**
 * The Cypher that makes the keys a provider's row writes (`row.attrKeys`) the provider's again:
 * their writer records go (only those present, so a pass over resources nobody wrote changes nothing).
 */
export const PROVIDER_WRITE_CLEARS_WRITERS = `FOREACH (k IN [k IN row.attrKeys WHERE r['${ATTRIBUTE_WRITER_PREFIX}' + k] IS NOT NULL] |
      REMOVE r['${ATTRIBUTE_WRITER_PREFIX}' + k])`;

/**
 * Merges an agent's or operator's attributes into a resource. Owned keys are stripped and listed;
 * an invalid key or value refuses the whole update (nothing written), an operator-owned key from
 * anyone else is FORBIDDEN. Each key written records its writer in the same write (`attrBy.<key>`:
 * role, name, `writer.at` or now; a removed key loses its record). Writing `entity_type` also
 * records who did (`entityTypeBy`), so the gate can tell an operator's refinement from one it
 * cannot vouch for.
 */
export async function updateAttributes(
  driver: Driver,
  id: string,
  input: unknown,
  audit?: () => AuditInput,
  writer: { name: string; role: Role; at?: string } = { name: 'unknown', role: 'agent' },
): Promise<{ resource: ResourceRecord; ignored: AttributePlan['ignored']; message: string }> {
  const current = await getResourceById(driver, id);
  if (!current) throw notFound('id', `resource ${id}`);
  const planned = planAttributeUpdate(input, current, writer);
  if (!planned.ok && planned.code === 'FORBIDDEN')
    throw new AitiaError('FORBIDDEN', `${planned.field}: ${planned.reason}`, { field: planned.field });
  if (!planned.ok) throw badInput(planned.field, planned.reason);
  const { plan } = planned;
  const record = writerRecord({ by: writer.role, name: writer.name, at: writer.at ?? isoNow() });
  const props: Record<string, unknown> = Object.fromEntries(
    Object.entries(plan.set).flatMap(([k, v]) => [
      [ATTRIBUTE_PREFIX + k, v],
      [ATTRIBUTE_WRITER_PREFIX + k, v === null ? null : record],
    ]),
  );
  if (Object.hasOwn(plan.set, 'entity_type'))
    props.entityTypeBy = plan.set.entity_type === null ? null : `${writer.role}:${writer.name}`;
  let resource = current;
  if (Object.keys(props).length > 0) {
    const { records } = await writeWithAudit(
      driver,
      (tx) => tx.run('MATCH (r:Resource {id: $id}) SET r += $props RETURN properties(r) AS p', { id, props }),
      audit,
    );
    resource = resourceFromProperties(records[0]!.get('p'));
  }
  return { resource, ignored: plan.ignored, message: plan.message };
}

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
      return {
        id: r.id,
        keys: [...r.keys],
        nulls: Object.fromEntries(
          r.keys.flatMap((k) => [
            [ATTRIBUTE_PREFIX + k, null],
            [ATTRIBUTE_WRITER_PREFIX + k, null],
          ]),
        ),
      };
    });
  let touched = 0;
  await inBatches(params, options.batchSize ?? 1000, async (batch) => {
    const { records } = await driver.executeQuery(
      `UNWIND $rows AS row MATCH (r:Resource {id: row.id})
       SET r += row.nulls, r.providerAttrKeys = [k IN coalesce(r.providerAttrKeys, []) WHERE NOT k IN row.keys]
       RETURN count(r) AS n`,
      { rows: batch },
    );
    touched += Number(records[0]?.get('n') ?? 0);
  });
  return touched;
}
