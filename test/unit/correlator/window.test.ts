import { describe, expect, it } from 'vitest';
import { candidateWindow, DEFAULT_CANDIDATE_WINDOW } from '../../../correlator/window.js';

describe('candidateWindow: the start-time range the runner fetches', () => {
  it.each([
    [
      'defaults: 300 s look-back + 1 h longest task + 5 s skew before, 5 s skew after',
      '2026-05-14T02:08:31Z',
      {},
      '2026-05-14T01:03:26.000Z',
      '2026-05-14T02:08:36.000Z',
    ],
    [
      'no skew, no long tasks: exactly the look-back',
      '2026-05-14T02:08:31Z',
      { clockSkewSeconds: 0, maxTaskSeconds: 0 },
      '2026-05-14T02:03:31.000Z',
      '2026-05-14T02:08:31.000Z',
    ],
    [
      'a wider skew widens both ends',
      '2026-05-14T02:08:31Z',
      { clockSkewSeconds: 30, maxTaskSeconds: 60 },
      '2026-05-14T02:02:01.000Z',
      '2026-05-14T02:09:01.000Z',
    ],
    [
      'an offset observation is converted to UTC',
      '2026-05-14T04:08:31+02:00',
      { maxTaskSeconds: 0, clockSkewSeconds: 0 },
      '2026-05-14T02:03:31.000Z',
      '2026-05-14T02:08:31.000Z',
    ],
  ])('%s', (_name, observedAt, options, from, to) => {
    expect(candidateWindow(observedAt, options)).toEqual({ from, to });
  });

  it.each<[string, string, string | null, Record<string, number>, string, string]>([
    [
      'the last millisecond of the day keeps its millisecond',
      '2026-05-14T23:59:59.999Z',
      null,
      {},
      '2026-05-14T22:54:54.999Z',
      '2026-05-15T00:00:04.999Z',
    ],
    [
      'fraction digits past the millisecond are cut',
      '2026-05-14T02:08:31.1239Z',
      null,
      { maxTaskSeconds: 0, clockSkewSeconds: 0 },
      '2026-05-14T02:03:31.123Z',
      '2026-05-14T02:08:31.123Z',
    ],
    [
      'the interval since the previous observation widens the start, across offsets',
      '2026-05-14T04:08:31+02:00',
      '2026-05-13T21:07:30.5-05:00',
      { maxTaskSeconds: 0, clockSkewSeconds: 0 },
      '2026-05-14T02:02:30.500Z',
      '2026-05-14T02:08:31.000Z',
    ],
    [
      'an interval longer than the cap is cut to it',
      '2026-05-14T02:08:31Z',
      '2026-05-13T02:08:31Z',
      { maxChangeIntervalSeconds: 600, maxTaskSeconds: 0, clockSkewSeconds: 0 },
      '2026-05-14T01:53:31.000Z',
      '2026-05-14T02:08:31.000Z',
    ],
    [
      'fractional settings: a part of a millisecond is cut, as luxon does',
      '2026-05-14T02:08:31Z',
      '2026-05-14T02:08:30.999Z',
      { lookbackSeconds: 0.0004, maxTaskSeconds: 0, clockSkewSeconds: 0.0015 },
      '2026-05-14T02:08:30.997Z',
      '2026-05-14T02:08:31.001Z',
    ],
    [
      'an unparseable previous observation is ignored',
      '2026-05-14T02:08:31Z',
      'yesterday',
      { maxTaskSeconds: 0, clockSkewSeconds: 0 },
      '2026-05-14T02:03:31.000Z',
      '2026-05-14T02:08:31.000Z',
    ],
    [
      'a previous observation after this one is ignored',
      '2026-05-14T02:08:31Z',
      '2026-05-14T02:08:32Z',
      { maxTaskSeconds: 0, clockSkewSeconds: 0 },
      '2026-05-14T02:03:31.000Z',
      '2026-05-14T02:08:31.000Z',
    ],
  ])('%s', (_name, observedAt, previous, options, from, to) => {
    expect(candidateWindow(observedAt, options, previous)).toEqual({ from, to });
  });

  it.each(['yesterday', '', '2026-02-29T02:08:31Z', '2026-05-14T02:08:60Z', '2026-05-14T02:08:31Z '])(
    'no window for %j',
    (observedAt) => {
      expect(candidateWindow(observedAt)).toBeNull();
    },
  );

  it('an unparseable observation has no window', () => {
    expect(candidateWindow('yesterday')).toBeNull();
  });

  it('the defaults follow the ladder: 300 s look-back, 5 s skew, one hour of task length', () => {
    expect(DEFAULT_CANDIDATE_WINDOW).toEqual({ lookbackSeconds: 300, clockSkewSeconds: 5, maxTaskSeconds: 3600 });
  });
});
