import type { AutonomyState } from '../model/index.js';
import { canonicalJson } from './canonical-json.js';
import { classifyAction, type ActionRequest, type Decision } from './classify.js';
import type { Policy } from './policy-document.js';
import type { RateFacts } from './rate-limits.js';
import { redactCommand, redactParams } from './redact.js';
import type { TargetFacts } from './target-facts.js';

/*
 * Decisions you can replay: a decision is a pure function of (inputs, policy, facts), so a recorded
 * one keeps its canonical inputs, the facts it read and the policy digest, with secrets redacted,
 * and re-running the classifier on them must give the same answer.
 */

/** A decision as stored: each part canonical JSON, secrets redacted. */
export interface RecordedDecision {
  /** action, params, command, targets, declaredRiskClass. */
  request: string;
  /** The target's facts: kind, lifecycle, state, attributes, last change. */
  target: string;
  /** The kill switch and the authorization history it read (null: not read). */
  autonomy: string | null;
  rate: string | null;
  at: string | null;
  policyDigest: string;
  /** What must replay identically: class, autonomy, approval, rule, preflight, reasons (redacted). */
  answer: string;
}

/** The part of a decision a replay compares; reasons redacted like the stored inputs. */
export function answerOf(d: Decision): string {
  return canonicalJson({
    riskClass: d.riskClass,
    autonomy: d.autonomy,
    approval: d.approval,
    matchedRule: d.matchedRule?.index ?? null,
    preflight: d.preflight.map((p) => ({ ...p, message: redactCommand(p.message) })),
    reasons: d.reasons.map(redactCommand),
  });
}

/** What to store for a decision made on `request`. */
export function recordOf(request: ActionRequest, decision: Decision): RecordedDecision {
  const { target, autonomyState, rate, at, ...rest } = request;
  return {
    request: canonicalJson({
      ...rest,
      params: redactParams(rest.params ?? {}),
      command: rest.command == null ? null : redactCommand(rest.command),
    }),
    target: canonicalJson({
      ...target,
      attributes: redactParams(target.attributes ?? {}),
      observations: redactParams(target.observations ?? {}),
    }),
    autonomy: autonomyState ? canonicalJson(autonomyState) : null,
    rate: rate ? canonicalJson(rate) : null,
    at: at ?? null,
    policyDigest: decision.policyDigest,
    answer: answerOf(decision),
  };
}

/** A replay's verdict: identical or not, under which policy, and the parts that differ. */
export interface ReplayResult {
  identical: boolean;
  /** The policy in force is the one the decision was made under. */
  samePolicy: boolean;
  decision: Decision;
  differences: string[];
}

/**
 * A record made before observations were kept apart read its preflight facts from `attributes`:
 * replaying it on the facts it read means reading them there.
 */
function factsAsRecorded(target: TargetFacts): TargetFacts {
  return target.observations === undefined ? { ...target, observations: target.attributes ?? {} } : target;
}

/** Re-runs a recorded decision under `policy` (the one in force) and compares the answers part by part. */
export function replayDecision(policy: Policy, digest: string, rec: RecordedDecision): ReplayResult {
  const request = {
    ...(JSON.parse(rec.request) as Omit<ActionRequest, 'target'>),
    target: factsAsRecorded(JSON.parse(rec.target) as TargetFacts),
    at: rec.at,
    autonomyState: rec.autonomy === null ? null : (JSON.parse(rec.autonomy) as AutonomyState),
    rate: rec.rate === null ? null : (JSON.parse(rec.rate) as RateFacts),
  };
  const decision = classifyAction(policy, digest, request);
  const [was, now] = [
    JSON.parse(rec.answer) as Record<string, unknown>,
    JSON.parse(answerOf(decision)) as Record<string, unknown>,
  ];
  const differences = Object.keys(was).filter((k) => canonicalJson(was[k]) !== canonicalJson(now[k]));
  return { identical: differences.length === 0, samePolicy: digest === rec.policyDigest, decision, differences };
}
