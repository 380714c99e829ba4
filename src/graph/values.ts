import neo4j from 'neo4j-driver';
import { DateTime } from 'luxon';

/**
 * Converts what the driver returns into plain JSON-able values: Integers to numbers (they are
 * counts, ports and ids well within 2^53), temporal values to ISO-8601 UTC strings.
 */
export function toPlain(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (neo4j.isInt(value)) return (value as { toNumber(): number }).toNumber();
  if (neo4j.isDateTime(value)) {
    const d = (value as { toStandardDate(): Date }).toStandardDate();
    return DateTime.fromJSDate(d, { zone: 'utc' }).toISO({ suppressMilliseconds: true });
  }
  if (Array.isArray(value)) return value.map(toPlain);
  if (typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if ('properties' in v && 'labels' in v) return toPlain(v.properties);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toPlain(x)]));
  }
  return value;
}

/** An ISO-8601 UTC timestamp for `datetime($param)`; defaults to now. */
export function isoNow(): string {
  return DateTime.utc().toISO();
}

/** Bolt sends JS numbers as floats; counts and limits must travel as Integers. */
export function int(n: number) {
  return neo4j.int(Math.trunc(n));
}
