import type { Kind, Lifecycle, ResourceRecord } from '../model/index.js';
import {
  type ActionRequest,
  applyRateLimits,
  canonicalAction,
  classifyAction as classify,
  type RateFacts,
  rateWindows,
  recordOf,
  type Decision,
  isBlocked,
  type LoadedPolicy,
  type PolicyView,
  resolveEntityType,
  viewPolicy,
} from '../policy/index.js';
import { randomUUID } from 'node:crypto';
import { recordDecision, type StoredDecision } from '../graph/decisions.js';
import { openBreaker } from '../graph/autonomy.js';
import { audited } from './audit.js';
import { nowOf, type ServiceDeps } from './deps.js';
import { type ClassifyActionArgs, parseClassifyInput, readGateTarget } from './gate-input.js';
import { assertCan, type Principal } from './permissions.js';

/** The gate's ordered vocabularies, for the API surfaces that describe its answers. */
export { APPROVAL_REQUIREMENTS, AUTONOMY_LEVELS, RISK_CLASSES } from '../policy/index.js';

/** The policy in force; deps built without one cannot answer gate questions at all. */
export function policyOf(deps: ServiceDeps): LoadedPolicy {
  // Unexpected (serve always loads one): masked as an internal error and logged with this cause.
  if (!deps.policy) throw new Error('no policy loaded: the service was started without the gate policy');
  return deps.policy;
}

/** The policy in force, with its digest. */
export function policy(deps: ServiceDeps, principal: Principal): PolicyView {
  assertCan(principal, 'policy:read');
  return viewPolicy(policyOf(deps));
}

/** The target as the gate saw it. */
export interface ClassifiedTarget {
  id: string;
  slug: string;
  name: string;
  kind: Kind | null;
  entityType: string | null;
  lifecycle: Lifecycle;
  inGraph: boolean;
  notes: string[];
  resource: ResourceRecord | null;
}

/** The gate's answer to one question. */
export type Classification = Decision & { blocked: boolean; target: ClassifiedTarget; decisionId?: string };

/** One audit line an auditor can read without the response: what was asked and what the gate said. */
function describeDecision(action: string, command: string | null, d: Decision): string {
  const rule = d.matchedRule === null ? 'no rule' : `approval_rules.${d.matchedRule.index}`;
  const asked =
    command === null
      ? action
      : `${action} ${JSON.stringify(command.length > 500 ? `${command.slice(0, 500)}…` : command)}`;
  const blocked = isBlocked(d) ? '; blocked by preflight' : '';
  const c = d.facts.lastChange;
  const read =
    `state ${d.facts.state ?? 'n/a'}, ${d.facts.lifecycle}` +
    (c ? `, last change ${c.from}→${c.to} at ${c.observedAt} by ${c.actor ?? 'unknown'} (${c.confidence})` : '');
  return `${asked}: ${d.riskClass} / ${d.autonomy} / approval ${d.approval} (${rule})${blocked}; facts: ${read}; policy ${d.policyDigest}`;
}

/** A question answered: the validated request and the gate's classification of it. */
export interface Asked {
  request: Omit<ActionRequest, 'target'>;
  /** Exactly what the pure classifier was asked: the request with the facts read. */
  asked: ActionRequest;
  classification: Classification;
}

/**
 * The gate's decision on one action, with the kill switch read from the graph: validated (fields
 * named under `prefix`), the target resolved, the pure classifier asked. Callers check permissions
 * and audit; requestApproval asks it for each step.
 */
export async function decide(deps: ServiceDeps, input: ClassifyActionArgs, prefix: string): Promise<Asked> {
  const { policy: rules, digest } = policyOf(deps);
  const request = parseClassifyInput(input, prefix);
  const at = nowOf(deps);
  const action = canonicalAction(request.action);
  // One statement: the target, its last change, the kill switch and the history the limits read.
  const { target, autonomy, history } = await readGateTarget(
    deps,
    input.target,
    `${prefix}.target`,
    action,
    rateWindows(rules, action, at),
  );
  const rate: RateFacts = {
    last: history.last,
    autoCount: history.autoCount,
    breakerOpenedAt: autonomy.breakerOpenedAt,
    breakerReason: autonomy.breakerReason,
  };
  const trip = applyRateLimits(rules, action, at, rate).tripBreaker;
  if (trip !== null) await openBreaker(deps.driver, at, trip);
  const asked: ActionRequest = { ...request, target: target.facts, at, autonomyState: autonomy, rate };
  const decision = classify(rules, digest, asked);
  const { facts } = target;
  const typed = resolveEntityType(facts);
  const classification: Classification = {
    ...decision,
    blocked: isBlocked(decision),
    target: {
      id: facts.id,
      slug: facts.slug,
      name: facts.name,
      kind: facts.kind,
      entityType: typed.ok ? typed.type : null,
      lifecycle: facts.lifecycle,
      inGraph: target.resource !== null,
      notes: target.notes,
      resource: target.resource,
    },
  };
  return { request, asked, classification };
}

/**
 * Asks the gate whether an action may run on its own. Every question, answered or refused, is in
 * the audit log before the answer is returned (targets by resolved id, the decision as its detail):
 * a classification precedes an action, so an unrecorded one is never handed out.
 */
export function classifyAction(
  deps: ServiceDeps,
  principal: Principal,
  input: ClassifyActionArgs,
): Promise<Classification> {
  // Known only inside the run; the audit line reads them afterwards, refused questions too.
  let resolvedId: string | null = null;
  let request: Omit<ActionRequest, 'target'> | null = null;
  let decision: StoredDecision | null = null;
  const targetIds = () => [...new Set([resolvedId ?? input.target, ...(input.targets ?? [])])];
  const run = async (): Promise<Classification> => {
    assertCan(principal, 'policy:classify');
    const asked = await decide(deps, input, 'input');
    request = asked.request;
    resolvedId = asked.classification.target.id;
    // Recorded for replayDecision: the inputs, the facts read and the answer, secrets redacted.
    const decisionId = `dec-${randomUUID()}`;
    const { at, ...recorded } = recordOf(asked.asked, asked.classification);
    decision = { id: decisionId, at: at ?? nowOf(deps), askedAt: at, principal: principal.name, ...recorded };
    return { ...asked.classification, decisionId };
  };
  return audited(
    deps,
    principal,
    'classifyAction',
    targetIds,
    run,
    (d) => describeDecision(request?.action ?? input.action, request?.command ?? null, d),
    {
      args: input,
      // The decision and its audit line commit together, before the answer is returned.
      writeOk: (entry) => {
        if (!decision) throw new Error('classifyAction answered without a decision to record');
        return recordDecision(deps.driver, decision, entry);
      },
    },
  );
}
