import type { Driver } from 'neo4j-driver';
import { AitiaError, badInput, type ResourceRecord } from '../model/index.js';
import { resolveResource } from '../graph/resources.js';
import { entityTargetFacts, parseTargetRef, resourceTargetFacts, type TargetFacts } from '../policy/index.js';

/** A gate target with the facts the decision rests on and, when it is one, its graph resource. */
export interface GateTarget {
  facts: TargetFacts;
  notes: string[];
  resource: ResourceRecord | null;
}

/**
 * Resolves what an agent names as a target into facts for the gate. Graph resources (by id or
 * `kind:name` slug) are read from the graph; `<entity-type>:<name>` names an entity outside it.
 * Anything unknown or ambiguous is BAD_USER_INPUT naming `field`: the gate never guesses.
 */
export async function resolveGateTarget(driver: Driver, ref: string, field: string): Promise<GateTarget> {
  const parsed = parseTargetRef(ref);
  if (!parsed.ok) throw badInput(field, parsed.reason);
  if (parsed.ref.form === 'entity') {
    return { facts: entityTargetFacts(parsed.ref.entityType, parsed.ref.name), notes: [], resource: null };
  }
  const resource = await resolveInputResource(
    driver,
    parsed.ref.form === 'id' ? { id: parsed.ref.id } : { slug: parsed.ref.slug },
    ref,
    field,
  );
  return { ...resourceTargetFacts(resource), resource };
}

/** A resource named in input, with NOT_FOUND and slug errors re-labelled as bad input in `field`. */
export async function resolveInputResource(
  driver: Driver,
  by: { id?: string; slug?: string },
  ref: string,
  field: string,
): Promise<ResourceRecord> {
  try {
    return await resolveResource(driver, by, field);
  } catch (err) {
    if (err instanceof AitiaError && err.code === 'NOT_FOUND') throw badInput(field, `no resource ${ref}`);
    if (err instanceof AitiaError && err.code === 'BAD_USER_INPUT' && err.field !== field) {
      throw badInput(field, err.message.replace(/^[^:]+: /, ''), err.details);
    }
    throw err;
  }
}
