import { DateTime, FixedOffsetZone } from 'luxon';
import { describe, expect, it } from 'vitest';
import { fixedOffsetStamp, isoMillis, utcIso } from '../../../src/model/iso-millis.js';

/** What the ladder computed before the fast paths: luxon, read with the zone the text names. */
const luxonMillis = (text: string | null | undefined): number | null => {
  if (!text) return null;
  const dt = DateTime.fromISO(text, { setZone: true });
  return dt.isValid ? dt.toMillis() : null;
};

/** A deterministic pseudo-random stream. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32;
}

describe('isoMillis: epoch ms of an ISO-8601 text, as luxon reads it', () => {
  const utc = (...a: [number, number, number, number, number, number, number?]) =>
    Date.UTC(a[0], a[1] - 1, a[2], a[3], a[4], a[5], a[6] ?? 0);
  it.each<[string, string | null | undefined, number | null]>([
    ['whole seconds, Z', '2026-05-14T02:08:29Z', utc(2026, 5, 14, 2, 8, 29)],
    ['milliseconds', '2026-05-14T02:08:29.123Z', utc(2026, 5, 14, 2, 8, 29, 123)],
    ['one fraction digit is tenths', '2026-05-14T02:08:29.5Z', utc(2026, 5, 14, 2, 8, 29, 500)],
    ['a longer fraction is cut, not rounded', '2026-05-14T02:08:29.1239Z', utc(2026, 5, 14, 2, 8, 29, 123)],
    ['nine digits', '2026-05-14T02:08:29.999999999Z', utc(2026, 5, 14, 2, 8, 29, 999)],
    ['the last millisecond of the day', '2026-12-31T23:59:59.999Z', utc(2026, 12, 31, 23, 59, 59, 999)],
    ['an offset east of UTC', '2026-05-14T04:08:29+02:00', utc(2026, 5, 14, 2, 8, 29)],
    ['an offset west of UTC, half hour', '2026-05-13T20:38:29-05:30', utc(2026, 5, 14, 2, 8, 29)],
    ['minus zero hours keeps the minutes negative', '2026-05-14T01:38:29-00:30', utc(2026, 5, 14, 2, 8, 29)],
    ['+00:00', '2026-05-14T02:08:29.250+00:00', utc(2026, 5, 14, 2, 8, 29, 250)],
    ['29 February of a leap year', '2024-02-29T00:00:00Z', utc(2024, 2, 29, 0, 0, 0)],
    ['29 February of 2000 (divisible by 400)', '2000-02-29T12:00:00Z', utc(2000, 2, 29, 12, 0, 0)],
    ['29 February of 2026', '2026-02-29T00:00:00Z', null],
    ['29 February of 2100 (divisible by 100)', '2100-02-29T00:00:00Z', null],
    ['31 April', '2026-04-31T00:00:00Z', null],
    ['month 13', '2026-13-01T00:00:00Z', null],
    ['day 0', '2026-05-00T00:00:00Z', null],
    ['minute 60', '2026-05-14T02:60:00Z', null],
    ['second 60 (no leap seconds)', '2026-05-14T02:08:60Z', null],
    ['24:00:00 is the next midnight to luxon', '2026-05-14T24:00:00Z', utc(2026, 5, 15, 0, 0, 0)],
    ['24:00:01', '2026-05-14T24:00:01Z', null],
    ['lower-case t and z', '2026-05-14t02:08:29.123z', utc(2026, 5, 14, 2, 8, 29, 123)],
    ['a comma fraction', '2026-05-14T02:08:29,5Z', utc(2026, 5, 14, 2, 8, 29, 500)],
    ['basic format', '20260514T020829Z', utc(2026, 5, 14, 2, 8, 29)],
    ['no seconds', '2026-05-14T02:08Z', utc(2026, 5, 14, 2, 8, 0)],
    ['an offset without a colon', '2026-05-14T04:08:29+0200', utc(2026, 5, 14, 2, 8, 29)],
    ['an hour-only offset', '2026-05-14T04:08:29+02', utc(2026, 5, 14, 2, 8, 29)],
    ['a bracketed zone', '2026-05-14T04:08:29+02:00[Europe/Berlin]', utc(2026, 5, 14, 2, 8, 29)],
    ['a two-digit-hundreds year', '0099-05-14T02:08:29Z', luxonMillis('0099-05-14T02:08:29Z')],
    ['a six-digit year', '+012026-05-14T02:08:29Z', luxonMillis('+012026-05-14T02:08:29Z')],
    ['ten fraction digits', '2026-05-14T02:08:29.1234567891Z', utc(2026, 5, 14, 2, 8, 29, 123)],
    ['trailing space', '2026-05-14T02:08:29Z ', null],
    ['words', 'yesterday', null],
    ['empty', '', null],
    ['null', null, null],
    ['undefined', undefined, null],
  ])('%s', (_name, text, expected) => {
    expect(isoMillis(text)).toBe(expected);
    expect(isoMillis(text)).toBe(luxonMillis(text));
  });

  it('a time without a zone is read in luxon’s default zone, as luxon reads it', () => {
    for (const text of ['2026-05-14T02:08:29', '2026-05-14', '2026-05-14T02:08:29.5'])
      expect(isoMillis(text)).toBe(luxonMillis(text));
  });

  it('agrees with luxon on 20,000 texts of the canonical shape, in range and out of it', () => {
    const r = rng(35);
    const two = (lo: number, hi: number) => String(lo + Math.floor(r() * (hi - lo + 1))).padStart(2, '0');
    for (let i = 0; i < 20_000; i++) {
      const year = String(900 + Math.floor(r() * 9200)).padStart(4, '0');
      const fraction = r() < 0.5 ? '' : `.${String(Math.floor(r() * 1e9)).slice(0, 1 + Math.floor(r() * 9))}`;
      const zone = r() < 0.5 ? 'Z' : `${r() < 0.5 ? '+' : '-'}${two(0, 25)}:${two(0, 61)}`;
      const text = `${year}-${two(0, 13)}-${two(0, 32)}T${two(0, 24)}:${two(0, 60)}:${two(0, 60)}${fraction}${zone}`;
      expect(isoMillis(text), text).toBe(luxonMillis(text));
    }
  });

  it('agrees with luxon on 20,000 texts one character off the canonical shape', () => {
    const r = rng(36);
    const chars = '0123456789-:T.Z+z ,t';
    const seeds = ['2026-05-14T02:08:29Z', '2024-02-29T23:59:59.999Z', '2026-05-14T04:08:29.5+02:00'];
    for (let i = 0; i < 20_000; i++) {
      const seed = seeds[i % seeds.length]!;
      const at = Math.floor(r() * (seed.length + 1));
      const c = chars[Math.floor(r() * chars.length)]!;
      const op = r();
      // Replace, insert or delete one character.
      const text =
        op < 0.5
          ? seed.slice(0, at) + c + seed.slice(at + 1)
          : op < 0.8
            ? seed.slice(0, at) + c + seed.slice(at)
            : seed.slice(0, at) + seed.slice(at + 1);
      expect(isoMillis(text), text).toBe(luxonMillis(text));
    }
  });
});

describe('utcIso: epoch ms as luxon writes them in UTC', () => {
  const luxonIso = (ms: number, o: { suppressMilliseconds?: boolean } = {}) =>
    DateTime.fromMillis(ms, { zone: 'utc' }).toISO(o);
  it.each<[string, number, boolean, string | null]>([
    ['milliseconds always', Date.UTC(2026, 4, 14, 2, 8, 29), false, '2026-05-14T02:08:29.000Z'],
    ['a whole second suppressed', Date.UTC(2026, 4, 14, 2, 8, 29), true, '2026-05-14T02:08:29Z'],
    ['a fraction kept when suppressing', Date.UTC(2026, 4, 14, 2, 8, 29, 7), true, '2026-05-14T02:08:29.007Z'],
    ['the last millisecond of the year', Date.UTC(2026, 11, 31, 23, 59, 59, 999), true, '2026-12-31T23:59:59.999Z'],
    ['a fractional ms is cut', Date.UTC(2026, 4, 14, 2, 8, 29, 7) + 0.75, false, '2026-05-14T02:08:29.007Z'],
    ['before 1970', -1, false, '1969-12-31T23:59:59.999Z'],
    ['year 10000 in luxon’s six digits', Date.UTC(10000, 0, 1), true, '+010000-01-01T00:00:00Z'],
    ['not a number', Number.NaN, false, null],
  ])('%s', (_name, ms, suppress, expected) => {
    expect(utcIso(ms, { suppressMilliseconds: suppress })).toBe(expected);
    expect(utcIso(ms, { suppressMilliseconds: suppress })).toBe(luxonIso(ms, { suppressMilliseconds: suppress }));
  });

  it('agrees with luxon over four millennia', () => {
    const r = rng(7);
    for (let i = 0; i < 5000; i++) {
      const ms = Math.floor((r() - 0.3) * 1.3e14);
      expect(utcIso(ms)).toBe(luxonIso(ms));
      expect(utcIso(ms, { suppressMilliseconds: true })).toBe(luxonIso(ms, { suppressMilliseconds: true }));
    }
  });
});

describe('fixedOffsetStamp: yyyy-MM-dd HH:mm:ss in a zone of constant offset', () => {
  it('agrees with luxon’s toFormat, and leaves years Date writes otherwise to luxon', () => {
    const r = rng(9);
    for (let i = 0; i < 5000; i++) {
      const ms = Math.floor(r() * 2.5e12);
      const offset = Math.round((r() - 0.5) * 28) * 30;
      const luxon = DateTime.fromMillis(ms, { zone: FixedOffsetZone.instance(offset) }).toFormat('yyyy-MM-dd HH:mm:ss');
      expect(fixedOffsetStamp(ms, offset)).toBe(luxon);
    }
    expect(fixedOffsetStamp(Date.UTC(9999, 11, 31, 23, 59, 59), 0)).toBe('9999-12-31 23:59:59');
    expect(fixedOffsetStamp(Date.UTC(9999, 11, 31, 23, 59, 59), 60)).toBeNull();
  });
});
