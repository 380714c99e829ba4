import type { ConditionRevision, RevisedCondition } from '../graph/condition-reattribution.js';
import type { ConditionGate } from '../graph/transitions/record.js';
import type { ConditionRecord, ConditionType, TransitionRecord } from '../model/index.js';
import type { SuppressionMode } from '../policy/policy-document.js';
import type { LoadedPolicy } from '../policy/startup.js';
import { decideCondition } from '../policy/transition-gate.js';

/**
 * How conditions that know their cause open: the change each follows (the resource or what it
 * runs on, within the cause window) is looked up in the write's own transaction, the attribution
 * gate decides how it opens (suppressed, would-have-been, or paged), and every suppression
 * decision gets an audit line. Conditions are written from two places only, both under this
 * policy: the observation's write (recordTransitions, through the correlation step) and the
 * health scheduler's (writeConditions, src/scheduler/condition-write.ts). Open ones are revised
 * under it too when their cause is explained again (reexplain.ts): {@link reviseCondition}.
 */

/** What the attribution gate needs from the policy in force. */
export interface ConditionPolicy {
  suppression: SuppressionMode;
  policyDigest: string | null;
  causeWindowSeconds: number;
}

/** The policy every condition opens under when none is given: shadow, the shipped window. */
export const DEFAULT_CONDITION_POLICY: ConditionPolicy = {
  suppression: 'shadow',
  policyDigest: null,
  causeWindowSeconds: 900,
};

/** The attribution settings of a loaded policy, as conditions need them. */
export function conditionPolicyOf(loaded: LoadedPolicy): ConditionPolicy {
  return {
    suppression: loaded.policy.attribution.suppression,
    policyDigest: loaded.digest,
    causeWindowSeconds: loaded.policy.attribution.cause_window_seconds,
  };
}

/** One condition to open (or refresh when open already). */
export interface ConditionRequest {
  resourceId: string;
  type: ConditionType;
  evidence: unknown;
  at: string;
  /** Look up the change it follows and let the gate decide (default); false opens it as given (reporting only). */
  caused?: boolean;
}

/** Who writes: its audit lines carry this principal. */
export interface ConditionWriter {
  name: string;
  role: 'scheduler' | 'ingester' | 'operator';
}

/** The attribution a condition carries: its cause transition's, with the narrative (as paused_io_error has). */
export function causeAttribution(cause: TransitionRecord): Record<string, unknown> {
  return { transitionId: cause.id, ...cause.attribution, narrative: cause.narrative };
}

/** The gate a caused condition opens through: its cause's attribution and link, and the decision. */
export function conditionGate(policy: ConditionPolicy): ConditionGate {
  return {
    windowSeconds: policy.causeWindowSeconds,
    open: (cause) => ({
      ...(cause ? { attribution: causeAttribution(cause), causeTransitionId: cause.id } : {}),
      suppression: { ...decideCondition(cause, policy.suppression), policyDigest: policy.policyDigest },
    }),
  };
}

/** One audit line per new condition the gate suppressed or would have suppressed, with the digest. */
export function suppressionAudit(
  opened: ReadonlyArray<{ condition: ConditionRecord; opened: boolean }>,
  writer: ConditionWriter,
) {
  return opened
    .filter((o) => o.opened && (o.condition.suppressed || o.condition.wouldSuppress))
    .map(({ condition: c }) => ({
      principal: writer.name,
      role: writer.role,
      operation: c.suppressed ? 'conditionSuppressed' : 'conditionWouldSuppress',
      targetIds: [c.resourceId, c.id],
      outcome: 'ok' as const,
      detail: `${c.suppressed ? 'suppressed' : 'would have suppressed'} ${c.type} on ${c.resourceId}: ${c.suppressionReasons.join('; ')}; policy ${c.policyDigest ?? 'unknown'}`,
    }));
}

/**
 * An open condition whose cause was explained again (pure): it takes the cause's new attribution
 * and the gate decides again, as if it opened now under `policy`. An `unauthorized_action` is
 * never suppressed. A suppression the new answer no longer supports is lifted — the condition
 * pages — and says so, so nobody stops being paged, or starts, without a reason on the record.
 */
export function reviseCondition(
  condition: ConditionRecord,
  cause: TransitionRecord,
  policy: ConditionPolicy,
): ConditionRevision {
  const attribution = causeAttribution(cause);
  if (condition.type === 'unauthorized_action')
    return {
      attribution,
      suppressed: false,
      wouldSuppress: false,
      reasons: ['an agent action with no matching authorization is never suppressed'],
      policyDigest: policy.policyDigest,
    };
  const d = decideCondition(cause, policy.suppression);
  const lifted = condition.suppressed && !d.suppressed;
  return {
    attribution,
    suppressed: d.suppressed,
    wouldSuppress: d.wouldSuppress,
    reasons: lifted
      ? [...d.reasons, 'was suppressed under its first answer; the new one does not make it intentional: it pages now']
      : d.reasons,
    policyDigest: policy.policyDigest,
  };
}

/** The audit operation of a revision that changed who is paged, or null when paging stayed as it was. */
function revisionOperation({ before, after }: RevisedCondition): string | null {
  if (!before.suppressed && after.suppressed) return 'conditionSuppressed';
  if (before.suppressed && !after.suppressed) return 'conditionUnsuppressed';
  if (!before.wouldSuppress && after.wouldSuppress) return 'conditionWouldSuppress';
  return null;
}

/** One audit line per revised condition whose suppression decision changed, with why and the digest. */
export function revisionAudit(revised: readonly RevisedCondition[], writer: ConditionWriter) {
  return revised.flatMap((r) => {
    const operation = revisionOperation(r);
    if (!operation) return [];
    const c = r.after;
    const because = c.attributionHistory?.at(-1)?.replacedBecause ?? 'its cause was explained again';
    const verb =
      operation === 'conditionSuppressed'
        ? 'suppressed'
        : operation === 'conditionUnsuppressed'
          ? 'lifted the suppression of'
          : 'would have suppressed';
    return [
      {
        principal: writer.name,
        role: writer.role,
        operation,
        targetIds: [c.resourceId, c.id],
        outcome: 'ok' as const,
        detail: `${verb} ${c.type} on ${c.resourceId} after its cause was explained again (${because}): ${c.suppressionReasons.join('; ')}; policy ${c.policyDigest ?? 'unknown'}`,
      },
    ];
  });
}
