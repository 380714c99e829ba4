import {
  candidateWindow,
  DEFAULT_CORRELATOR_SETTINGS,
  explain,
  needsHostActivity,
  type CorrelatorSettings,
  movesNode,
} from '../../correlator/index.js';
import { correlationContexts } from '../graph/transitions/correlation-context.js';
import { replaceAttributions, transitionsAwaitingLog, type Reattribution } from '../graph/transitions/reexplain.js';
import type { Transition, TransitionRecord } from '../model/index.js';
import { decideTransition } from '../policy/transition-gate.js';
import type { CorrelationDeps } from './correlate.js';

/** Transitions looked at per pass; the rest wait for the next one. */
export const REEXPLAIN_LIMIT = 200;

/**
 * After a pass has read a source's logs, explains again the transitions of that source whose
 * attribution said part of their window was not read (`log_not_read`): ONE read of the pending
 * transitions, ONE correlation read for all of them (the same statement a pass uses, with the
 * coverage), the pure ladder, and ONE write of those whose answer changed — a new attribution, the
 * old one kept in `attributionHistory`. One still not read is left as it is (no churn).
 */
export async function reexplainAwaitingLog(
  deps: Pick<CorrelationDeps, 'driver' | 'suppression' | 'correlator'>,
  source: string,
  options: { limit?: number } = {},
): Promise<TransitionRecord[]> {
  const pending = await transitionsAwaitingLog(deps.driver, { source, limit: options.limit ?? REEXPLAIN_LIMIT });
  if (pending.length === 0) return [];
  const s: CorrelatorSettings = { ...DEFAULT_CORRELATOR_SETTINGS, ...deps.correlator };
  const transitions: Transition[] = pending.map((t) => ({
    id: t.id,
    resourceId: t.resourceId,
    kind: t.kind,
    from: t.from,
    to: t.to,
    observedAt: t.observedAt,
    previousObservedAt: t.attribution.previousObservedAt,
    observer: t.observer,
    hostId: t.hostId,
  }));
  const contexts = await correlationContexts(
    deps.driver,
    transitions.map((t) => {
      const w = candidateWindow(t.observedAt, s, t.previousObservedAt)!;
      return {
        transitionId: t.id!,
        resourceId: t.resourceId,
        observedAt: t.observedAt,
        from: w.from,
        to: w.to,
        withHostActivity: needsHostActivity(t, s),
        anyNode: movesNode(t),
      };
    }),
  );
  const rows: Reattribution[] = [];
  pending.forEach((stored, i) => {
    const x = explain({ ...contexts[i]!, transition: transitions[i]! }, s);
    const before = stored.attribution;
    const still =
      x.attribution.unknownBecause?.reason === 'log_not_read' && x.attribution.confidence === before.confidence;
    if (still) return;
    const gap = before.unknownBecause;
    rows.push({
      transitionId: stored.id,
      replaces: stored,
      attribution: x.attribution,
      decision: decideTransition(x.attribution, x.narrative, deps.suppression),
      narrative: x.narrative,
      because:
        gap?.from && gap.to
          ? `the log for ${gap.from}–${gap.to}${gap.node ? ` (${gap.node})` : ''} was read later`
          : 'the log was read later',
    });
  });
  return replaceAttributions(deps.driver, rows);
}
