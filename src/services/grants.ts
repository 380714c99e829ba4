import { randomUUID } from 'node:crypto';
import { redeemGrantTx } from '../graph/approvals.js';
import { autonomyState, setAutonomyState } from '../graph/autonomy.js';
import { AitiaError, AUTONOMY_MODES, type AutonomyMode, type AutonomyState, badInput } from '../model/index.js';
import { boundInputsOf, grantRefusal, inputsDigestOf, type GrantRefusal } from '../policy/index.js';
import { inputsDigestKey } from './inputs-digest.js';
import { grantHashOf } from './approvals.js';
import { type AuditOk, audited } from './audit.js';
import { nowOf, type ServiceDeps } from './deps.js';
import { policyOf } from './gate.js';
import { parseClassifyInput, resolveGateTarget, type ClassifyActionArgs } from './gate-input.js';
import { parseProviderTaskId } from './provider-task.js';
import { assertCan, type Principal } from './permissions.js';

/*
 * Redeeming a grant, and the kill switch every decision and redeem reads. A redeem is one Neo4j
 * transaction: the grant is locked, checked (unused, unexpired, same inputs, same policy, target
 * not destroyed, not halted) and only then used up, so a replayed, changed or expired grant fails
 * before any effect and fifty concurrent redeems of one grant authorize exactly one.
 */

/** What redeemGrant answers: authorized with the authorization's id, or the refusal naming the failed check. */
export interface RedeemResult {
  authorized: boolean;
  authorizationId: string | null;
  approvalId: string | null;
  refusal: GrantRefusal | null;
}

const GRANT_TOKEN = /^aitia-grant-[A-Za-z0-9_-]{43}$/;

/**
 * Redeems a grant for the action presented (executors: agent or ingester). The presented input is
 * validated and its target resolved as classifyAction does; the grant must be bound to exactly it.
 * A refusal uses nothing up and is audited as refused with its code. `providerTaskId` (a UPID or a
 * vCenter task key, when the executor already has it) is kept on the authorization, so the change
 * its task causes is credited to this grant exactly (correlator/authorization.ts).
 */
export async function redeemGrant(
  deps: ServiceDeps,
  principal: Principal,
  args: { token: string; input: ClassifyActionArgs; providerTaskId?: string | null },
): Promise<RedeemResult> {
  let targetIds: string[] = [];
  const run = async (ok: AuditOk): Promise<RedeemResult> => {
    assertCan(principal, 'grant:redeem');
    if (typeof args.token !== 'string' || !GRANT_TOKEN.test(args.token)) {
      throw badInput('token', 'not a grant token (aitia-grant-… as approve returned it)');
    }
    const request = parseClassifyInput(args.input);
    const target = await resolveGateTarget(deps, args.input.target, 'input.target');
    targetIds = [target.facts.id];
    const providerTaskId = parseProviderTaskId(args.providerTaskId, 'providerTaskId', target.facts.id);
    const inputs = boundInputsOf(request, target.facts.id);
    const digestKey = await inputsDigestKey(deps);
    const { digest } = policyOf(deps);
    const now = nowOf(deps);
    const authorizationId = `auth-${randomUUID()}`;
    const { locked, refusal, authorization } = await redeemGrantTx(
      deps.driver,
      grantHashOf(args.token),
      // A redeem of a known grant is recorded, redeemed or refused, with who presented it.
      { at: now, principal: principal.name },
      ({ approval, targetLifecycle, autonomy }) =>
        grantRefusal(
          {
            status: approval.status,
            grantExpiresAt: approval.grantExpiresAt ?? now,
            inputsDigest: approval.inputsDigest,
            fieldDigests: JSON.parse(approval.fieldDigests) as Record<string, string>,
            policyDigest: approval.policyDigest,
            usedAt: approval.usedAt,
            usedBy: approval.usedBy,
          },
          { now, inputs, digestKey, policyDigest: digest, targetLifecycle, autonomy },
        ),
      (approval) => ({
        id: authorizationId,
        at: now,
        principal: principal.name,
        action: inputs.action,
        targetId: inputs.target,
        source: 'grant',
        approvalId: approval.id,
        inputsDigest: inputsDigestOf(inputs, digestKey),
        policyDigest: digest,
        providerTaskId,
      }),
      // The grant used, the authorization and its audit line commit together.
      (auth) => ok.entry(`authorized ${auth.id} by grant of ${auth.approvalId}`),
    );
    const failed: GrantRefusal | null =
      locked === null
        ? {
            code: 'GRANT_UNKNOWN',
            field: 'token',
            message: 'no grant has this token (it was never issued, or was mistyped)',
          }
        : refusal;
    if (failed !== null) {
      throw new AitiaError('CONFLICT', `${failed.code}: ${failed.message}`, {
        ...(failed.field ? { field: failed.field } : {}),
        details: { refusal: failed, approvalId: locked?.approval.id ?? null },
      });
    }
    return { authorized: true, authorizationId: authorization!.id, approvalId: locked!.approval.id, refusal: null };
  };
  try {
    return await audited(
      deps,
      principal,
      'redeemGrant',
      () => targetIds,
      run,
      (r) => `authorized ${r.authorizationId} by grant of ${r.approvalId}`,
      // The grant token is a secret: auditArguments redacts `token`.
      { args },
    );
  } catch (err) {
    // A refusal is an answer, not an error: audited as refused above, returned typed here.
    const details = err instanceof AitiaError ? err.details : undefined;
    if (details && 'refusal' in details) {
      return {
        authorized: false,
        authorizationId: null,
        approvalId: (details.approvalId as string | null) ?? null,
        refusal: details.refusal as GrantRefusal,
      };
    }
    throw err;
  }
}

/** The kill switch as it stands (any principal may read it: every decision does). */
export function autonomy(deps: ServiceDeps): Promise<AutonomyState> {
  return autonomyState(deps.driver);
}

/**
 * Sets the runtime kill switch (operators): halt makes every classifyAction escalate and every
 * redeem refuse with HALTED; normal hands decisions back to the policy. Stored in the graph,
 * audited with the mode it replaced.
 */
export function setAutonomy(
  deps: ServiceDeps,
  principal: Principal,
  args: { mode: AutonomyMode; reason: string },
): Promise<AutonomyState> {
  let before: AutonomyState | null = null;
  const run = async (ok: AuditOk): Promise<AutonomyState> => {
    assertCan(principal, 'autonomy:set');
    if (!(AUTONOMY_MODES as readonly string[]).includes(args.mode)) {
      throw badInput('mode', `must be one of ${AUTONOMY_MODES.join(', ')}`);
    }
    const reason = (args.reason ?? '').trim();
    if (reason === '') throw badInput('reason', 'must say why (not empty)');
    if (reason.length > 2000) throw badInput('reason', 'at most 2000 characters');
    const set = { mode: args.mode, setBy: principal.name, setAt: nowOf(deps), reason };
    // The switch and its audit line (naming the mode it replaced) commit together.
    const was = await setAutonomyState(deps.driver, set, (b) => ok.entry(`${b.mode} → ${set.mode}: ${reason}`));
    before = was;
    // normal closes an open breaker; halt leaves it as it was.
    const open = args.mode === 'halt';
    return {
      ...set,
      breakerOpenedAt: open ? was.breakerOpenedAt : null,
      breakerReason: open ? was.breakerReason : null,
    };
  };
  return audited(
    deps,
    principal,
    'setAutonomy',
    [],
    run,
    (s) => `${before?.mode ?? 'normal'} → ${s.mode}: ${s.reason}`,
    { args },
  );
}
