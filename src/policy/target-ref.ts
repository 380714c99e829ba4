import { isResourceId, parseSlug, ResourceIdSchema } from '../model/ids.js';
import type { Kind, Lifecycle } from '../model/kinds.js';
import { observedAttributes } from '../model/provider-attributes.js';
import {
  ENTITY_TYPE_PARENTS,
  ENTITY_TYPES,
  isA,
  isEntityType,
  KIND_ENTITY_TYPES,
  type EntityType,
} from './entity-types.js';
import type { TargetFacts } from './target-facts.js';

const KIND_TYPES = new Set<string>(Object.values(KIND_ENTITY_TYPES));
const PARENTS = new Set<string>(
  ENTITY_TYPES.map((t) => ENTITY_TYPE_PARENTS[t] as string | null).filter((p): p is string => p !== null),
);

/**
 * Entity types aitia holds no resource kind for (dns-record, secret, docker-container, …): the
 * concrete leaves of the hierarchy that are not a kind's own type. Agents name them
 * `<type>:<name>` to ask the gate about them; the facts are then only the type and the name.
 */
export const NON_GRAPH_ENTITY_TYPES: readonly EntityType[] = ENTITY_TYPES.filter(
  (t) => !PARENTS.has(t) && !KIND_TYPES.has(t),
);

/** How a gate question names its target. */
export type TargetRef =
  | { form: 'id'; id: string }
  | { form: 'slug'; slug: string }
  | { form: 'entity'; entityType: EntityType; name: string };

/** The three forms a target may take, for error messages. */
export const TARGET_FORMS =
  'a resource id (proxmox:lab/qemu/101), a kind:name slug (vm:web-01), or <entity-type>:<name> for an entity outside the graph ' +
  `(${NON_GRAPH_ENTITY_TYPES.join(', ')})`;

/** Reads a target reference, or says why it is none of the accepted forms. */
export function parseTargetRef(ref: string): { ok: true; ref: TargetRef } | { ok: false; reason: string } {
  const text = ref.trim();
  if (isResourceId(text)) {
    return ResourceIdSchema.safeParse(text).success
      ? { ok: true, ref: { form: 'id', id: text } }
      : { ok: false, reason: `"${ref}" is not a valid resource id` };
  }
  const at = text.indexOf(':');
  const prefix = at > 0 ? text.slice(0, at) : '';
  const name = text.slice(at + 1);
  if (at > 0 && name !== '' && isEntityType(prefix) && !KIND_TYPES.has(prefix)) {
    if (!NON_GRAPH_ENTITY_TYPES.includes(prefix)) {
      return {
        ok: false,
        reason: `${prefix} groups other types and is never a thing's own type; name the concrete type`,
      };
    }
    return { ok: true, ref: { form: 'entity', entityType: prefix, name } };
  }
  if (parseSlug(text).ok) return { ok: true, ref: { form: 'slug', slug: text } };
  return { ok: false, reason: `"${ref}" must be ${TARGET_FORMS}` };
}

/** Facts for an entity outside the graph: its type and name, nothing observed about it. */
export function entityTargetFacts(entityType: EntityType, name: string): TargetFacts {
  const slug = `${entityType}:${name}`;
  // Nothing tracks such an entity's life, so it is taken as active; rules and overrides still apply.
  return { id: slug, kind: null, slug, name, entityType, lifecycle: 'active', attributes: {} };
}

/** The resource fields the gate reads. */
export interface ResourceFactsSource {
  id: string;
  kind: Kind;
  name: string;
  slug: string;
  lifecycle: Lifecycle;
  attributes: Readonly<Record<string, unknown>>;
  /** Attribute keys whose values its provider wrote; only these become `observations`. */
  providerAttributeKeys: readonly string[];
  /** Who wrote `entity_type` (`operator:<name>`, `provider:<provider>`), if recorded. */
  entityTypeBy?: string | null;
  state?: string;
}

/** The descriptive attribute that names a finer entity type for a resource (a service that is a docker-container). */
export const ENTITY_TYPE_ATTRIBUTE = 'entity_type';

/**
 * True when `entity_type` came from an authority: the resource's provider reported it (its rows,
 * `provider:<provider>`), or an operator wrote it through the API (`operator:<name>`). Agents cannot write it; a value
 * stored otherwise (before it was owned, or by a direct import) is not vouched for.
 */
export function entityTypeTrusted(
  resource: Pick<ResourceFactsSource, 'providerAttributeKeys' | 'entityTypeBy'>,
): boolean {
  if (resource.providerAttributeKeys.includes(ENTITY_TYPE_ATTRIBUTE)) return true;
  const by = resource.entityTypeBy;
  return typeof by === 'string' && (by.startsWith('operator:') || by.startsWith('provider:'));
}

/**
 * Facts for a graph resource, read from the graph, not from the caller. An `entity_type` attribute
 * refines the kind's type only within its own branch (a service may be a docker-container, never a
 * secret): a type from another branch would pick another branch's rules. A refused refinement is
 * reported in `notes` and the kind's type is used; one no authority vouches for is noted and judged
 * by the stricter of its rule and the kind's (see findRuleFor).
 */
export function resourceTargetFacts(resource: ResourceFactsSource): { facts: TargetFacts; notes: string[] } {
  const kindType = KIND_ENTITY_TYPES[resource.kind];
  const declared = resource.attributes[ENTITY_TYPE_ATTRIBUTE];
  const notes: string[] = [];
  let entityType: EntityType | null = null;
  if (declared !== undefined && declared !== null) {
    if (typeof declared === 'string' && isEntityType(declared) && isA(declared, kindType)) {
      entityType = declared === kindType ? null : declared;
      if (entityType !== null && !entityTypeTrusted(resource))
        notes.push(
          `attribute ${ENTITY_TYPE_ATTRIBUTE}=${JSON.stringify(declared)} was not written by an operator or the provider: the stricter of the ${declared} and ${kindType} rules applies`,
        );
    } else {
      notes.push(
        `attribute ${ENTITY_TYPE_ATTRIBUTE}=${JSON.stringify(declared)} ignored: not ${kindType} or a type below it; the gate used ${kindType}`,
      );
    }
  }
  const facts: TargetFacts = {
    id: resource.id,
    kind: resource.kind,
    slug: resource.slug,
    name: resource.name,
    entityType,
    ...(entityType === null ? {} : { entityTypeTrusted: entityTypeTrusted(resource) }),
    lifecycle: resource.lifecycle,
    attributes: resource.attributes,
    observations: observedAttributes({
      attributes: resource.attributes,
      providerAttributeKeys: resource.providerAttributeKeys,
    }),
    state: resource.state,
  };
  return { facts, notes };
}
