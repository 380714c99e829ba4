import type { CheckResultStatus, Health } from '../model/index.js';

/**
 * THE health rule — the only place a resource's health is decided. Input: the latest result of
 * each of the resource's checks (null when a check has not run yet) and whether the check is
 * critical. Health follows the latest probes; conditions (check_failing) are the debounced,
 * actionable signal on top of it (see flap-state.ts).
 *
 *   1. no checks                                   → unknown   ("unmonitored")
 *   2. a critical check's latest result is fail    → unhealthy
 *   3. some fail and none pass                     → unhealthy (every check that could answer failed)
 *   4. some fail and some pass                     → degraded
 *   5. none fail and some pass                     → healthy   (unknown results abstain: a check that
 *                                                                cannot be evaluated is not a failure)
 *   6. every result unknown or not yet run         → unknown
 *
 * Unknown therefore never decides on its own when another check has answered; a timeout or a
 * garbage answer is a fail (the probes say so), not an unknown.
 */

/** One check as the rule sees it: its latest status (null: never run) and whether it is critical. */
export interface HealthInput {
  status: CheckResultStatus | null;
  critical: boolean;
}

/** The derived health with the counts and the rule that decided it. */
export interface HealthVerdict {
  health: Health;
  pass: number;
  fail: number;
  unknown: number;
  /** Which rule above decided: for `last_check` and for tests. */
  rule: 'no_checks' | 'critical_failed' | 'all_answers_fail' | 'some_fail' | 'all_answers_pass' | 'no_answers';
}

/** Derives one resource's health from its checks' latest results (the rule above). */
export function deriveHealth(checks: readonly HealthInput[]): HealthVerdict {
  let pass = 0;
  let fail = 0;
  let unknown = 0;
  let criticalFailed = false;
  for (const c of checks) {
    if (c.status === 'pass') pass++;
    else if (c.status === 'fail') {
      fail++;
      if (c.critical) criticalFailed = true;
    } else unknown++;
  }
  const counts = { pass, fail, unknown };
  if (checks.length === 0) return { health: 'unknown', ...counts, rule: 'no_checks' };
  if (criticalFailed) return { health: 'unhealthy', ...counts, rule: 'critical_failed' };
  if (fail > 0 && pass === 0) return { health: 'unhealthy', ...counts, rule: 'all_answers_fail' };
  if (fail > 0) return { health: 'degraded', ...counts, rule: 'some_fail' };
  if (pass > 0) return { health: 'healthy', ...counts, rule: 'all_answers_pass' };
  return { health: 'unknown', ...counts, rule: 'no_answers' };
}

/** The `last_check` summary written beside health, e.g. "degraded: 1 pass, 1 fail, 0 unknown — http: expected 200, got 503". */
export function summariseHealth(verdict: HealthVerdict, firstFailure: string | null): string {
  const counts = `${verdict.pass} pass, ${verdict.fail} fail, ${verdict.unknown} unknown`;
  if (verdict.rule === 'no_checks') return 'unknown: no checks';
  return firstFailure ? `${verdict.health}: ${counts} — ${firstFailure}`.slice(0, 512) : `${verdict.health}: ${counts}`;
}
