import {
  ATTRIBUTE_LIMITS,
  AttributeKeySchema,
  attributeValueProblem,
  AttributeValueSchema,
  type AttributeValue,
} from './attributes.js';
import { canonicalAttributeKey, OPERATOR_OWNED_KEYS, reservedProviderKey, sameKeyIn } from './attribute-keys.js';
import type { Kind, Provider } from './kinds.js';
import { reservedAttributeReason } from './provider-attributes.js';
import type { Role } from './roles.js';

/** Keys only the scheduler writes: health is derived from probes, never asserted. */
export const SCHEDULER_OWNED_KEYS = ['health', 'last_check', 'last_check_at', 'lastCheckAt'] as const;
/** Model fields that belong to the provider that reported the resource. */
export const PROVIDER_OWNED_FIELDS = ['state', 'rawState', 'kind', 'provider', 'id', 'name'] as const;
/** Bookkeeping fields set by aitia itself. */
export const SYSTEM_FIELDS = [
  'slug',
  'lifecycle',
  'firstSeen',
  'lastSeen',
  'missingSince',
  'updateTag',
  'providerAttrKeys',
  'lifecycleBeforeMissing',
  'entityTypeBy',
] as const;

export const HEALTH_MESSAGE =
  'health is scheduler-owned and was not written: it is derived from probes by the scheduler. Observe it with the healthSummary query and checks(resourceId).';

export interface AttributePlan {
  /** Keys to write (`null` removes the key). */
  set: Record<string, AttributeValue | null>;
  ignored: Array<{ key: string; reason: string }>;
  message: string;
}

/** Why a key may not be written, and how: ignored with the reason, or the whole write refused. */
type Ownership = { ignore: string } | { refuse: string; forbidden: boolean } | null;

/**
 * Who owns `key` (compared in its canonical spelling, so `Health` is `health`), for a write by
 * `role`: scheduler, provider and system keys are ignored with the reason; an operator-owned key
 * written by anyone else refuses the write, and an operator must spell it as the gate reads it.
 */
function ownershipOf(
  key: string,
  role: Role,
  resource: { kind: Kind; provider: Provider; providerAttributeKeys: readonly string[] },
): Ownership {
  // How the reason names the key: as sent, and the owned key it spells when that differs.
  const named = (owned: string) => (owned === key ? key : `${key} (the same key as ${owned})`);
  const scheduler = sameKeyIn(SCHEDULER_OWNED_KEYS, key);
  if (scheduler !== undefined)
    return {
      ignore:
        scheduler === 'health' ? HEALTH_MESSAGE : `${named(scheduler)} is scheduler-owned: only health checks write it`,
    };
  const provider = sameKeyIn(PROVIDER_OWNED_FIELDS, key);
  if (provider !== undefined)
    return { ignore: `${named(provider)} is provider-owned: only the ${resource.provider} ingest writes it` };
  const system = sameKeyIn(SYSTEM_FIELDS, key);
  if (system !== undefined) return { ignore: `${named(system)} is maintained by aitia itself` };
  const operator = sameKeyIn(OPERATOR_OWNED_KEYS, key);
  if (operator !== undefined && role !== 'operator')
    return {
      refuse: `${named(operator)} is operator-owned (${operator} chooses the policy rule the resource is judged by): only an operator or the resource's provider writes it; role ${role} may not`,
      forbidden: true,
    };
  if (operator !== undefined && key !== operator)
    return { refuse: `write it as ${operator}, the key the gate reads`, forbidden: false };
  const catalogued = reservedProviderKey(resource.kind, key);
  const reserved =
    catalogued === undefined ? null : reservedAttributeReason(resource.provider, resource.kind, catalogued);
  if (reserved) return { ignore: key === catalogued ? reserved : `${named(catalogued!)}: ${reserved}` };
  const observed = sameKeyIn(resource.providerAttributeKeys, key);
  if (observed !== undefined)
    return {
      ignore: `${named(observed)} is reported by the ${resource.provider} provider; an agent cannot overwrite an observation`,
    };
  return null;
}

/**
 * Splits an agent's attribute update into what may be written and what is ignored (with the
 * reason). Every key a provider can report for the resource's kind is ignored on a provider
 * resource, whether or not the last pass reported it (PROVIDER_ATTRIBUTE_KEYS), and so is any
 * other key the provider wrote. Keys are compared in their canonical spelling (case, separators,
 * compatibility forms). Returns an error naming the first invalid key or value, or an operator-owned
 * key a non-operator wrote (`code: 'FORBIDDEN'`): then nothing is written. `writer` defaults to an agent.
 */
export function planAttributeUpdate(
  input: unknown,
  resource: {
    id?: string;
    kind: Kind;
    provider: Provider;
    providerAttributeKeys: readonly string[];
    lifecycle?: string;
  },
  writer: { role: Role } = { role: 'agent' },
): { ok: true; plan: AttributePlan } | { ok: false; field: string; reason: string; code?: 'FORBIDDEN' } {
  if (resource.lifecycle === 'destroyed')
    return { ok: false, field: 'id', reason: `resource ${resource.id ?? ''} is destroyed: it takes no more writes` };
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { ok: false, field: 'attributes', reason: 'must be a JSON object of key → value' };
  }
  const count = Object.keys(input).length;
  if (count > ATTRIBUTE_LIMITS.perCall)
    return {
      ok: false,
      field: 'attributes',
      reason: `${count} keys in one call; the limit is ${ATTRIBUTE_LIMITS.perCall}`,
    };
  const set: AttributePlan['set'] = {};
  const ignored: AttributePlan['ignored'] = [];
  const spelled = new Map<string, string>();
  for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
    const owned = ownershipOf(key, writer.role, resource);
    if (owned !== null && 'refuse' in owned)
      return {
        ok: false,
        field: `attributes.${key}`,
        reason: owned.refuse,
        ...(owned.forbidden ? { code: 'FORBIDDEN' as const } : {}),
      };
    if (owned !== null) {
      ignored.push({ key, reason: owned.ignore });
      continue;
    }
    const k = AttributeKeySchema.safeParse(key);
    if (!k.success) return { ok: false, field: `attributes.${key}`, reason: k.error.issues[0]!.message };
    // Two spellings of one key written together: which would a case-folding reader see?
    const twin = spelled.get(canonicalAttributeKey(key));
    if (twin !== undefined)
      return { ok: false, field: `attributes.${key}`, reason: `names the same attribute as ${twin}; send one of them` };
    spelled.set(canonicalAttributeKey(key), key);
    if (value === null) {
      set[key] = null;
      continue;
    }
    const v = AttributeValueSchema.safeParse(value);
    if (!v.success) {
      const custom = v.error.issues.find((i) => i.code === 'custom');
      return {
        ok: false,
        field: `attributes.${key}`,
        reason:
          custom?.message ??
          `must be a string, number, boolean, or a list of one of those (max ${ATTRIBUTE_LIMITS.listItems})`,
      };
    }
    const whole = attributeValueProblem(v.data, { whole: true });
    if (whole) return { ok: false, field: `attributes.${key}`, reason: whole };
    set[key] = v.data;
  }
  const written = Object.keys(set).length;
  const healthIgnored = ignored.find((i) => i.reason === HEALTH_MESSAGE);
  const message = healthIgnored
    ? `${HEALTH_MESSAGE} ${written} attribute(s) written.`
    : ignored.length > 0
      ? `${written} attribute(s) written; ${ignored.length} ignored (see ignored).`
      : `${written} attribute(s) written.`;
  return { ok: true, plan: { set, ignored, message } };
}
