import { listGrantRedeems } from '../graph/approval-history.js';
import type { KeysetPage } from '../graph/db/statements.js';
import {
  type ApprovalRecord,
  badInput,
  GRANT_REDEEM_OUTCOMES,
  type GrantRedeemOutcome,
  type GrantRedeemRecord,
  type GrantRefusalCode,
} from '../model/index.js';
import type { ServiceDeps } from './deps.js';
import { assertCan, type Principal } from './permissions.js';

/*
 * The history of grants: every redeem of a known grant, redeemed or refused, as its transaction
 * recorded it (an approval's `usedAt`/`usedBy` keep only the one that used it; refusals are kept
 * here). The console's history view reads it beside approvals(open: false).
 */

/** A redeem as the API shows it: who presented the grant, when, the outcome, and the approval. */
export interface GrantRedeemView {
  id: string;
  at: string;
  principal: string;
  outcome: GrantRedeemOutcome;
  refusal: { code: GrantRefusalCode; field: string | null; message: string } | null;
  authorizationId: string | null;
  approvalId: string;
  approval: ApprovalRecord | null;
}

function viewOf(redeem: GrantRedeemRecord, approval: ApprovalRecord | null): GrantRedeemView {
  return {
    id: redeem.id,
    at: redeem.at,
    principal: redeem.principal,
    outcome: redeem.outcome,
    refusal:
      redeem.outcome === 'refused' && redeem.code
        ? { code: redeem.code, field: redeem.field, message: redeem.message ?? '' }
        : null,
    authorizationId: redeem.authorizationId,
    approvalId: redeem.approvalId,
    approval,
  };
}

/** Redeems of grants newest first (whoever may read approvals), optionally of one outcome or one approval. */
export async function grantRedeems(
  deps: ServiceDeps,
  principal: Principal,
  args: {
    outcome?: GrantRedeemOutcome | null;
    approvalId?: string | null;
    first?: number | null;
    after?: string | null;
  },
): Promise<KeysetPage<GrantRedeemView>> {
  assertCan(principal, 'approval:read');
  const outcome = args.outcome ?? null;
  if (outcome !== null && !(GRANT_REDEEM_OUTCOMES as readonly string[]).includes(outcome))
    throw badInput('outcome', `must be one of ${GRANT_REDEEM_OUTCOMES.join(', ')}`);
  const approvalId = args.approvalId ?? null;
  if (approvalId !== null && approvalId.trim() === '') throw badInput('approvalId', 'must not be empty');
  const page = await listGrantRedeems(
    deps.driver,
    { outcome, approvalId },
    { first: args.first ?? 50, after: args.after ?? null },
  );
  return { ...page, nodes: page.nodes.map((n) => viewOf(n.redeem, n.approval)) };
}
