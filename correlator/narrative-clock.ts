import { DateTime } from 'luxon';
import { fixedOffsetStamp, isoMillis } from '../src/model/iso-millis.js';

/**
 * The narrative's clock: every time it prints, in the one zone asked for (named in the text).
 * Luxon's words exactly, without a luxon DateTime per time where the zone's offset is constant
 * (UTC: every stored narrative): see src/model/iso-millis.ts.
 */

/** Renders times in one zone: full date for the observation, time only for events on the same day. */
export interface Clock {
  label: string;
  full(iso: string): string;
  short(iso: string): string;
}

const STAMP = 'yyyy-MM-dd HH:mm:ss';
/** What luxon writes for a time it cannot read (an unparseable end): kept, so the text is unchanged. */
const INVALID = 'Invalid DateTime';

/** The clock for `zone` around the observation, or why there is none (naming the bad field). */
export function clockFor(zone: string, observedAt: string): Clock | string {
  const observedMs = isoMillis(observedAt);
  if (observedMs === null) return `observedAt ${JSON.stringify(observedAt)} is not an ISO-8601 time`;
  // UTC, the stored narrative's zone (luxon reads `utc` in any case as offset 0), needs no DateTime.
  const utc = zone.toUpperCase() === 'UTC';
  let zoned: DateTime | null = null;
  const local = () => (zoned ??= DateTime.fromMillis(observedMs, { zone }));
  if (!utc && !local().isValid) return `unknown time zone ${JSON.stringify(zone)}`;
  const label = utc ? 'UTC' : `${local().zoneName} (UTC${local().toFormat('ZZ')})`;
  // A zone of constant offset is written from the epoch ms directly; a zone with daylight saving
  // time, and years Date writes otherwise, by luxon.
  const offset = utc ? 0 : local().zone.isUniversal ? local().offset : null;
  const stampOf = (ms: number) => (offset === null ? null : fixedOffsetStamp(ms, offset));
  const day = stampOf(observedMs)?.slice(0, 10) ?? null;
  const at = (ms: number) => DateTime.fromMillis(ms, { zone: local().zone });
  return {
    label,
    full: (iso) => {
      const ms = isoMillis(iso);
      return ms === null ? INVALID : (stampOf(ms) ?? at(ms).toFormat(STAMP));
    },
    short: (iso) => {
      const ms = isoMillis(iso);
      if (ms === null) return INVALID;
      const stamp = day === null ? null : stampOf(ms);
      if (stamp !== null) return stamp.slice(0, 10) === day ? stamp.slice(11) : stamp;
      const t = at(ms);
      return t.hasSame(local(), 'day') ? t.toFormat('HH:mm:ss') : t.toFormat(STAMP);
    },
  };
}
