import { type ActorProvider, describeActorIdentity } from '../src/model/actors.js';
import type { AttributionAuthorization, UnauthorizedAction } from '../src/model/authorizations.js';
import { providerWord } from '../src/model/provider-text.js';

/*
 * The sentences for an authorized and an unauthorized change. `verb` is the change's verb as the
 * transition narrative words it, lower-case ("started", "stopped"); times are the stored ISO-8601
 * UTC. The provider identity is provider text: bare when a plain word, else quoted as data.
 */

/**
 * "started by agent rhodes (Proxmox token rhodes@pve!ops) under grant auth-… (approval apr-…,
 * requested by rhodes) approved by bob at 2026-05-14T02:05:00Z, redeemed at …" — or, for an auto
 * action, "… as an automatic restart the gate allowed (auth-…, reported at …)".
 */
export function authorizedPhrase(
  verb: string,
  a: AttributionAuthorization,
  identity: { provider: ActorProvider; actor: string },
): string {
  const who = `${verb} by agent ${a.principal} (${describeActorIdentity(identity.provider, identity.actor)})`;
  const named = a.matchedBy === 'task_id' ? `; the agent named this task (${providerWord(a.eventId)})` : '';
  if (a.source === 'auto')
    return `${who} as an automatic ${a.action} the gate allowed (${a.grantId}, reported at ${a.at})${named}`;
  const approval = a.approvalId ? ` (approval ${a.approvalId}, requested by ${a.requestedBy})` : '';
  const approved = a.approvedBy
    ? ` approved by ${a.approvedBy}${a.approvedAt ? ` at ${a.approvedAt}` : ''}`
    : ' (approver not recorded)';
  return `${who} under grant ${a.grantId} for ${a.action}${approval}${approved}, redeemed at ${a.at}${named}`;
}

/**
 * "Unauthorized: started by agent rhodes (Proxmox token rhodes@pve!ops) with no grant redeemed or
 * automatic action reported that explains it — <why>."
 */
export function unauthorizedPhrase(verb: string, u: UnauthorizedAction, provider: ActorProvider): string {
  return `Unauthorized: ${verb} by agent ${u.principal} (${describeActorIdentity(provider, u.actor)}) with no grant redeemed or automatic action reported that explains it — ${u.reason}.`;
}
