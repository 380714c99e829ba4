import type { Kind } from '../model/kinds.js';

/**
 * The entity type hierarchy, as data: each type names its parent, `entity` is the root. Approval
 * rules are keyed on these types, and a rule on a parent covers every descendant that has no rule
 * of its own (vm → machine → entity). Grouping types (machine, delivery, credential) exist so one
 * rule can speak for their children; they are never a resource's own type.
 */
export const ENTITY_TYPE_PARENTS = {
  entity: null,
  machine: 'entity',
  host: 'machine',
  vm: 'machine',
  lxc: 'machine',
  cluster: 'entity',
  service: 'entity',
  'docker-container': 'service',
  'compose-stack': 'service',
  network: 'entity',
  'dns-record': 'network',
  'ingress-route': 'network',
  storage: 'entity',
  'storage-pool': 'storage',
  delivery: 'entity',
  'config-repo': 'delivery',
  'deploy-pipeline': 'delivery',
  credential: 'entity',
  secret: 'credential',
  key: 'credential',
} as const satisfies Record<string, string | null>;

/** A known entity type. */
export type EntityType = keyof typeof ENTITY_TYPE_PARENTS;

/** Every entity type, in declaration order. */
export const ENTITY_TYPES = Object.keys(ENTITY_TYPE_PARENTS) as EntityType[];

/** The entity type each aitia resource kind starts as; a finer type (docker-container) may be given. */
export const KIND_ENTITY_TYPES: Readonly<Record<Kind, EntityType>> = {
  cluster: 'cluster',
  host: 'host',
  vm: 'vm',
  lxc: 'lxc',
  storage: 'storage',
  network: 'network',
  service: 'service',
};

/** True when `value` names a type of the hierarchy. */
export function isEntityType(value: string): value is EntityType {
  return Object.prototype.hasOwnProperty.call(ENTITY_TYPE_PARENTS, value);
}

/** The ancestors of `type`, nearest first, ending with `entity`; empty for `entity` itself. */
export function ancestorsOf(type: EntityType): EntityType[] {
  const out: EntityType[] = [];
  let parent: EntityType | null = ENTITY_TYPE_PARENTS[type];
  while (parent !== null) {
    out.push(parent);
    parent = ENTITY_TYPE_PARENTS[parent];
  }
  return out;
}

/** `type` followed by its ancestors: the order in which rules are looked for. */
export function lineageOf(type: EntityType): EntityType[] {
  return [type, ...ancestorsOf(type)];
}

/** True when `type` is `ancestor` or descends from it. */
export function isA(type: EntityType, ancestor: EntityType): boolean {
  return lineageOf(type).includes(ancestor);
}
