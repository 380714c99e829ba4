import type { AutonomyMode, AutonomyState } from '../model/index.js';
import { applyAutonomySettings, lifecycleLoosening } from './autonomy.js';
import { haltReason } from './grant.js';
import { applyRateLimits, type RateFacts } from './rate-limits.js';
import { classifyCommand } from './command/classifier.js';
import { elevateByParams } from './elevation.js';
import { canonicalAction, matchForbiddenAction } from './forbidden.js';
import { describeRule, findRuleFor, type MatchedRule } from './match-rule.js';
import { runPreflight, type PreflightResult } from './preflight.js';
import { isRiskier, stricterApproval, type Approval, type AutonomyLevel, type RiskClass } from './risk.js';
import type { Policy } from './policy-document.js';
import { respectIntent } from './intent.js';
import { resolveEntityType, type LastChangeFact, type TargetFacts } from './target-facts.js';

/** What an agent asks the gate about: one action on one target (of possibly several). */
export interface ActionRequest {
  target: TargetFacts;
  action: string;
  params?: Record<string, unknown>;
  /** The shell command of a `run` action. */
  command?: string | null;
  /** Every target of a bulk action (ids); more than 3 raises the risk. */
  targets?: readonly string[];
  /** The risk the caller claims. It can raise the class, never lower it. */
  declaredRiskClass?: RiskClass | null;
  /** When the question is asked (ISO-8601): how recent the target's last change is. Default: not checked. */
  at?: string | null;
  /** The runtime kill switch as read from the graph; halt makes every answer escalate. Default: normal. */
  autonomyState?: AutonomyState | null;
  /** The authorization history and breaker state for cooldowns and the breaker. Default: not checked. */
  rate?: RateFacts | null;
}

/** The facts about the target a decision read, returned and audited with it. */
export interface DecisionFacts {
  lifecycle: TargetFacts['lifecycle'];
  state: string | null;
  lastChange: LastChangeFact | null;
  /** The moment the question was asked, for the intent window. */
  at: string | null;
  /** The kill switch's mode when the question was asked (present when the caller read it). */
  autonomyMode?: AutonomyMode;
}

/** The gate's answer, with every reason an agent or auditor needs to read why. */
export interface Decision {
  riskClass: RiskClass;
  autonomy: AutonomyLevel;
  approval: Approval;
  matchedRule: MatchedRule | null;
  reasons: string[];
  preflight: PreflightResult[];
  policyDigest: string;
  facts: DecisionFacts;
}

// What the gate assumes for an action no rule covers: an operator must look at it.
const UNKNOWN_ACTION_RISK: RiskClass = 'config_mutation';

/**
 * Decides whether `input.action` may run on its own, needs an operator, or never runs. Pure and
 * deterministic: the same input and policy digest give the same decision. The risk class only
 * ever rises (rule → declared → parameters → command) and autonomy only ever tightens.
 */
export function classifyAction(policy: Policy, digest: string, input: ActionRequest): Decision {
  const { target } = input;
  const facts: DecisionFacts = {
    lifecycle: target.lifecycle,
    state: target.state ?? null,
    lastChange: target.lastChange ?? null,
    at: input.at ?? null,
    ...(input.autonomyState ? { autonomyMode: input.autonomyState.mode } : {}),
  };
  const action = canonicalAction(input.action);
  const forbidden = matchForbiddenAction(input.action, policy.forbidden_actions);
  if (forbidden !== null) {
    const reason = `action "${input.action}" matches forbidden pattern ${forbidden}: refused, and no one can approve it`;
    return {
      riskClass: 'destructive',
      autonomy: 'never',
      approval: 'not_approvable',
      matchedRule: null,
      reasons: [reason],
      preflight: [],
      policyDigest: digest,
      facts,
    };
  }
  const reasons: string[] = [];
  const typed = resolveEntityType(target);
  const entityType = typed.ok ? typed.type : null;
  const lookup = typed.ok ? findRuleFor(policy, target, typed.type, action) : null;
  const matchedRule = lookup?.found ? lookup.rule : null;
  if (lookup?.note !== undefined) reasons.push(lookup.note);
  if (matchedRule !== null) reasons.push(describeRule(matchedRule));
  else if (!typed.ok) reasons.push(`no rule: ${typed.reason} — fails closed: escalate as ${UNKNOWN_ACTION_RISK}`);
  else if (lookup !== null && !lookup.found) {
    reasons.push(
      `no rule: nothing covers "${action}" on ${target.slug} (searched ${lookup.searched.join(' → ')}) — fails closed: escalate as ${UNKNOWN_ACTION_RISK}`,
    );
  }
  const ruleRisk = matchedRule?.riskClass ?? UNKNOWN_ACTION_RISK;
  const ruleAutonomy = matchedRule?.autonomyLevel ?? 'escalate';
  let riskClass = ruleRisk;
  const raise = (to: RiskClass, reason: string): void => {
    if (isRiskier(to, riskClass)) {
      reasons.push(`${reason}: ${riskClass} → ${to}`);
      riskClass = to;
    } else reasons.push(`${reason}: already ${riskClass}`);
  };
  if (input.declaredRiskClass && isRiskier(input.declaredRiskClass, riskClass))
    raise(input.declaredRiskClass, `caller declared ${input.declaredRiskClass}`);
  const elevation = elevateByParams(input.params, input.targets?.length ?? 1);
  for (const step of elevation.steps) raise(step.riskClass, `elevated: ${step.reason}`);
  if (action === 'run' || (input.command !== undefined && input.command !== null)) {
    const command = input.command ?? '';
    const classified = classifyCommand(command);
    const why = classified.parts.map((p) => `${p.command === command ? '' : `${p.command}: `}${p.reason}`).join('; ');
    const declared = input.declaredRiskClass ? `, whatever the caller declared (${input.declaredRiskClass})` : '';
    raise(
      classified.riskClass,
      `command ${JSON.stringify(command)} classified ${classified.riskClass} (${why})${declared}`,
    );
  }
  // The one loosening (a provisioning target), after every raise: reported, never for destructive.
  const loosened = lifecycleLoosening(policy, target, riskClass);
  if (loosened !== null) {
    reasons.push(loosened.reason);
    riskClass = loosened.to;
  }
  const outcome = applyAutonomySettings(policy, target, entityType, ruleRisk, ruleAutonomy, riskClass);
  reasons.push(...outcome.reasons);
  // Respecting intent comes last and only tightens: auto → escalate; escalate and never stay.
  const intent = input.at ? respectIntent(policy, target, action, input.at) : null;
  if (intent !== null) {
    reasons.push(outcome.autonomy === 'auto' ? `${intent} (auto → escalate)` : intent);
    if (outcome.autonomy === 'auto') outcome.autonomy = 'escalate';
  }
  const limits = input.rate && input.at ? applyRateLimits(policy, action, input.at, input.rate) : null;
  if (limits?.escalate) {
    const last = limits.reasons.length - 1;
    limits.reasons.forEach((r, i) =>
      reasons.push(i === last && outcome.autonomy === 'auto' ? `${r} (auto → escalate)` : r),
    );
    if (outcome.autonomy === 'auto') outcome.autonomy = 'escalate';
  }
  // The kill switch comes after every setting: while halted nothing runs on its own, whatever the policy says.
  if (input.autonomyState?.mode === 'halt' && outcome.autonomy !== 'never') {
    reasons.push(`${haltReason(input.autonomyState)}${outcome.autonomy === 'auto' ? ' (auto → escalate)' : ''}`);
    outcome.autonomy = 'escalate';
  }
  const preflight = runPreflight(target, action, entityType);
  for (const p of preflight)
    reasons.push(`preflight ${p.check}: ${p.ok ? 'ok' : p.blocking ? 'failed, blocking' : 'failed'} — ${p.message}`);
  return {
    riskClass,
    autonomy: outcome.autonomy,
    approval: approvalFor(policy, outcome.autonomy, riskClass),
    matchedRule,
    reasons,
    preflight,
    policyDigest: digest,
    facts,
  };
}

/** Who must approve: nobody when auto, nobody can when never, else at least an operator. */
function approvalFor(policy: Policy, autonomy: AutonomyLevel, riskClass: RiskClass): Approval {
  if (autonomy === 'never') return 'not_approvable';
  if (autonomy === 'auto') return 'none';
  return stricterApproval(policy.risk_classes[riskClass].approval_required, 'operator');
}

/** True when a blocking preflight failed: the action cannot run as asked, whatever its approval. */
export function isBlocked(decision: Decision): boolean {
  return decision.preflight.some((p) => !p.ok && p.blocking);
}
