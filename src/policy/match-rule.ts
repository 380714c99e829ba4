import { KIND_ENTITY_TYPES, lineageOf, type EntityType } from './entity-types.js';
import { canonicalAction } from './forbidden.js';
import { AUTONOMY_LEVELS, RISK_CLASSES, type AutonomyLevel, type RiskClass } from './risk.js';
import type { Policy } from './policy-document.js';
import type { TargetFacts } from './target-facts.js';

/** The rule a decision rests on, as an auditor reads it. */
export interface MatchedRule {
  /** Position in the policy's approval_rules (with the policy digest, it pins the rule). */
  index: number;
  entityType: string;
  action: string;
  scopeEntity: string | null;
  /** The target state the rule is narrowed to, if any. */
  whenState: string | null;
  riskClass: RiskClass;
  autonomyLevel: AutonomyLevel;
  /** Why this rule won: it names the target, the target's own type, or an ancestor type. */
  matchedBy: 'scope_entity' | 'type' | 'ancestor';
}

/** An approval rule as agents and auditors read it: its position and its fields in camelCase. */
export function ruleSummary(rule: Policy['approval_rules'][number], index: number): Omit<MatchedRule, 'matchedBy'> {
  return {
    index,
    entityType: rule.entity_type,
    action: rule.action,
    scopeEntity: rule.scope_entity ?? null,
    whenState: rule.when?.state ?? null,
    riskClass: rule.risk_class,
    autonomyLevel: rule.autonomy_level,
  };
}

/** The winning rule, or the types that were searched in vain. */
export type RuleLookup = { found: true; rule: MatchedRule } | { found: false; searched: EntityType[] };

/**
 * The most specific rule for `action` on `target`: a rule scoped to this very entity beats one on
 * its concrete type, which beats one on the nearest ancestor; at each of those, a rule narrowed to
 * the target's current state (`when: {state}`) beats one that is not (a rule for another state
 * does not apply). Ties (only possible between a rule scoped by slug and one scoped by id) go to
 * the nearer type, then to the earlier rule.
 */
export function findRule(policy: Policy, target: TargetFacts, entityType: EntityType, action: string): RuleLookup {
  const wanted = canonicalAction(action);
  const lineage: string[] = lineageOf(entityType);
  let best: { rank: number; index: number } | null = null;
  policy.approval_rules.forEach((rule, index) => {
    if (rule.action !== wanted) return;
    const distance = lineage.indexOf(rule.entity_type);
    if (distance < 0) return;
    if (rule.when !== undefined && rule.when.state !== target.state) return;
    // Halves keep every level's order: a state-narrowed rule wins only within its own level.
    let rank = distance - (rule.when !== undefined ? 0.5 : 0);
    if (rule.scope_entity !== undefined) {
      if (rule.scope_entity !== target.slug && rule.scope_entity !== target.id) return;
      rank -= lineage.length; // every scoped match outranks every unscoped one
    }
    if (best === null || rank < best.rank || (rank === best.rank && index < best.index)) best = { rank, index };
  });
  if (best === null) return { found: false, searched: lineageOf(entityType) };
  const { index } = best as { rank: number; index: number };
  const rule = policy.approval_rules[index]!;
  return {
    found: true,
    rule: {
      ...ruleSummary(rule, index),
      matchedBy:
        rule.scope_entity !== undefined ? 'scope_entity' : rule.entity_type === entityType ? 'type' : 'ancestor',
    },
  };
}

/** A lookup's answer as strictness: no rule fails closed (config_mutation, escalate), as classify does. */
function strictness(lookup: RuleLookup): [number, number] {
  const autonomy = lookup.found ? lookup.rule.autonomyLevel : 'escalate';
  const risk = lookup.found ? lookup.rule.riskClass : 'config_mutation';
  return [AUTONOMY_LEVELS.indexOf(autonomy), RISK_CLASSES.indexOf(risk)];
}

/**
 * The rule for `action` on `target` judged as `entityType`, or, when that type is a refinement of
 * the kind's own type (an `entity_type` attribute) that no operator or provider vouches for, the
 * stricter of the refined type's rule and the kind type's rule (autonomy first, then the risk
 * class; a tie keeps the refined one). `note` says when the kind's rule was the stricter one.
 */
export function findRuleFor(
  policy: Policy,
  target: TargetFacts,
  entityType: EntityType,
  action: string,
): RuleLookup & { note?: string } {
  const lookup = findRule(policy, target, entityType, action);
  const kindType = target.kind === null ? undefined : KIND_ENTITY_TYPES[target.kind];
  if (kindType === undefined || kindType === entityType || target.entityTypeTrusted === true) return lookup;
  const byKind = findRule(policy, target, kindType, action);
  const [ra, rr] = strictness(lookup);
  const [ka, kr] = strictness(byKind);
  if (ka < ra || (ka === ra && kr <= rr)) return lookup;
  return {
    ...byKind,
    note: `entity_type ${entityType} on ${target.slug} is not vouched for by an operator or its provider: the ${kindType} rule, stricter than the ${entityType} one, applies`,
  };
}

/** A one-line description of a rule for a decision's reasons. */
export function describeRule(rule: MatchedRule): string {
  const scope =
    (rule.scopeEntity === null ? '' : ` scoped to ${rule.scopeEntity}`) +
    (rule.whenState === null ? '' : ` when ${rule.whenState}`);
  return `matched approval_rules.${rule.index} (${rule.entityType} ${rule.action}${scope}, by ${rule.matchedBy}): ${rule.riskClass} / ${rule.autonomyLevel}`;
}
