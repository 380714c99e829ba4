import type { Kind, Lifecycle } from '../model/kinds.js';
import { isEntityType, KIND_ENTITY_TYPES, type EntityType } from './entity-types.js';

/**
 * What the gate knows about an action's target. The graph look-up happens elsewhere and passes
 * these facts in, which keeps the gate pure: same facts, same decision.
 */
export interface TargetFacts {
  id: string;
  /** The graph kind, or null for an entity aitia holds no resource for (a dns-record named by type). */
  kind: Kind | null;
  /** `kind:name`, what scope_entity rules and never_auto_act name. */
  slug: string;
  name: string;
  /** A finer type than the kind gives (a service that is a docker-container); defaults from kind. */
  entityType?: string | null;
  /**
   * The finer type was written by an operator or the resource's provider. When it is not (or
   * unknown), the stricter of the finer type's rule and the kind's rule applies.
   */
  entityTypeTrusted?: boolean;
  lifecycle: Lifecycle;
  /** Every attribute, descriptive ones a principal wrote included: never authority for a check. */
  attributes?: Readonly<Record<string, unknown>>;
  /**
   * The attribute values its provider wrote, e.g. `qemu_guest_agent: "running"`: the only ones a
   * preflight reads (an agent cannot make a check pass by writing the fact it checks).
   */
  observations?: Readonly<Record<string, unknown>>;
  /** The state the provider last reported (the kind's closed enum), for rules with `when: {state}`. */
  state?: string | null;
  /** The target's latest observed change and who made it, for respecting intent. */
  lastChange?: LastChangeFact | null;
}

/** The latest transition of a target, as the gate reads it: who changed it, how sure, and when. */
export interface LastChangeFact {
  transitionId: string;
  from: string;
  to: string;
  observedAt: string;
  confidence: 'high' | 'medium' | 'low' | 'none';
  actor: string | null;
  actorKind: 'human' | 'api_token' | 'ha_manager' | 'system' | null;
  /** The task or event that did it, one line (`qmstop UPID:…, 02:08:29–02:08:30 UTC, ok`), if known. */
  cause: string | null;
}

/** The target's entity type, or why it has none the hierarchy knows (which fails closed). */
export function resolveEntityType(target: TargetFacts): { ok: true; type: EntityType } | { ok: false; reason: string } {
  const declared = target.entityType;
  if (declared === undefined || declared === null || declared === '') {
    if (target.kind === null) return { ok: false, reason: 'the target has neither a kind nor an entity type' };
    const fromKind = KIND_ENTITY_TYPES[target.kind] as EntityType | undefined;
    if (fromKind === undefined) return { ok: false, reason: `kind "${String(target.kind)}" has no entity type` };
    return { ok: true, type: fromKind };
  }
  return isEntityType(declared)
    ? { ok: true, type: declared }
    : { ok: false, reason: `unknown entity type "${declared}"` };
}
