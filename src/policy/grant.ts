import type { ApprovalStatus, AutonomyState, GrantRefusalCode, Lifecycle } from '../model/index.js';
import { canonicalJson, keyedDigestOf } from './canonical-json.js';
import { canonicalAction } from './forbidden.js';
import { redactCommand, redactParams } from './redact.js';

/*
 * What an approval is bound to, and the checks a grant must pass to be redeemed. Pure: the service
 * reads the stored grant and the facts inside the redeeming transaction and asks `grantRefusal`.
 */

/** The inputs an approval binds: the action, the resolved target id, its parameters, targets and command. */
export interface BoundInputs {
  action: string;
  target: string;
  params: Record<string, unknown>;
  command: string | null;
  targets: string[];
}

/** The canonical bound inputs of a request on a resolved target: action name canonical, targets sorted and unique. */
export function boundInputsOf(
  request: { action: string; params?: Record<string, unknown>; command?: string | null; targets?: readonly string[] },
  targetId: string,
): BoundInputs {
  return {
    action: canonicalAction(request.action),
    target: targetId,
    params: request.params ?? {},
    command: request.command ?? null,
    targets: [...new Set(request.targets ?? [])].sort(),
  };
}

/**
 * HMAC-SHA256 of the canonical bound inputs, secrets included, under the installation's key: the
 * digest is shown to agents, and unkeyed it would let them test guesses of a secret offline.
 */
export function inputsDigestOf(inputs: BoundInputs, key: string): string {
  return keyedDigestOf(inputs, key);
}

/** The bound inputs as an operator reads them: canonical JSON with secrets redacted. */
export function redactedInputsOf(inputs: BoundInputs): string {
  return canonicalJson({
    ...inputs,
    params: redactParams(inputs.params),
    command: inputs.command === null ? null : redactCommand(inputs.command),
  });
}

/**
 * Each bound field's keyed digest (`params.<key>` per parameter), so a mismatch can name the field
 * without storing secrets or a digest a guess could be tested against.
 */
export function fieldDigestsOf(inputs: BoundInputs, key: string): Record<string, string> {
  const out: Record<string, string> = {
    action: keyedDigestOf(inputs.action, key),
    target: keyedDigestOf(inputs.target, key),
    command: keyedDigestOf(inputs.command, key),
    targets: keyedDigestOf(inputs.targets, key),
  };
  for (const [name, value] of Object.entries(inputs.params)) out[`params.${name}`] = keyedDigestOf(value, key);
  return out;
}

/** The first bound field (in a fixed order) whose value differs, or null when all are equal. */
export function mismatchedField(bound: Record<string, string>, presented: Record<string, string>): string | null {
  const fixed = ['action', 'target', 'command', 'targets'];
  const params = [...new Set([...Object.keys(bound), ...Object.keys(presented)])].filter((k) => !fixed.includes(k));
  for (const field of [...fixed, ...params.sort()]) if (bound[field] !== presented[field]) return field;
  return null;
}

/** A stored grant as the redeem check reads it. */
export interface GrantFacts {
  status: ApprovalStatus;
  grantExpiresAt: string;
  inputsDigest: string;
  fieldDigests: Record<string, string>;
  policyDigest: string;
  usedAt: string | null;
  usedBy: string | null;
}

/** Why a redeem was refused: the failed check, the field that differs (GRANT_MISMATCH) and a sentence. */
export interface GrantRefusal {
  code: GrantRefusalCode;
  field: string | null;
  message: string;
}

/** What the redeem is checked against: the presented inputs, the policy in force, the target and the kill switch. */
export interface RedeemContext {
  now: string;
  inputs: BoundInputs;
  /** The installation's key the approval's digests were taken with. */
  digestKey: string;
  policyDigest: string;
  targetLifecycle: Lifecycle | null;
  autonomy: AutonomyState;
}

/**
 * The first failed check of a redeem, in a fixed order (unused, unexpired, same inputs, same
 * policy, target not destroyed, not halted), or null when the grant may be used.
 */
export function grantRefusal(grant: GrantFacts, ctx: RedeemContext): GrantRefusal | null {
  const refuse = (code: GrantRefusalCode, message: string, field: string | null = null): GrantRefusal => ({
    code,
    field,
    message,
  });
  if (grant.status === 'used') {
    return refuse(
      'GRANT_REPLAYED',
      `the grant was already redeemed at ${grant.usedAt} by ${grant.usedBy}; a grant is valid once`,
    );
  }
  if (Date.parse(grant.grantExpiresAt) <= Date.parse(ctx.now)) {
    return refuse('GRANT_EXPIRED', `the grant expired at ${grant.grantExpiresAt}; ask for a new approval`);
  }
  if (inputsDigestOf(ctx.inputs, ctx.digestKey) !== grant.inputsDigest) {
    const field = mismatchedField(grant.fieldDigests, fieldDigestsOf(ctx.inputs, ctx.digestKey)) ?? 'input';
    return refuse(
      'GRANT_MISMATCH',
      `input.${field} differs from what was approved; the grant covers only the approved action`,
      `input.${field}`,
    );
  }
  if (ctx.policyDigest !== grant.policyDigest) {
    return refuse(
      'POLICY_CHANGED',
      `the policy changed since the approval (approved under ${grant.policyDigest}, now ${ctx.policyDigest}); ask again`,
    );
  }
  if (ctx.targetLifecycle === 'destroyed') return refuse('TARGET_DESTROYED', 'the target is destroyed');
  if (ctx.autonomy.mode === 'halt') return refuse('HALTED', haltReason(ctx.autonomy));
  return null;
}

/** "halted by X at T: reason" — what every decision and redeem says while the kill switch is on. */
export function haltReason(state: AutonomyState): string {
  return `halted by ${state.setBy ?? 'unknown'} at ${state.setAt ?? 'unknown'}: ${state.reason ?? 'no reason given'}`;
}
