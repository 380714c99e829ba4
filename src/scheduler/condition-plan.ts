import type { CheckResult } from '../model/index.js';

/**
 * Which check-driven conditions to open, refresh or resolve on one resource after a tick. Pure.
 *
 * - `check_failing` is open while at least one of the resource's checks is debounced-failing
 *   (flap-state.ts: K fails in a row to become failing, K passes in a row to stop).
 * - `unreachable` is open while at least one check is debounced-unreachable: a provider_state
 *   check reading the state `unreachable`, or an http/tcp check whose address does not answer at
 *   all (no route, host down, connect timeout — probes/outcome.ts; a refused connection or a wrong
 *   status proves the address reachable).
 *
 * A condition opens when the first check becomes active, is refreshed (new evidence) while an
 * active check keeps running, and resolves when the last active check becomes inactive.
 * Attribution stays null: probes, not transitions, drive these.
 */

/** Marks evidence written by the health scheduler, so its sweeps resolve only what it opened. */
export const SCHEDULER_SOURCE = 'health-scheduler';

/** A check as the planner sees it, before or after this tick. */
export interface CheckView {
  id: string;
  kind: string;
  target: string;
  failing: boolean;
  unreachable: boolean;
  /** Newest first. */
  results: CheckResult[];
  /** Did it run in this tick? */
  ran: boolean;
}

export type CheckConditionType = 'check_failing' | 'unreachable';

export interface ConditionAction {
  action: 'open' | 'refresh' | 'resolve';
  resourceId: string;
  type: CheckConditionType;
  evidence: ConditionEvidence;
}

export interface ConditionEvidence {
  source: typeof SCHEDULER_SOURCE;
  k: number;
  summary: string;
  checks: Array<{ checkId: string; kind: string; target: string; results: CheckResult[] }>;
}

const FLAG: Record<CheckConditionType, 'failing' | 'unreachable'> = {
  check_failing: 'failing',
  unreachable: 'unreachable',
};

function evidenceOf(checks: CheckView[], k: number, summary: string): ConditionEvidence {
  return {
    source: SCHEDULER_SOURCE,
    k,
    summary,
    checks: checks.map((c) => ({ checkId: c.id, kind: c.kind, target: c.target, results: c.results.slice(0, k) })),
  };
}

function describe(
  type: CheckConditionType,
  checks: CheckView[],
  k: number,
  phase: 'open' | 'refresh' | 'resolve',
): string {
  const names = checks.map((c) => `${c.kind} ${c.target}`).join(', ');
  const latest = checks.map((c) => c.results[0]?.reason).find((r) => r);
  const why = latest ? ` (latest: ${latest})` : '';
  if (phase === 'resolve')
    return type === 'check_failing' ? `${names} passed ${k} times in a row` : `${names} answered ${k} times in a row`;
  if (phase === 'refresh')
    return type === 'check_failing' ? `${names} still failing${why}` : `${names} still not answering${why}`;
  return type === 'check_failing'
    ? `${names} failed ${k} times in a row${why}`
    : `${names} did not answer ${k} times in a row${why}`;
}

/** Plans one resource's condition changes from its checks before and after the tick. */
export function planConditions(
  resourceId: string,
  before: readonly CheckView[],
  after: readonly CheckView[],
  k: number,
): ConditionAction[] {
  const actions: ConditionAction[] = [];
  for (const type of ['check_failing', 'unreachable'] as const) {
    const flag = FLAG[type];
    const wasActive = before.filter((c) => c[flag]);
    const active = after.filter((c) => c[flag]);
    if (active.length > 0) {
      if (wasActive.length === 0)
        actions.push({
          action: 'open',
          resourceId,
          type,
          evidence: evidenceOf(active, k, describe(type, active, k, 'open')),
        });
      else if (active.some((c) => c.ran))
        actions.push({
          action: 'refresh',
          resourceId,
          type,
          evidence: evidenceOf(active, k, describe(type, active, k, 'refresh')),
        });
    } else if (wasActive.length > 0) {
      const recovered = after.filter((c) => wasActive.some((w) => w.id === c.id));
      actions.push({
        action: 'resolve',
        resourceId,
        type,
        evidence: evidenceOf(recovered, k, describe(type, recovered, k, 'resolve')),
      });
    }
  }
  return actions;
}
