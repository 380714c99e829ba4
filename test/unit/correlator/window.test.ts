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

  it('an unparseable observation has no window', () => {
    expect(candidateWindow('yesterday')).toBeNull();
  });

  it('the defaults follow the ladder: 300 s look-back, 5 s skew, one hour of task length', () => {
    expect(DEFAULT_CANDIDATE_WINDOW).toEqual({ lookbackSeconds: 300, clockSkewSeconds: 5, maxTaskSeconds: 3600 });
  });
});
