import { DateTime } from 'luxon';

/**
 * ISO-8601 texts to epoch milliseconds and back, as luxon reads and writes them, on the hot path of
 * the explain ladder (issue 35): `DateTime.fromISO` builds a whole zoned object (some 5–10 µs) and
 * one explanation reads a hundred texts. The answers are luxon's, bit for bit: the one shape the
 * graph and the providers write (`2026-05-14T02:08:29.123Z`, `…+02:00`) is read directly when every
 * field is surely valid; any other text, and any field luxon might refuse, goes to luxon itself.
 * test/unit/model/iso-millis.test.ts holds the two against each other.
 */

// Four-digit year (luxon reads two-digit years apart), 1–9 fraction digits, Z or ±HH:MM.
const CANONICAL = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?(?:(Z)|([+-])(\d\d):(\d\d))$/;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const leap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);

/** The canonical shape read directly; undefined when luxon must decide. */
function canonicalMillis(text: string): number | undefined {
  const m = CANONICAL.exec(text);
  if (!m) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  // Hour 24, second 60, years before 1000 (luxon's 0–99 rule) and odd offsets are luxon's to judge.
  if (year < 1000 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  if (day > (month === 2 && leap(year) ? 29 : DAYS[month - 1]!)) return undefined;
  // Luxon's own reading of a fraction (impl/util parseMillis): floor, not round.
  const millis = m[7] === undefined ? 0 : Math.floor(parseFloat(`0.${m[7]}`) * 1000);
  let offset = 0;
  if (m[8] === undefined) {
    const h = Number(m[10]);
    const min = Number(m[11]);
    if (h > 23 || min > 59) return undefined;
    offset = (m[9] === '-' ? -1 : 1) * (h * 60 + min);
  }
  return Date.UTC(year, month - 1, day, hour, minute, second, millis) - offset * 60_000;
}

/**
 * Epoch milliseconds of an ISO-8601 text as `DateTime.fromISO(text, { setZone: true }).toMillis()`
 * gives them, or null where luxon finds it invalid (and for an empty or absent text).
 */
export function isoMillis(text: string | null | undefined): number | null {
  if (!text) return null;
  const fast = canonicalMillis(text);
  if (fast !== undefined) return fast;
  const dt = DateTime.fromISO(text, { setZone: true });
  return dt.isValid ? dt.toMillis() : null;
}

/**
 * ISO-8601 UTC of epoch milliseconds as `DateTime.fromMillis(ms, { zone: 'utc' }).toISO(options)`
 * writes it (`2026-05-14T02:08:29.000Z`; with `suppressMilliseconds`, a whole second as `…29Z`).
 * Years 0–9999 are written by Date directly (the same digits); others, and non-finite input, by luxon.
 */
export function utcIso(ms: number, options: { suppressMilliseconds?: boolean } = {}): string {
  const text = Number.isFinite(ms) ? new Date(ms).toISOString() : '';
  if (text.length !== 24) return DateTime.fromMillis(ms, { zone: 'utc' }).toISO(options)!;
  return options.suppressMilliseconds && text.endsWith('.000Z') ? `${text.slice(0, 19)}Z` : text;
}

/**
 * `yyyy-MM-dd HH:mm:ss` of epoch milliseconds in a zone of constant offset (UTC, `UTC+2`), as luxon's
 * `toFormat` writes it; null for the years Date writes otherwise, where luxon must.
 */
export function fixedOffsetStamp(ms: number, offsetMinutes: number): string | null {
  const text = new Date(ms + offsetMinutes * 60_000).toISOString();
  return text.length === 24 ? `${text.slice(0, 10)} ${text.slice(11, 19)}` : null;
}
