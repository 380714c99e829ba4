import { DateTime } from 'luxon';
import {
  candidateWindow,
  DEFAULT_CORRELATOR_SETTINGS,
  explain,
  needsHostActivity,
  type CorrelatorSettings,
  movesNode,
} from '../../correlator/index.js';
import { correlationContexts } from '../graph/transitions/correlation-context.js';
import {
  replaceAttributions,
  transitionsAwaitingLog,
  transitionsWithLateEvents,
  type Reattribution,
} from '../graph/transitions/reexplain.js';
import type { Attribution, Transition, TransitionRecord } from '../model/index.js';
import { decideTransition } from '../policy/transition-gate.js';
import {
  type ConditionPolicy,
  type ConditionWriter,
  DEFAULT_CONDITION_POLICY,
  reviseCondition,
  revisionAudit,
} from './conditions.js';
import { authorizeExplanations, unauthorizedConditions } from './authorize.js';
import type { CorrelationDeps } from './correlate.js';

/** Transitions looked at per pass; the rest wait for the next one. */
export const REEXPLAIN_LIMIT = 200;

/** How far back a `no_record` answer is checked for an event stored after it (a task listed late). */
export const LATE_EVENT_HOURS = 1;

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
 * answer may no longer hold: those whose attribution said part of their window was not read
 * (`log_not_read`), and recent `no_record` ones with an event on their resource stored after that
 * answer (a task the provider listed late). ONE read of each kind of pending transition, ONE
 * correlation read for all of them (the same statement a pass uses, with the coverage), the pure
 * ladder, the authorization step a pass takes (an agent's change credited to its grant, or found
 * unauthorized), the gate's decisions, and ONE write transaction of those whose answer changed — a
 * new attribution with the old one kept in `attributionHistory`, its feed entry, the open
 * conditions it caused revised (attribution, suppression, audit) and any `unauthorized_action` it
 * opens. One whose answer is the same is left as it is (no churn).
 */
export async function reexplainAwaitingLog(
  deps: Pick<CorrelationDeps, 'driver' | 'suppression' | 'correlator' | 'conditions' | 'actors'>,
  source: string,
  options: { limit?: number; writer?: ConditionWriter; now?: string } = {},
): Promise<TransitionRecord[]> {
  const s: CorrelatorSettings = { ...DEFAULT_CORRELATOR_SETTINGS, ...deps.correlator };
  const limit = options.limit ?? REEXPLAIN_LIMIT;
  // One clock for the pass: the late-event look-back and the conditions it opens.
  const now = options.now ? DateTime.fromISO(options.now, { zone: 'utc' }) : DateTime.utc();
  const notRead = await transitionsAwaitingLog(deps.driver, { source, limit });
  const late = await transitionsWithLateEvents(deps.driver, {
    source,
    since: now.minus({ hours: LATE_EVENT_HOURS }).toISO()!,
    windowSeconds: s.lookbackSeconds + s.maxChangeIntervalSeconds,
    toleranceSeconds: s.clockSkewSeconds,
    limit,
  });
  const seen = new Set(notRead.map((t) => t.id));
  const pending = [...notRead, ...late.filter((t) => !seen.has(t.id))];
  if (pending.length === 0) return [];
  const changed = (await explainAgain(deps, pending)).filter((x) => !sameAnswer(x));
  if (changed.length === 0) return [];
  const answers = await authorizeExplanations(
    deps,
    changed.map((x) => ({ transition: x.stored, attribution: x.attribution, narrative: x.narrative })),
  );
  const authorized = changed.map((x, i) => ({ ...x, ...answers[i]! }));
  const rows = authorized.map((x) => decide(x, deps.suppression));
  const policy: ConditionPolicy = { ...DEFAULT_CONDITION_POLICY, suppression: deps.suppression, ...deps.conditions };
  const at = now.toISO({ suppressMilliseconds: true })!;
  const opens = authorized.flatMap((x) =>
    unauthorizedConditions(x.stored, x, { at, policyDigest: policy.policyDigest ?? null }),
  );
  const written = await replaceAttributions(deps.driver, rows, {
    reviseCondition: (c, cause) => reviseCondition(c, cause, policy),
    auditOf: (revised) => revisionAudit(revised, options.writer ?? REEXPLAIN_WRITER),
    opens,
    now: options.now,
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

/** The same answer as stored (confidence, reason, actor): nothing new to say, so nothing is written. */
function sameAnswer(x: Explained): boolean {
  const before = x.stored.attribution;
  return (
    x.attribution.confidence === before.confidence &&
    (x.attribution.unknownBecause?.reason ?? null) === (before.unknownBecause?.reason ?? null) &&
    (x.attribution.actor ?? null) === (before.actor ?? null)
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
      gap?.reason === 'no_record'
        ? 'a task or event in its window was listed after it was explained'
        : gap?.from && gap.to
          ? `the log for ${gap.from}–${gap.to}${gap.node ? ` (${gap.node})` : ''} was read later`
          : 'the log was read later',
  };
}
