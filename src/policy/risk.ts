/**
 * The ordered vocabularies of the gate. Order matters: every combination takes the maximum risk
 * and the strictest autonomy, so nothing a caller adds can lower what the policy decided.
 */

/** Risk classes from harmless to irreversible. */
export const RISK_CLASSES = ['read_only', 'reversible_low', 'config_mutation', 'destructive'] as const;
export type RiskClass = (typeof RISK_CLASSES)[number];

/** What an action may do on its own: act, ask an operator, or never happen. */
export const AUTONOMY_LEVELS = ['auto', 'escalate', 'never'] as const;
export type AutonomyLevel = (typeof AUTONOMY_LEVELS)[number];

/** Who must approve before an action runs; a risk class names one of the first three. */
export const APPROVAL_REQUIREMENTS = ['none', 'operator', 'operator_confirmed'] as const;
export type ApprovalRequirement = (typeof APPROVAL_REQUIREMENTS)[number];

/** A decision's approval: a requirement, or `not_approvable` when nobody may approve it. */
export type Approval = ApprovalRequirement | 'not_approvable';

/** The riskier of two classes. */
export function maxRisk(a: RiskClass, b: RiskClass): RiskClass {
  return RISK_CLASSES.indexOf(a) >= RISK_CLASSES.indexOf(b) ? a : b;
}

/** True when `a` is strictly riskier than `b`. */
export function isRiskier(a: RiskClass, b: RiskClass): boolean {
  return RISK_CLASSES.indexOf(a) > RISK_CLASSES.indexOf(b);
}

/** The stricter of two autonomy levels (never > escalate > auto). */
export function stricterAutonomy(a: AutonomyLevel, b: AutonomyLevel): AutonomyLevel {
  return AUTONOMY_LEVELS.indexOf(a) >= AUTONOMY_LEVELS.indexOf(b) ? a : b;
}

/** The stricter of two approval requirements. */
export function stricterApproval(a: ApprovalRequirement, b: ApprovalRequirement): ApprovalRequirement {
  return APPROVAL_REQUIREMENTS.indexOf(a) >= APPROVAL_REQUIREMENTS.indexOf(b) ? a : b;
}
