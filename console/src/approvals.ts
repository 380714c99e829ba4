// The approval requests the inbox and history read, and the live feed of their changes.
import type { ApprovalRecord } from '../../src/model/approvals.js';
import { gql, subscribe } from './api';
import { APPROVAL_FIELDS, APPROVALS_PAGE, APPROVALS_QUERY, REDEEMS_QUERY } from './queries';

/** An approval as the console asks for it: the stored record's fields (src/model), and whether it expired. */
export type ApprovalRequest = Pick<
  ApprovalRecord,
  | 'id'
  | 'planId'
  | 'step'
  | 'status'
  | 'requester'
  | 'requesterOwner'
  | 'reason'
  | 'requestedAt'
  | 'expiresAt'
  | 'action'
  | 'targetId'
  | 'targetName'
  | 'inputs'
  | 'riskClass'
  | 'autonomy'
  | 'approval'
  | 'reasons'
  | 'decidedBy'
  | 'decidedAt'
  | 'decisionReason'
  | 'grantExpiresAt'
  | 'usedAt'
  | 'usedBy'
> & {
  /** Pending past expiresAt: nobody can decide it any more. */
  expired: boolean;
};

export interface Grant {
  approvalId: string;
  token: string;
  expiresAt: string;
}

export interface ApprovalChange {
  sequence: number;
  change: 'requested' | 'approved' | 'denied' | 'redeemed' | 'refused';
  at: string;
  actor: string;
  approval: ApprovalRequest;
}

export interface GrantRedeem {
  id: string;
  at: string;
  principal: string;
  outcome: 'redeemed' | 'refused';
  refusal: { code: string; field: string | null; message: string } | null;
  approvalId: string;
  approval: { action: string; targetId: string; targetName: string; requester: string } | null;
}

/** Open requests (pending, unexpired: what an operator can still decide), or the others. */
export async function listApprovals(open: boolean, first = APPROVALS_PAGE): Promise<ApprovalRequest[]> {
  const d = await gql<{ approvals: { nodes: ApprovalRequest[] } }>(APPROVALS_QUERY, { open, first });
  return d.approvals.nodes;
}

/** Grant redeems, newest first: the used ones and the refused ones. */
export async function listRedeems(first = APPROVALS_PAGE): Promise<GrantRedeem[]> {
  const d = await gql<{ grantRedeems: { nodes: GrantRedeem[] } }>(REDEEMS_QUERY, { first });
  return d.grantRedeems.nodes;
}

/** Every change to any approval, live (resumes after a reconnect with `since`). */
export function watchApprovals(
  onChange: (c: ApprovalChange) => void,
  onError?: (e: Error) => void,
  onOpen?: () => void,
): () => void {
  return subscribe<{ approvalChanged: ApprovalChange }>(
    `subscription($since: Int) { approvalChanged(since: $since) { sequence change at approval { ${APPROVAL_FIELDS} } } }`,
    {},
    (d) => onChange(d.approvalChanged),
    onError,
    onOpen,
  );
}

const DECISION = `approvals { ${APPROVAL_FIELDS} } grants { approvalId token expiresAt }`;

export async function approve(
  id: string,
  confirmTarget?: string,
): Promise<{ approvals: ApprovalRequest[]; grants: Grant[] }> {
  const d = await gql<{ approve: { approvals: ApprovalRequest[]; grants: Grant[] } }>(
    `mutation($id: ID!, $confirmTarget: String) { approve(id: $id, confirmTarget: $confirmTarget) { ${DECISION} } }`,
    { id, confirmTarget: confirmTarget ?? null },
  );
  return d.approve;
}

export async function deny(id: string, reason: string): Promise<ApprovalRequest[]> {
  const d = await gql<{ deny: { approvals: ApprovalRequest[] } }>(
    `mutation($id: ID!, $reason: String!) { deny(id: $id, reason: $reason) { ${DECISION} } }`,
    { id, reason },
  );
  return d.deny.approvals;
}

/** Whether this principal asked for it (the API refuses them too, and also by the token's owner). */
export function isOwnRequest(a: ApprovalRequest, principal: string): boolean {
  return a.requester === principal || a.requesterOwner === principal;
}

/** Pretty-printed inputs (already redacted by the service). */
export function prettyInputs(inputs: string): string {
  try {
    return JSON.stringify(JSON.parse(inputs), null, 2);
  } catch {
    return inputs;
  }
}
