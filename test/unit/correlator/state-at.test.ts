import { describe, expect, it } from 'vitest';
import { stateAt, type HistoryTransition } from '../../../correlator/state-at.js';

const t1: HistoryTransition = { id: 't1', from: 'running', to: 'stopped', observedAt: '2026-05-14T02:00:00Z' };
const t2: HistoryTransition = { id: 't2', from: 'stopped', to: 'running', observedAt: '2026-05-14T03:00:00Z' };
const current = { state: 'running', firstSeen: '2026-05-14T01:00:00Z' };

describe('stateAt: from the transition history, never invented', () => {
  it.each([
    ['after the last transition: its to', '2026-05-14T04:00:00Z', t2, t1, 'running', 'transition', 't2'],
    ["between two transitions: the earlier one's to", '2026-05-14T02:30:00Z', t1, t1, 'stopped', 'transition', 't1'],
    ['exactly at a transition: it has happened', '2026-05-14T02:00:00Z', t1, t1, 'stopped', 'transition', 't1'],
    [
      'before the first transition, after the first sighting: its from',
      '2026-05-14T01:30:00Z',
      null,
      t1,
      'running',
      'before_first_transition',
      't1',
    ],
    ['before the first sighting: unknown', '2026-05-14T00:30:00Z', null, t1, 'unknown', 'unknown', null],
    [
      'no transitions, after the first sighting: the current state',
      '2026-05-14T05:00:00Z',
      null,
      null,
      'running',
      'current_state',
      null,
    ],
  ] as const)('%s', (_name, at, lastAtOrBefore, first, state, basis, transitionId) => {
    const answer = stateAt({ at, lastAtOrBefore, first, current });
    expect(answer).toMatchObject({ state, basis, transitionId });
    expect(answer.reason.length).toBeGreaterThan(10);
  });

  it('no first sighting recorded and no transitions: unknown, saying why', () => {
    expect(
      stateAt({
        at: '2026-05-14T05:00:00Z',
        lastAtOrBefore: null,
        first: null,
        current: { state: 'running', firstSeen: null },
      }),
    ).toMatchObject({
      state: 'unknown',
      basis: 'unknown',
      reason: expect.stringContaining('no first sighting recorded'),
    });
  });
});
