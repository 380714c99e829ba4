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
 * health scheduler's (writeConditions, src/scheduler/condition-write.ts).
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
