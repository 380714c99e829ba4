import { lineageOf, type EntityType } from './entity-types.js';
import { AUTONOMY_LEVELS, isRiskier, stricterAutonomy, type AutonomyLevel, type RiskClass } from './risk.js';
import type { Policy } from './policy-document.js';
import type { TargetFacts } from './target-facts.js';

/** The autonomy left after every setting had its say, and what each one did. */
export interface AutonomyOutcome {
  autonomy: AutonomyLevel;
  reasons: string[];
}

/**
 * Applies the policy's autonomy settings to a rule's autonomy. Each step can only make it
 * stricter, so no setting can undo another: a raised risk class, the class's own limits, the
 * lifecycle override, never_auto_act, the global switch, and finally a destroyed target.
 */
export function applyAutonomySettings(
  policy: Policy,
  target: TargetFacts,
  entityType: EntityType | null,
  ruleRisk: RiskClass,
  ruleAutonomy: AutonomyLevel,
  riskClass: RiskClass,
): AutonomyOutcome {
  let autonomy = ruleAutonomy;
  const reasons: string[] = [];
  const cap = (to: AutonomyLevel, reason: string): void => {
    const next = stricterAutonomy(autonomy, to);
    reasons.push(next === autonomy ? reason : `${reason} (${autonomy} → ${next})`);
    autonomy = next;
  };
  if (autonomy === 'auto' && isRiskier(riskClass, ruleRisk)) {
    cap('escalate', `risk raised from ${ruleRisk} to ${riskClass}: the rule's auto no longer applies`);
  }
  if (autonomy === 'auto' && riskClass === 'destructive') cap('escalate', 'a destructive action is never auto');
  const classDef = policy.risk_classes[riskClass];
  if (autonomy === 'auto' && !classDef.autonomy_allowed)
    cap('escalate', `risk class ${riskClass} does not allow autonomy`);
  if (autonomy === 'auto' && classDef.approval_required !== 'none') {
    cap('escalate', `risk class ${riskClass} requires ${classDef.approval_required} approval`);
  }
  const override = policy.autonomy_settings.lifecycle_override[target.lifecycle]?.[riskClass];
  if (override !== undefined && isAutonomyLevel(override)) {
    cap(override, `lifecycle_override.${target.lifecycle}.${riskClass}: at most ${override}`);
  }
  // Checked in a fixed order (slug, id, then types nearest first) so the reasons never depend on
  // the order keys were written in the policy.
  const never = policy.autonomy_settings.never_auto_act;
  for (const key of [target.slug, target.id, ...(entityType === null ? [] : lineageOf(entityType))]) {
    const why = Object.prototype.hasOwnProperty.call(never, key) ? never[key] : undefined;
    if (why !== undefined) cap('escalate', `never_auto_act.${key}: ${why}`);
  }
  const global = policy.autonomy_settings.global.auto_act;
  if (autonomy === 'auto' && global === 'off') {
    cap('escalate', 'autonomy_settings.global.auto_act is off: nothing acts on its own until trust is earned');
  }
  if (autonomy === 'auto' && global === 'reversible_low' && isRiskier(riskClass, 'reversible_low')) {
    cap('escalate', `autonomy_settings.global.auto_act allows at most reversible_low on its own, not ${riskClass}`);
  }
  if (target.lifecycle === 'destroyed') cap('never', `${target.slug} is destroyed: every action is refused`);
  return { autonomy, reasons };
}

function isAutonomyLevel(value: string): value is AutonomyLevel {
  return (AUTONOMY_LEVELS as readonly string[]).includes(value);
}

/**
 * The one loosening a policy may make: under `lifecycle_override.provisioning`, a risk class mapped
 * to a lower one (`config_mutation: reversible_low` — no dependents yet, config changes are cheap).
 * Never for a destructive class; the loader refuses anything else. Null when none applies.
 */
export function lifecycleLoosening(
  policy: Policy,
  target: TargetFacts,
  riskClass: RiskClass,
): { to: RiskClass; reason: string } | null {
  if (target.lifecycle !== 'provisioning' || riskClass === 'destructive') return null;
  const to = policy.autonomy_settings.lifecycle_override.provisioning?.[riskClass];
  if (to === undefined || isAutonomyLevel(to) || !isRiskier(riskClass, to)) return null;
  return {
    to,
    reason: `lifecycle_override.provisioning.${riskClass}: ${to} — ${target.slug} is being provisioned: no dependents yet — config changes are cheap; loosened ${riskClass} → ${to}`,
  };
}
