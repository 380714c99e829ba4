/**
 * What the correlator needs to credit a change to an action aitia itself authorized: each
 * `(:ActionAuthorized)` entry — a redeemed grant, or an automatic action reported taken — with the
 * approval behind it, and the answer it gives on an attribution. An agent's change that none of
 * them explains is flagged `unauthorized` (correlator/authorization.ts decides both).
 */

/** One authorization as the matcher reads it: the entry, and for a grant who asked and who approved. */
export interface ActionAuthorization {
  /** The ActionAuthorized id (`auth-…`): redeemGrant's authorizationId, reportActionTaken's id. */
  id: string;
  /** grant: an operator's approval redeemed; auto: the gate allowed it on its own. */
  source: 'grant' | 'auto';
  /** Canonical action (restart, start, stop, …). */
  action: string;
  /** The graph resource id the action was bound to. */
  targetId: string;
  /** The executor that redeemed the grant or reported the action. */
  principal: string;
  /** When it was redeemed or reported, ISO-8601 UTC. */
  at: string;
  approvalId: string | null;
  /** The approval's requester; for an auto action the principal that reported it. */
  requestedBy: string;
  /** The operator who approved; null for an auto action. */
  approvedBy: string | null;
  approvedAt: string | null;
  /** The provider task the executor named (a Proxmox UPID, a vCenter `task-123`), for an exact match. */
  providerTaskId: string | null;
}

/** The authorization a change is credited to (Attribution.authorization). */
export interface AttributionAuthorization {
  /** The ActionAuthorized id (`auth-…`) the grant's redeem (or the auto report) recorded. */
  grantId: string;
  source: 'grant' | 'auto';
  approvalId: string | null;
  action: string;
  /** The aitia principal the change's provider identity maps to (the executor). */
  principal: string;
  requestedBy: string;
  approvedBy: string | null;
  approvedAt: string | null;
  /** When the grant was redeemed or the auto action reported. */
  at: string;
  /** `task_id`: the executor named this task; `window`: same target and action type, within the use window. */
  matchedBy: 'task_id' | 'window';
  /** The provider event (task UPID, vCenter event id) it explains. */
  eventId: string;
}

/** The change a mapped agent made that no authorization explains (Attribution.unauthorized). */
export interface UnauthorizedAction {
  /** The agent principal the provider identity maps to. */
  principal: string;
  /** The provider identity as the event wrote it (`rhodes@pve!ops`). */
  actor: string;
  eventId: string;
  /** Why nothing matched: none for the target, none in time, none of this action type… */
  reason: string;
}

/** How long after a redeem (and either side of an auto report) the provider task may start. */
export const DEFAULT_AUTHORIZATION_USE_WINDOW_SECONDS = 600;

const VCENTER_TASK_KEY = /^task-\d{1,18}$/;

/** Whether `value` is shaped like a vCenter task key (`task-123`); Proxmox UPIDs are checked by their parser. */
export function isVcenterTaskKey(value: string): boolean {
  return VCENTER_TASK_KEY.test(value);
}

/** An event an authorization already explains: its id, and its type (a restart's stop leaves room for its start). */
export interface UsedEvent {
  id: string;
  type: string | null;
}
