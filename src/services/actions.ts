import { randomUUID } from 'node:crypto';
import { recordAuthorization } from '../graph/autonomy.js';
import { AitiaError, type ActionAuthorizedRecord } from '../model/index.js';
import { boundInputsOf, inputsDigestOf } from '../policy/index.js';
import { type AuditOk, audited } from './audit.js';
import { nowOf, type ServiceDeps } from './deps.js';
import { decide } from './gate.js';
import type { ClassifyActionArgs } from './gate-input.js';
import { assertCan, type Principal } from './permissions.js';

/** The ok line's detail: the authorization recorded. */
const detailOf = (a: ActionAuthorizedRecord) => `${a.id}: ${a.action} auto`;

/**
 * An executor reports that it took an automatic action (executors: agent, ingester). The gate is
 * asked again now (cooldowns, breaker, kill switch included): only an action it still answers
 * `auto` is recorded as an `ActionAuthorized` entry (source auto) — the history cooldowns and the
 * breaker read. Anything else is CONFLICT: it needed an approval and a redeemed grant.
 */
export function reportActionTaken(
  deps: ServiceDeps,
  principal: Principal,
  input: ClassifyActionArgs,
): Promise<ActionAuthorizedRecord> {
  let targetIds: string[] = [];
  const run = async (ok: AuditOk): Promise<ActionAuthorizedRecord> => {
    assertCan(principal, 'action:report');
    const { request, classification: c } = await decide(deps, input, 'input');
    targetIds = [c.target.id];
    if (c.autonomy !== 'auto' || c.blocked) {
      throw new AitiaError(
        'CONFLICT',
        `the gate answers ${c.blocked ? 'blocked' : c.autonomy} for ${request.action} on ${c.target.id}, not auto: it needs an operator's approval and a redeemed grant (${c.reasons.at(-1) ?? 'no reason'})`,
        { field: 'input.action' },
      );
    }
    const inputs = boundInputsOf(request, c.target.id);
    const auth: ActionAuthorizedRecord = {
      id: `auth-${randomUUID()}`,
      at: nowOf(deps),
      principal: principal.name,
      action: inputs.action,
      targetId: c.target.id,
      source: 'auto',
      approvalId: null,
      inputsDigest: inputsDigestOf(inputs),
      policyDigest: c.policyDigest,
    };
    // The authorization and its audit line commit together.
    await recordAuthorization(deps.driver, auth, () => ok.entry(detailOf(auth)));
    return auth;
  };
  return audited(deps, principal, 'reportActionTaken', () => targetIds, run, detailOf, { args: input });
}
