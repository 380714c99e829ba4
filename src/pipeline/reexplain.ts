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
import type { Attribution, Transition, TransitionRecord } from '../model/index.js';
import { decideTransition } from '../policy/transition-gate.js';
import {
  type ConditionPolicy,
  type ConditionWriter,
  DEFAULT_CONDITION_POLICY,
  reviseCondition,
  revisionAudit,
} from './conditions.js';
import type { CorrelationDeps } from './correlate.js';

/** Transitions looked at per pass; the rest wait for the next one. */
export const REEXPLAIN_LIMIT = 200;

/** Who the audit lines of a re-explanation's condition revisions name. */
export const REEXPLAIN_WRITER: ConditionWriter = { name: 'aitia-reexplain', role: 'scheduler' };

/** One pending transition and its new explanation. */
interface Explained {
  stored: TransitionRecord;
  attribution: Attribution;
  narrative: string;
}

/**
 * After a pass has read a source's logs, explains again the transitions of that source whose
 * attribution said part of their window was not read (`log_not_read`): ONE read of the pending
 * transitions, ONE correlation read for all of them (the same statement a pass uses, with the
 * coverage), the pure ladder, the gate's decisions, and ONE write transaction of those whose answer
 * changed — a new attribution with the old one kept in `attributionHistory`, its feed entry, and
 * the open conditions it caused revised (attribution, suppression, audit). One still not read is
 * left as it is (no churn). Steps: explain → (authorization, when it lands) → decide → write.
 */
export async function reexplainAwaitingLog(
  deps: Pick<CorrelationDeps, 'driver' | 'suppression' | 'correlator' | 'conditions'>,
  source: string,
  options: { limit?: number; writer?: ConditionWriter } = {},
): Promise<TransitionRecord[]> {
  const pending = await transitionsAwaitingLog(deps.driver, { source, limit: options.limit ?? REEXPLAIN_LIMIT });
  if (pending.length === 0) return [];
  const explained = await explainAgain(deps, pending);
  // Hook point: an authorization step may credit a grant to each x.attribution here, before the gate decides.
  const changed = explained.filter((x) => !stillNotRead(x));
  const rows = changed.map((x) => decide(x, deps.suppression));
  const policy: ConditionPolicy = { ...DEFAULT_CONDITION_POLICY, suppression: deps.suppression, ...deps.conditions };
  const written = await replaceAttributions(deps.driver, rows, {
    reviseCondition: (c, cause) => reviseCondition(c, cause, policy),
    auditOf: (revised) => revisionAudit(revised, options.writer ?? REEXPLAIN_WRITER),
  });
  return written.transitions;
}

/** The pending transitions through the ladder again: one correlation read for all of them. */
async function explainAgain(
  deps: Pick<CorrelationDeps, 'driver' | 'correlator'>,
  pending: readonly TransitionRecord[],
): Promise<Explained[]> {
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
  return pending.map((stored, i) => {
    const x = explain({ ...contexts[i]!, transition: transitions[i]! }, s);
    return { stored, attribution: x.attribution, narrative: x.narrative };
  });
}

/** Still a gap at the same confidence: nothing new to say, so nothing is written. */
function stillNotRead(x: Explained): boolean {
  return (
    x.attribution.unknownBecause?.reason === 'log_not_read' &&
    x.attribution.confidence === x.stored.attribution.confidence
  );
}

/** The gate's decision on the new answer, and why it was asked again. */
function decide(x: Explained, suppression: CorrelationDeps['suppression']): Reattribution {
  const gap = x.stored.attribution.unknownBecause;
  return {
    transitionId: x.stored.id,
    replaces: x.stored,
    attribution: x.attribution,
    decision: decideTransition(x.attribution, x.narrative, suppression),
    narrative: x.narrative,
    because:
      gap?.from && gap.to
        ? `the log for ${gap.from}–${gap.to}${gap.node ? ` (${gap.node})` : ''} was read later`
        : 'the log was read later',
  };
}
