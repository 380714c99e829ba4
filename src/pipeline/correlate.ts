import type { Driver } from 'neo4j-driver';
import {
  candidateWindow,
  DEFAULT_CORRELATOR_SETTINGS,
  explain,
  needsHostActivity,
  unexplained,
  type CorrelatorSettings,
  type Explanation,
  movesNode,
} from '../../correlator/index.js';
import { correlationContexts, type CorrelationContext } from '../graph/transitions/correlation-context.js';
import {
  recordTransitions,
  type NewTransition,
  type PassConditionOp,
  type PassConditionResult,
  type TransitionConditionOp,
} from '../graph/transitions/record.js';
import {
  transitionId,
  type Kind,
  type Transition,
  type TransitionDecision,
  type TransitionRecord,
} from '../model/index.js';
import type { SuppressionMode } from '../policy/policy-document.js';
import { decideCondition, decideTransition } from '../policy/transition-gate.js';
import type { ActorMappingSource } from '../model/actors.js';
import { authorizeExplanations, unauthorizedConditions } from './authorize.js';
import { conditionGate, DEFAULT_CONDITION_POLICY, suppressionAudit, type ConditionPolicy } from './conditions.js';

/** What the correlation step needs from the process: the graph, the policy's mode, the bus. */
export interface CorrelationDeps {
  driver: Driver;
  /** The loaded policy's `attribution.suppression`. */
  suppression: SuppressionMode;
  /** Correlator tuning, e.g. the node clock-skew tolerance (AITIA_CLOCK_SKEW_SECONDS). */
  correlator?: Partial<CorrelatorSettings>;
  /** How conditions open: the suppression mode with the policy digest, and the cause window. */
  conditions?: ConditionPolicy;
  /**
   * The integrations file's `actors:` resolved against the tokens at each pass: a mapped agent's
   * change is credited to its grant or flagged unauthorized. Absent: neither is decided, nothing read.
   */
  actors?: ActorMappingSource;
}

/** A state change as a pass reported it (the stored state → the new one); first sightings are not changes. */
export interface ObservedChange {
  id: string;
  kind: Kind;
  from: string;
  to: string;
  /** The provider's word for the new state. */
  rawState?: string | null;
  /** The provider's word for the old state, when the observer knew it. */
  rawFrom?: string | null;
  /** When the resource was last seen in the old state (its previous lastSeen): the change happened after it. */
  previousObservedAt?: string | null;
}

export interface CorrelationReport {
  /** Transitions stored by this call, in order. */
  created: TransitionRecord[];
  /** Changes already stored (a retried pass): left as they were. */
  existing: string[];
  /** What the transitions' own conditions did. */
  conditions: { opened: string[]; resolved: string[] };
  /** What each of the pass's own conditions did (the `passConditions` asked), in order. */
  passConditions: PassConditionResult[];
  /** Changes that could not be explained or stored, with the error; the others still were. */
  errors: Array<{ resourceId: string; message: string }>;
}

/** The VM state that has its own condition, opened on entry and resolved on exit. */
export const IO_ERROR_STATE = 'paused_io_error';

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** One explanation and the gate's decision on it, for every change of a pass. */
interface Judged {
  change: ObservedChange;
  transition: Transition;
  explanation: Pick<Explanation, 'attribution' | 'narrative'> & { hostId: string | null };
  decision: TransitionDecision;
}

/**
 * Turns a pass's state changes into stored, attributed, gated Transitions: ONE read of everything
 * the correlator needs for all changes, the pure ladder and gate per change, ONE write of the
 * transitions, their feed entries, the conditions they open or resolve and the pass's own
 * conditions (`passConditions`: the adapter's reachability, first sightings). Round trips do not
 * grow with the number of changes. A change whose explanation fails is kept as an honest `none`
 * transition (the pass has stored the new state already, so the next pass will not report it again).
 */
export async function correlateChanges(
  deps: CorrelationDeps,
  changes: readonly ObservedChange[],
  at: { observedAt: string; observer: string },
  passConditions: readonly PassConditionOp[] = [],
): Promise<CorrelationReport> {
  const report: CorrelationReport = {
    created: [],
    existing: [],
    conditions: { opened: [], resolved: [] },
    passConditions: [],
    errors: [],
  };
  if (changes.length === 0 && passConditions.length === 0) return report;
  const s: CorrelatorSettings = { ...DEFAULT_CORRELATOR_SETTINGS, ...deps.correlator };
  if (changes.length > 0 && !candidateWindow(at.observedAt, s))
    throw new Error(`observedAt ${JSON.stringify(at.observedAt)} is not an ISO-8601 time`);
  const transitions: Transition[] = changes.map((c) => ({
    resourceId: c.id,
    kind: c.kind,
    from: c.from,
    to: c.to,
    observedAt: at.observedAt,
    previousObservedAt: c.previousObservedAt ?? null,
    observer: at.observer,
  }));

  let contexts: Array<CorrelationContext | null>;
  try {
    contexts = await correlationContexts(
      deps.driver,
      transitions.map((t) => {
        const window = candidateWindow(t.observedAt, s, t.previousObservedAt)!;
        return {
          transitionId: transitionId(t),
          resourceId: t.resourceId,
          observedAt: t.observedAt,
          from: window.from,
          to: window.to,
          withHostActivity: needsHostActivity(t, s),
          anyNode: movesNode(t),
        };
      }),
    );
  } catch (err) {
    // Without the read nothing can be explained, but every observed change is still kept.
    contexts = changes.map(() => null);
    for (const c of changes) report.errors.push({ resourceId: c.id, message: message(err) });
  }

  const explained: Array<Omit<Judged, 'decision'>> = [];
  changes.forEach((change, i) => {
    const transition = transitions[i]!;
    const ctx = contexts[i];
    if (ctx?.exists) {
      report.existing.push(transitionId(transition));
      return;
    }
    let explanation: Judged['explanation'];
    if (!ctx) {
      explanation = {
        ...unexplained(transition, report.errors.find((e) => e.resourceId === change.id)!.message),
        hostId: null,
      };
    } else {
      try {
        const x = explain({ ...ctx, transition }, s);
        explanation = { attribution: x.attribution, narrative: x.narrative, hostId: x.transition.hostId ?? null };
      } catch (err) {
        report.errors.push({ resourceId: change.id, message: message(err) });
        explanation = { ...unexplained(transition, message(err)), hostId: null };
      }
    }
    explained.push({ change, transition, explanation });
  });
  const judged: Judged[] = (await authorized(deps, explained, report)).map((j) => ({
    ...j,
    decision: decideTransition(j.explanation.attribution, j.explanation.narrative, deps.suppression),
  }));

  const rows: NewTransition[] = judged.map((j) => ({
    resourceId: j.change.id,
    kind: j.change.kind,
    from: j.change.from,
    to: j.change.to,
    observedAt: at.observedAt,
    observer: at.observer,
    hostId: j.explanation.hostId,
    rawFrom: j.change.rawFrom ?? null,
    rawTo: j.change.rawState ?? null,
    attribution: j.explanation.attribution,
    decision: j.decision,
    narrative: j.explanation.narrative,
  }));
  try {
    const policy = { ...DEFAULT_CONDITION_POLICY, suppression: deps.suppression, ...deps.conditions };
    const stored = await recordTransitions(deps.driver, rows, {
      conditions: judged.flatMap((j) => [
        ...stateConditions(j, at.observedAt, policy),
        ...unauthorizedConditions(
          { id: transitionId(j.transition), resourceId: j.change.id, from: j.change.from, to: j.change.to },
          j.explanation,
          { at: at.observedAt, policyDigest: policy.policyDigest },
        ),
      ]),
      passConditions,
      gate: conditionGate(policy),
      auditOf: (opened) => suppressionAudit(opened, { name: at.observer, role: 'scheduler' }),
    });
    report.created = stored.created;
    report.existing.push(...stored.existing);
    report.conditions = stored.conditions;
    report.passConditions = stored.passConditions;
  } catch (err) {
    // The pass's own conditions were not written either: with no change to report it on, that is the pass's failure.
    if (judged.length === 0) throw err;
    for (const j of judged) report.errors.push({ resourceId: j.change.id, message: `not stored: ${message(err)}` });
    return report;
  }
  return report;
}

/**
 * The explanations with the authorization each agent-credited change is credited to, or its flag
 * (src/pipeline/authorize.ts). A failed read leaves them as explained, each change reporting it:
 * the transitions are still stored, with neither an authorization nor an unauthorized flag decided.
 */
async function authorized(
  deps: CorrelationDeps,
  explained: Array<Omit<Judged, 'decision'>>,
  report: CorrelationReport,
): Promise<Array<Omit<Judged, 'decision'>>> {
  try {
    const answers = await authorizeExplanations(
      deps,
      explained.map((j) => ({ transition: j.transition, ...j.explanation })),
    );
    return explained.map((j, i) => ({
      ...j,
      explanation: { ...j.explanation, attribution: answers[i]!.attribution, narrative: answers[i]!.narrative },
    }));
  } catch (err) {
    for (const j of explained)
      report.errors.push({ resourceId: j.change.id, message: `authorizations not read: ${message(err)}` });
    return explained;
  }
}

/** Conditions that follow from the state itself: paused on an I/O error opens one, leaving it resolves it. */
function stateConditions(j: Judged, observedAt: string, policy: ConditionPolicy): TransitionConditionOp[] {
  const { change } = j;
  if (change.kind !== 'vm' || (change.to !== IO_ERROR_STATE && change.from !== IO_ERROR_STATE)) return [];
  const id = transitionId(j.transition);
  const evidence = {
    transitionId: id,
    from: change.from,
    to: change.to,
    rawState: change.rawState ?? null,
    observedAt,
  };
  if (change.to === IO_ERROR_STATE) {
    return [
      {
        transitionId: id,
        op: 'open',
        resourceId: change.id,
        type: 'paused_io_error',
        at: observedAt,
        evidence,
        attribution: { transitionId: id, ...j.explanation.attribution, narrative: j.explanation.narrative },
        suppression: {
          ...decideCondition(j.explanation, policy.suppression),
          policyDigest: policy.policyDigest,
        },
      },
    ];
  }
  return [
    { transitionId: id, op: 'resolve', resourceId: change.id, type: 'paused_io_error', at: observedAt, evidence },
  ];
}

/** An explanation with the gate's decision on it. */
export type ExplainedTransition = Explanation & { decision: TransitionDecision };

/**
 * Explains a transition from stored events without storing anything (`explainTransition`): the
 * same read, the same pure ladder and the same authorization step as a pass, for one change, with
 * the gate's decision.
 */
export async function explainTransition(
  deps: Pick<CorrelationDeps, 'driver' | 'suppression' | 'correlator' | 'actors'>,
  transition: Transition,
): Promise<ExplainedTransition> {
  const s: CorrelatorSettings = { ...DEFAULT_CORRELATOR_SETTINGS, ...deps.correlator };
  const window = candidateWindow(transition.observedAt, s, transition.previousObservedAt ?? null);
  if (!window) throw new Error(`observedAt ${JSON.stringify(transition.observedAt)} is not an ISO-8601 time`);
  const [ctx] = await correlationContexts(deps.driver, [
    {
      transitionId: transitionId(transition),
      resourceId: transition.resourceId,
      observedAt: transition.observedAt,
      from: window.from,
      to: window.to,
      withHostActivity: needsHostActivity(transition, s),
      anyNode: movesNode(transition),
    },
  ]);
  const x = explain({ ...ctx!, transition }, s);
  // An agent's change answers its grant (or that it has none) here as in a pass.
  const [told] = await authorizeExplanations(deps, [
    { transition, attribution: x.attribution, narrative: x.narrative },
  ]);
  const explained = { ...x, attribution: told!.attribution, narrative: told!.narrative };
  return { ...explained, decision: decideTransition(explained.attribution, explained.narrative, deps.suppression) };
}
