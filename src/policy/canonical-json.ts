import { createHash, createHmac } from 'node:crypto';

/**
 * JSON with object keys sorted at every depth, so two documents that differ only in key order or
 * formatting serialise identically. Array order is kept: it can carry meaning.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/** Hex SHA-256 of the canonical JSON of `value`. */
export function digestOf(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

/**
 * Hex HMAC-SHA256 of the canonical JSON of `value` under `key`: a digest that binds a value without
 * letting anyone who reads it test guesses of the value (it takes the key).
 */
export function keyedDigestOf(value: unknown, key: string): string {
  if (key.length < 32) throw new Error('a digest key has at least 32 characters');
  return createHmac('sha256', key).update(canonicalJson(value)).digest('hex');
}
