import {
  ATTRIBUTE_LIMITS,
  AttributeKeySchema,
  attributeValueProblem,
  AttributeValueSchema,
  type AttributeValue,
} from './attributes.js';
import type { Kind, Provider } from './kinds.js';
import { reservedAttributeReason } from './provider-attributes.js';

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
] as const;

export const HEALTH_MESSAGE =
  'health is scheduler-owned and was not written: it is derived from probes by the scheduler. Observe it with the healthSummary query and checks(resourceId).';

export interface AttributePlan {
  /** Keys to write (`null` removes the key). */
  set: Record<string, AttributeValue | null>;
  ignored: Array<{ key: string; reason: string }>;
  message: string;
}

/**
 * Splits an agent's attribute update into what may be written and what is ignored (with the
 * reason). Every key a provider can report for the resource's kind is ignored on a provider
 * resource, whether or not the last pass reported it (PROVIDER_ATTRIBUTE_KEYS), and so is any
 * other key the provider wrote. Returns an error naming the first invalid key or value: then
 * nothing is written.
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
): { ok: true; plan: AttributePlan } | { ok: false; field: string; reason: string } {
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
  for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
    if ((SCHEDULER_OWNED_KEYS as readonly string[]).includes(key)) {
      ignored.push({
        key,
        reason: key === 'health' ? HEALTH_MESSAGE : `${key} is scheduler-owned: only health checks write it`,
      });
      continue;
    }
    if ((PROVIDER_OWNED_FIELDS as readonly string[]).includes(key)) {
      ignored.push({ key, reason: `${key} is provider-owned: only the ${resource.provider} ingest writes it` });
      continue;
    }
    if ((SYSTEM_FIELDS as readonly string[]).includes(key)) {
      ignored.push({ key, reason: `${key} is maintained by aitia itself` });
      continue;
    }
    const reserved = reservedAttributeReason(resource.provider, resource.kind, key);
    if (reserved) {
      ignored.push({ key, reason: reserved });
      continue;
    }
    if (resource.providerAttributeKeys.includes(key)) {
      ignored.push({
        key,
        reason: `${key} is reported by the ${resource.provider} provider; an agent cannot overwrite an observation`,
      });
      continue;
    }
    const k = AttributeKeySchema.safeParse(key);
    if (!k.success) return { ok: false, field: `attributes.${key}`, reason: k.error.issues[0]!.message };
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
  const healthIgnored = ignored.find((i) => i.key === 'health');
  const message = healthIgnored
    ? `${HEALTH_MESSAGE} ${written} attribute(s) written.`
    : ignored.length > 0
      ? `${written} attribute(s) written; ${ignored.length} ignored (see ignored).`
      : `${written} attribute(s) written.`;
  return { ok: true, plan: { set, ignored, message } };
}
