import { decisionById } from '../graph/decisions.js';
import { badInput, notFound } from '../model/index.js';
import { type Approval, type AutonomyLevel, replayDecision as replay, type RiskClass } from '../policy/index.js';
import type { ServiceDeps } from './deps.js';
import { policyOf } from './gate.js';
import { assertCan, type Principal } from './permissions.js';

/** A replay's answer: identical or not, under which policies, and what differs. */
export interface ReplayAnswer {
  id: string;
  identical: boolean;
  samePolicy: boolean;
  recordedPolicyDigest: string;
  policyDigest: string;
  differences: string[];
  riskClass: RiskClass;
  autonomy: AutonomyLevel;
  approval: Approval;
  reasons: string[];
}

/**
 * Re-runs a recorded classifyAction (by its decisionId) on its stored inputs and facts under the
 * policy in force, and reports whether the answer is identical (and whether the policy is the one
 * it was made under). Reads only; agents and operators.
 */
export async function replayDecision(
  deps: ServiceDeps,
  principal: Principal,
  args: { id: string },
): Promise<ReplayAnswer> {
  assertCan(principal, 'policy:classify');
  if (typeof args.id !== 'string' || args.id.trim() === '') throw badInput('id', 'must not be empty');
  const stored = await decisionById(deps.driver, args.id.trim());
  if (stored === null) throw notFound('id', `decision ${args.id}`);
  const { policy, digest } = policyOf(deps);
  const r = replay(policy, digest, { ...stored, at: stored.askedAt ?? stored.at });
  return {
    id: stored.id,
    identical: r.identical,
    samePolicy: r.samePolicy,
    recordedPolicyDigest: stored.policyDigest,
    policyDigest: digest,
    differences: r.differences,
    riskClass: r.decision.riskClass,
    autonomy: r.decision.autonomy,
    approval: r.decision.approval,
    reasons: r.decision.reasons,
  };
}
