import { z } from 'zod';
import {
  ApprovalStatusSchema,
  AutonomyModeSchema,
  GrantRedeemOutcomeSchema,
  GrantRefusalCodeSchema,
} from '../model/index.js';
import { NextCursor, Time } from './records.js';

/*
 * The approval tools' answers: an approval request, a decision with its grants, a redeemed grant,
 * the history of redeems, the kill switch, an authorization and a replayed decision. Their inputs are in inputs.ts.
 */

export const ApprovalOut = z.object({
  id: z.string(),
  planId: z.string().nullable(),
  step: z.number().int().nullable(),
  status: ApprovalStatusSchema,
  requester: z.string(),
  requesterOwner: z.string().nullable().describe("The person the requester's token belongs to."),
  reason: z.string(),
  requestedAt: Time,
  expiresAt: Time.describe('Undecided by then, it can no longer be approved.'),
  action: z.string(),
  targetId: z.string(),
  targetName: z.string(),
  inputs: z.string().describe('The bound inputs as canonical JSON, secrets redacted.'),
  inputsDigest: z.string(),
  policyDigest: z.string(),
  riskClass: z.string().describe('read_only, reversible_low, config_mutation or destructive.'),
  autonomy: z.string(),
  approval: z.string(),
  reasons: z.array(z.string()),
  decidedBy: z.string().nullable(),
  decidedAt: Time.nullable(),
  decisionReason: z.string().nullable(),
  grantExpiresAt: Time.nullable(),
  usedAt: Time.nullable(),
  usedBy: z.string().nullable(),
  authorizationId: z.string().nullable(),
});

export const RequestApprovalOut = z.object({ approvals: z.array(ApprovalOut).describe('Pending, in step order.') });

export const DecisionOut = z.object({
  approvals: z.array(ApprovalOut),
  grants: z
    .array(z.object({ approvalId: z.string(), token: z.string(), expiresAt: Time }))
    .describe('Each grant token, shown this once.'),
});

export const ApprovalsOut = z.object({ approvals: z.array(ApprovalOut), nextCursor: z.string().nullable() });

const RefusalOut = z.object({ code: GrantRefusalCodeSchema, field: z.string().nullable(), message: z.string() });

export const RedeemGrantOut = z.object({
  authorized: z.boolean(),
  authorizationId: z.string().nullable(),
  approvalId: z.string().nullable(),
  refusal: RefusalOut.nullable().describe('The failed check; nothing was used up.'),
});

export const GrantRedeemOut = z.object({
  id: z.string(),
  at: Time,
  principal: z.string().describe('The executor that presented the grant.'),
  outcome: GrantRedeemOutcomeSchema,
  refusal: RefusalOut.nullable().describe('A refusal’s failed check; null when redeemed.'),
  authorizationId: z.string().nullable().describe('The ActionAuthorized entry a redeem recorded; null when refused.'),
  approvalId: z.string(),
  approval: ApprovalOut.nullable().describe('The approval whose grant was presented (null if it is gone).'),
});

export const GrantRedeemsOut = z.object({ redeems: z.array(GrantRedeemOut), nextCursor: NextCursor });

export const AutonomyOut = z.object({
  mode: AutonomyModeSchema,
  setBy: z.string().nullable(),
  setAt: Time.nullable(),
  reason: z.string().nullable(),
  breakerOpenedAt: Time.nullable(),
  breakerReason: z.string().nullable(),
});

export const ActionAuthorizedOut = z.object({
  id: z.string(),
  at: Time,
  principal: z.string(),
  action: z.string(),
  targetId: z.string(),
  source: z.enum(['grant', 'auto']),
  approvalId: z.string().nullable(),
  inputsDigest: z.string(),
  policyDigest: z.string(),
  providerTaskId: z
    .string()
    .nullable()
    .default(null)
    .describe(
      'The provider task you named (a UPID, a vCenter task key): the change it causes is credited to this entry.',
    ),
});

export const ReplayDecisionOut = z.object({
  id: z.string(),
  identical: z.boolean(),
  samePolicy: z.boolean().describe('The policy in force is the one the decision was made under.'),
  recordedPolicyDigest: z.string(),
  policyDigest: z.string(),
  differences: z.array(z.string()),
  riskClass: z.string(),
  autonomy: z.string(),
  approval: z.string(),
  reasons: z.array(z.string()),
});
