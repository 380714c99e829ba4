import type { Kind } from './kinds.js';
import { PROVIDER_ATTRIBUTE_KEYS, type ObservingProvider } from './provider-attributes.js';

/**
 * The one spelling-insensitive form of an attribute key, for ownership checks: NFKC (fullwidth
 * letters, ligatures and compatibility forms fold to ASCII), lower case, and without whitespace or
 * the separators `_ . -`. `Health`, ` HEALTH `, `ｈｅａｌｔｈ`, `last-check-at` and `lastCheckAt`
 * name the same owned key as `health` and `last_check_at`: a reader that folds case (a person, a
 * dashboard, a later `toLowerCase()`) must not see an agent's value as the owner's.
 */
export function canonicalAttributeKey(key: string): string {
  return key
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s_.\-\u00ad\u200b-\u200d\u2060\ufeff]+/gu, '');
}

/** The member of `keys` that `key` spells (exactly or not), or undefined. */
export function sameKeyIn(keys: readonly string[], key: string): string | undefined {
  const wanted = canonicalAttributeKey(key);
  return keys.find((k) => canonicalAttributeKey(k) === wanted);
}

/**
 * The catalogue key a provider reports for `kind` that `key` spells, if any (qemu_guest_agent for
 * `QEMU-Guest-Agent`), across every observing provider.
 */
export function reservedProviderKey(kind: Kind, key: string): string | undefined {
  for (const provider of Object.keys(PROVIDER_ATTRIBUTE_KEYS) as ObservingProvider[]) {
    const found = sameKeyIn(PROVIDER_ATTRIBUTE_KEYS[provider][kind] ?? [], key);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Keys only an operator (or a provider's ingest) writes: `entity_type` picks the policy rule a
 * resource is judged by (a service that is a docker-container), so an agent must not choose it.
 */
export const OPERATOR_OWNED_KEYS = ['entity_type'] as const;
