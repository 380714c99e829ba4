import { z } from 'zod';

/*
 * Approvals and grants: what an agent asks an operator for, what the operator's yes is bound to,
 * and why redeeming a grant can be refused. The graph stores these shapes; the gate decides them.
 */

/** An approval's life: pending until an operator decides, approved until its grant is redeemed. */
export const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'used'] as const;
export const ApprovalStatusSchema = z
  .enum(APPROVAL_STATUSES)
  .describe('pending until an operator decides; approved until its grant is redeemed (used) — or denied.');
export type ApprovalStatus = z.infer<typeof ApprovalStatusSchema>;

/** Why a grant was not redeemed; each names the one check that failed, nothing is used up. */
export const GRANT_REFUSALS = [
  'GRANT_UNKNOWN',
  'GRANT_REPLAYED',
  'GRANT_EXPIRED',
  'GRANT_MISMATCH',
  'POLICY_CHANGED',
  'TARGET_DESTROYED',
  'HALTED',
] as const;
export const GrantRefusalCodeSchema = z
  .enum(GRANT_REFUSALS)
  .describe('The check a redeem failed; nothing was used up.');
export type GrantRefusalCode = z.infer<typeof GrantRefusalCodeSchema>;

/** The runtime kill switch: normal (the policy decides) or halt (nothing runs on its own, no grant is redeemed). */
export const AUTONOMY_MODES = ['normal', 'halt'] as const;
export const AutonomyModeSchema = z
  .enum(AUTONOMY_MODES)
  .describe(
    'The runtime kill switch: normal (the policy decides) or halt (everything escalates, no grant is redeemed).',
  );
export type AutonomyMode = z.infer<typeof AutonomyModeSchema>;

/** The kill switch as stored: its mode and who set it, when and why (null: never set, normal). */
export interface AutonomyState {
  mode: AutonomyMode;
  setBy: string | null;
  setAt: string | null;
  reason: string | null;
  /** The breaker: opened when too many automatic actions ran in its window; closed by setting normal. */
  breakerOpenedAt: string | null;
  breakerReason: string | null;
}

/** How the kill switch or the breaker changed, as the `autonomy` feed reports it. */
export const AUTONOMY_CHANGES = ['halted', 'resumed', 'breaker_opened', 'breaker_closed'] as const;
export type AutonomyChangeKind = (typeof AUTONOMY_CHANGES)[number];

/** What an `autonomy` feed entry carries: who changed it, when, why, and the state before and after. */
export interface AutonomyFeedPayload {
  /** The operator who set the switch, or `aitia` when the breaker opened on its own. */
  actor: string;
  at: string;
  reason: string;
  before: AutonomyState;
  after: AutonomyState;
}

/** One approval request (a single action, or one step of a plan) as stored. */
export interface ApprovalRecord {
  id: string;
  /** The plan this step belongs to, with its position; null for a single action. */
  planId: string | null;
  step: number | null;
  status: ApprovalStatus;
  requester: string;
  requesterRole: string;
  /** The person the requester's token belongs to; null in approvals asked before aitia recorded it (then: requester). */
  requesterOwner: string | null;
  /** Who created the requester's token, when known: an operator never decides a request of a token they made. */
  requesterCreatedBy: string | null;
  reason: string;
  requestedAt: string;
  /** A pending request nobody decided by then can no longer be approved. */
  expiresAt: string;
  action: string;
  targetId: string;
  targetName: string;
  /** The bound inputs as canonical JSON, secrets redacted (what an operator reads). */
  inputs: string;
  /** SHA-256 of the canonical inputs, secrets included: what a redeem must present. */
  inputsDigest: string;
  /** Per bound field (action, target, command, targets, params.<key>) its digest: names what differs. */
  fieldDigests: string;
  policyDigest: string;
  riskClass: string;
  autonomy: string;
  approval: string;
  reasons: string[];
  decidedBy: string | null;
  decidedAt: string | null;
  decisionReason: string | null;
  /** When the grant stops being redeemable; null until approved. */
  grantExpiresAt: string | null;
  usedAt: string | null;
  usedBy: string | null;
  authorizationId: string | null;
}

/** An authorization recorded when a grant is redeemed (or an automatic action is reported taken). */
export interface ActionAuthorizedRecord {
  id: string;
  at: string;
  principal: string;
  action: string;
  targetId: string;
  /** grant: an operator's approval redeemed; auto: the gate allowed it on its own. */
  source: 'grant' | 'auto';
  approvalId: string | null;
  inputsDigest: string;
  policyDigest: string;
  /** The provider task the executor named (a Proxmox UPID, a vCenter `task-123`); absent on entries stored before it existed. */
  providerTaskId?: string | null;
}

/**
 * What happened to an approval, as the `approval` feed reports it. `expired`: a pending request
 * passed its `expiresAt` undecided; the expiry sweep (src/scheduler/approval-expiry.ts) marks it
 * once and appends this change in the same transaction.
 */
export const APPROVAL_CHANGES = ['requested', 'approved', 'denied', 'expired', 'redeemed', 'refused'] as const;
export const ApprovalChangeKindSchema = z
  .enum(APPROVAL_CHANGES)
  .describe(
    'requested (a request or plan step recorded), approved, denied, expired (a pending request passed its expiresAt undecided; reported once, by the expiry sweep), redeemed (its grant used), refused (a redeem of its grant refused, nothing used up).',
  );
export type ApprovalChangeKind = z.infer<typeof ApprovalChangeKindSchema>;

/** How a redeem of a known grant ended. */
export const GRANT_REDEEM_OUTCOMES = ['redeemed', 'refused'] as const;
export const GrantRedeemOutcomeSchema = z
  .enum(GRANT_REDEEM_OUTCOMES)
  .describe('redeemed (the grant was used, once) or refused (a check failed, nothing was used up).');
export type GrantRedeemOutcome = z.infer<typeof GrantRedeemOutcomeSchema>;

/** One redeem of a known grant, recorded in its transaction (an unknown token has no grant to record it on). */
export interface GrantRedeemRecord {
  id: string;
  at: string;
  approvalId: string;
  /** The executor that presented the grant. */
  principal: string;
  outcome: GrantRedeemOutcome;
  /** A refusal's check, field and message; null when redeemed. */
  code: GrantRefusalCode | null;
  field: string | null;
  message: string | null;
  /** The ActionAuthorized entry a redeem recorded; null when refused. */
  authorizationId: string | null;
}

/** What an `approval` feed entry carries: the approval as the change left it, who changed it, and the redeem. */
export interface ApprovalFeedPayload {
  approval: ApprovalRecord;
  actor: string;
  redeem: GrantRedeemRecord | null;
}
