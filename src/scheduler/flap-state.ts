import type { CheckResult } from '../model/index.js';

/**
 * Flapping control, as a pure state machine per check and per concern (failing; unreachable).
 * A concern becomes active after K `fail` signals in a row and inactive after K `pass` signals in
 * a row. An `unknown` signal breaks both runs ("in a row" means unbroken) and changes nothing else:
 * a check that cannot be evaluated neither opens nor resolves a condition.
 */
export interface FlapState {
  active: boolean;
  failStreak: number;
  passStreak: number;
}

export type FlapSignal = 'fail' | 'pass' | 'unknown';

export type FlapChange = 'activated' | 'deactivated' | null;

/** A check that has never run: inactive, no runs. */
export const INITIAL_FLAP: Readonly<FlapState> = Object.freeze({ active: false, failStreak: 0, passStreak: 0 });

/** One step of the machine. `k` must be a positive integer (1 = no debouncing). */
export function stepFlap(state: FlapState, signal: FlapSignal, k: number): { state: FlapState; change: FlapChange } {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
  if (signal === 'unknown') return { state: { active: state.active, failStreak: 0, passStreak: 0 }, change: null };
  if (signal === 'fail') {
    const failStreak = state.failStreak + 1;
    const activate = !state.active && failStreak >= k;
    return {
      state: { active: state.active || activate, failStreak, passStreak: 0 },
      change: activate ? 'activated' : null,
    };
  }
  const passStreak = state.passStreak + 1;
  const deactivate = state.active && passStreak >= k;
  return {
    state: { active: state.active && !deactivate, failStreak: 0, passStreak },
    change: deactivate ? 'deactivated' : null,
  };
}

/** The failing concern reads the status as it is. */
export function failingSignal(result: Pick<CheckResult, 'status'>): FlapSignal {
  return result.status;
}

/**
 * The unreachable concern: an unreachable result is a `fail`; any answer from the target (even a
 * wrong status, even a refused connection) proves it reachable, a `pass`; unknown stays unknown.
 */
export function unreachableSignal(result: Pick<CheckResult, 'status' | 'unreachable'>): FlapSignal {
  if (result.unreachable) return 'fail';
  return result.status === 'unknown' ? 'unknown' : 'pass';
}
