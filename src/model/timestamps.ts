/**
 * Timestamps in input carry their zone: `Z` or an offset. A time without one would be read in
 * some default zone and could be hours off, so it is refused rather than guessed.
 */
const ZONE_SUFFIX = /(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;

/** Why an ISO-8601 timestamp is refused for its zone, or null when it names one. */
export function isoZoneProblem(value: string): string | null {
  // A date alone (2026-05-14) has no time to be off by; anything with a time needs a zone.
  if (!value.includes('T') && !value.includes(' ')) return null;
  return ZONE_SUFFIX.test(value.trim()) ? null : `${JSON.stringify(value)} has no time zone (add Z or an offset)`;
}
