import { DateTime } from 'luxon';

/**
 * ISO-8601 texts to epoch milliseconds and back, as luxon reads and writes them, on the hot path of
 * the explain ladder (issue 35): `DateTime.fromISO` builds a whole zoned object (some 5–10 µs) and
 * one explanation reads a hundred texts. The answers are luxon's, bit for bit: the one shape the
 * graph and the providers write (`2026-05-14T02:08:29.123Z`, `…+02:00`) is read directly when every
 * field is surely valid; any other text, and any field luxon might refuse, goes to luxon itself.
 * test/unit/model/iso-millis.test.ts holds the two against each other.
 */

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const leap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
const [ZERO, DASH, COLON, DOT, PLUS, T, Z] = ['0', '-', ':', '.', '+', 'T', 'Z'].map((c) => c.charCodeAt(0)) as [
  number,
  number,
  number,
  number,
  number,
  number,
  number,
];

/** The two-digit number at `i`, or NaN when either is not a digit (NaN fails every range check). */
function two(text: string, i: number): number {
  const a = text.charCodeAt(i) - ZERO;
  const b = text.charCodeAt(i + 1) - ZERO;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : Number.NaN;
}

/**
 * `yyyy-MM-ddTHH:mm:ss`, then 1–9 fraction digits after a dot, then `Z` or `±HH:MM`, read by
 * character (no regex match, no substrings: this is the hot loop); undefined when luxon must decide.
 */
function canonicalMillis(text: string): number | undefined {
  const n = text.length;
  if (n < 20 || n > 35) return undefined;
  const year = two(text, 0) * 100 + two(text, 2);
  const month = two(text, 5);
  const day = two(text, 8);
  const hour = two(text, 11);
  const minute = two(text, 14);
  const second = two(text, 17);
  const shape =
    text.charCodeAt(4) === DASH &&
    text.charCodeAt(7) === DASH &&
    text.charCodeAt(10) === T &&
    text.charCodeAt(13) === COLON &&
    text.charCodeAt(16) === COLON;
  // Hour 24, second 60, years before 1000 (luxon's 0–99 rule) and odd offsets are luxon's to judge.
  if (!shape || !(year >= 1000 && month >= 1 && month <= 12 && day >= 1 && hour <= 23 && minute <= 59 && second <= 59))
    return undefined;
  if (day > (month === 2 && leap(year) ? 29 : DAYS[month - 1]!)) return undefined;
  let i = 19;
  let millis = 0;
  if (text.charCodeAt(i) === DOT) {
    let j = i + 1;
    while (j < n && j - i <= 9 && text.charCodeAt(j) - ZERO >= 0 && text.charCodeAt(j) - ZERO <= 9) j++;
    if (j === i + 1) return undefined;
    // Luxon's own reading of a fraction (impl/util parseMillis): a float, floored, not the digits cut.
    millis = Math.floor(parseFloat(`0.${text.slice(i + 1, j)}`) * 1000);
    i = j;
  }
  const local = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  const sign = text.charCodeAt(i);
  if (sign === Z) return i + 1 === n ? local : undefined;
  if (!((sign === PLUS || sign === DASH) && i + 6 === n && text.charCodeAt(i + 3) === COLON)) return undefined;
  const h = two(text, i + 1);
  const m = two(text, i + 4);
  if (!(h <= 23 && m <= 59)) return undefined;
  return local - (sign === DASH ? -1 : 1) * (h * 60 + m) * 60_000;
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
