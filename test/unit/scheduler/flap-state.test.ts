import { describe, expect, it } from 'vitest';
import {
  INITIAL_FLAP,
  failingSignal,
  stepFlap,
  unreachableSignal,
  type FlapSignal,
} from '../../../src/scheduler/flap-state.js';

/** Runs a sequence ("F" fail, "P" pass, "U" unknown) and returns the active flag and change after each step. */
function run(sequence: string, k: number): string {
  let state = { ...INITIAL_FLAP };
  const out: string[] = [];
  for (const ch of sequence) {
    const signal: FlapSignal = ch === 'F' ? 'fail' : ch === 'P' ? 'pass' : 'unknown';
    const step = stepFlap(state, signal, k);
    state = step.state;
    out.push(step.change === 'activated' ? 'O' : step.change === 'deactivated' ? 'R' : state.active ? '+' : '.');
  }
  return out.join('');
}

describe('stepFlap (K in a row to open, K in a row to resolve)', () => {
  // O = becomes active (condition opens), R = becomes inactive (resolves), + = active, . = inactive
  const table: Array<[string, number, string]> = [
    ['FFF', 3, '..O'],
    ['FF', 3, '..'],
    ['FFPFF', 3, '.....'],
    ['FFFF', 3, '..O+'],
    ['FFFPP', 3, '..O++'],
    ['FFFPPP', 3, '..O++R'],
    ['FFFPPFPPP', 3, '..O+++++R'],
    ['FFFPPPFFF', 3, '..O++R..O'],
    ['FFUF', 3, '....'],
    ['FFFUPPUPPP', 3, '..O++++++R'],
    ['F', 1, 'O'],
    ['FP', 1, 'OR'],
    ['PPPP', 3, '....'],
    ['UUU', 3, '...'],
    ['FPFPFPFP', 2, '........'],
    ['FFPFF', 2, '.O+++'],
  ];
  it.each(table)('%s with K=%i → %s', (sequence, k, expected) => {
    expect(run(sequence, k)).toBe(expected);
  });

  it('keeps the streak counters', () => {
    const a = stepFlap({ active: false, failStreak: 1, passStreak: 0 }, 'fail', 3).state;
    expect(a).toEqual({ active: false, failStreak: 2, passStreak: 0 });
    const b = stepFlap({ active: true, failStreak: 4, passStreak: 0 }, 'pass', 3).state;
    expect(b).toEqual({ active: true, failStreak: 0, passStreak: 1 });
    expect(stepFlap(b, 'unknown', 3).state).toEqual({ active: true, failStreak: 0, passStreak: 0 });
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses k=%s', (k) => {
    expect(() => stepFlap(INITIAL_FLAP, 'fail', k)).toThrow(/k must be a positive integer/);
  });
});

describe('signals', () => {
  const table: Array<[string, 'pass' | 'fail' | 'unknown', boolean, FlapSignal, FlapSignal]> = [
    ['pass', 'pass', false, 'pass', 'pass'],
    ['wrong status (answered)', 'fail', false, 'fail', 'pass'],
    ['connect timeout', 'fail', true, 'fail', 'fail'],
    ['unknown', 'unknown', false, 'unknown', 'unknown'],
  ];
  it.each(table)('%s', (_n, status, unreachable, failing, reach) => {
    expect(failingSignal({ status })).toBe(failing);
    expect(unreachableSignal({ status, unreachable })).toBe(reach);
  });
});
