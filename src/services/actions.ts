import { randomUUID } from 'node:crypto';
import { recordAutoAuthorization } from '../graph/autonomy.js';
import { AitiaError, type ActionAuthorizedRecord } from '../model/index.js';
import {
  applyRateLimits,
  boundInputsOf,
  canonicalAction,
  classifyAction as classify,
  type Decision,
  inputsDigestOf,
  isBlocked,
  rateWindows,
} from '../policy/index.js';
import { type AuditOk, audited } from './audit.js';
import { nowOf, type ServiceDeps } from './deps.js';
import { decide, policyOf } from './gate.js';
import type { ClassifyActionArgs } from './gate-input.js';
import { assertCan, type Principal } from './permissions.js';
import { inputsDigestKey } from './inputs-digest.js';
import { parseProviderTaskId } from './provider-task.js';

/** The ok line's detail: the authorization recorded. */
const detailOf = (a: ActionAuthorizedRecord) => `${a.id}: ${a.action} auto`;

/** The refusal of an action the gate does not answer auto, naming the limits (or the reason) that stopped it. */
function notAuto(d: Decision, action: string, targetId: string): AitiaError {
  const answer = isBlocked(d) ? 'blocked' : d.autonomy;
  const limits = d.reasons.filter((r) => /^(cooldowns\.|breaker |halted by )/.test(r));
  const why = limits.length > 0 ? limits.join('; ') : (d.reasons.at(-1) ?? 'no reason');
  return new AitiaError(
    'CONFLICT',
    `the gate answers ${answer} for ${action} on ${targetId}, not auto: it needs an operator's approval and a redeemed grant (${why})`,
    { field: 'input.action' },
  );
}

/**
 * An executor reports that it took an automatic action (executors: agent, ingester). The gate is
 * asked again now (cooldowns, breaker, kill switch included): only an action it still answers
 * `auto` is recorded as an `ActionAuthorized` entry (source auto) — the history cooldowns and the
 * breaker read. The last answer and the record are one transaction under the kill switch's lock,
 * so concurrent reports inside a cooldown record one, and the breaker never overshoots
 * `max_auto_actions`. Anything else is CONFLICT: it needed an approval and a redeemed grant.
 * `providerTaskId` (the task's UPID or vCenter key, when the executor has it) is kept on the
 * record, so the change it caused is credited to this report exactly.
 */
export function reportActionTaken(
  deps: ServiceDeps,
  principal: Principal,
  input: ClassifyActionArgs,
  extra: { providerTaskId?: string | null } = {},
): Promise<ActionAuthorizedRecord> {
  let targetIds: string[] = [];
  const run = async (ok: AuditOk): Promise<ActionAuthorizedRecord> => {
    assertCan(principal, 'action:report');
    const { policy: rules, digest } = policyOf(deps);
    const { request, asked, classification: c } = await decide(deps, input, 'input');
    targetIds = [c.target.id];
    const providerTaskId = parseProviderTaskId(extra.providerTaskId, 'providerTaskId', c.target.id);
    // Refused without the lock when the gate already says no; an auto answer is asked again under it.
    if (c.autonomy !== 'auto' || c.blocked) throw notAuto(c, request.action, c.target.id);
    const at = asked.at ?? nowOf(deps);
    const action = canonicalAction(request.action);
    const inputs = boundInputsOf(request, c.target.id);
    const digestKey = await inputsDigestKey(deps);
    const auth: ActionAuthorizedRecord = {
      id: `auth-${randomUUID()}`,
      at,
      principal: principal.name,
      action: inputs.action,
      targetId: c.target.id,
      source: 'auto',
      approvalId: null,
      inputsDigest: inputsDigestOf(inputs, digestKey),
      policyDigest: digest,
      providerTaskId,
    };
    const outcome = await recordAutoAuthorization(
      deps.driver,
      { targetId: c.target.id, action, at },
      (autonomy) => rateWindows(rules, action, at, autonomy.setAt),
      (autonomy, history) => {
        const rate = { ...history, breakerOpenedAt: autonomy.breakerOpenedAt, breakerReason: autonomy.breakerReason };
        const d = classify(rules, digest, { ...asked, autonomyState: autonomy, rate });
        const allowed = d.autonomy === 'auto' && !isBlocked(d);
        return {
          record: allowed ? auth : null,
          tripBreaker: applyRateLimits(rules, action, at, rate).tripBreaker,
          result: d,
        };
      },
      // The authorization and its audit line commit together.
      (recorded) => ok.entry(detailOf(recorded)),
    );
    if (outcome.record === null) throw notAuto(outcome.result, request.action, c.target.id);
    return outcome.record;
  };
  return audited(deps, principal, 'reportActionTaken', () => targetIds, run, detailOf, {
    args: extra.providerTaskId === undefined ? input : { ...input, providerTaskId: extra.providerTaskId },
  });
}
