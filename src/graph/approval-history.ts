import type { Driver, ManagedTransaction } from 'neo4j-driver';
import type {
  ApprovalChangeKind,
  ApprovalFeedPayload,
  ApprovalRecord,
  GrantRedeemOutcome,
  GrantRedeemRecord,
} from '../model/index.js';
import { newestFirst, toPlain, type KeysetPage } from './db/statements.js';
import { appendFeedTx } from './feed.js';

/*
 * What happened to approvals, written in the transaction of each change: an `approval` feed entry
 * per request, decision and redeem (subscribers resume from its sequence), and a `(:GrantRedeem)`
 * per redeem of a known grant, redeemed or refused (the history the feed, pruned after days, is not).
 */

/** An Approval node's properties as the record the API reads (never its grant hash). */
export function approvalOf(props: unknown): ApprovalRecord {
  const p = toPlain(props) as Record<string, unknown>;
  // The expiry sweep's marks (expireApprovals) are its bookkeeping: `expired` is read from expiresAt.
  const { grantHash: _hash, lastRedeemAttemptAt: _attempt, expiredAt: _expired, expirySweep: _sweep, ...rest } = p;
  return {
    planId: null,
    step: null,
    requesterOwner: null,
    requesterCreatedBy: null,
    decidedBy: null,
    decidedAt: null,
    decisionReason: null,
    grantExpiresAt: null,
    usedAt: null,
    usedBy: null,
    authorizationId: null,
    ...rest,
  } as ApprovalRecord;
}

/** One approval change to report: the approval as the change left it, who made it, when. */
export interface ApprovalChangeAppend {
  change: ApprovalChangeKind;
  approval: ApprovalRecord;
  actor: string;
  at: string;
  redeem?: GrantRedeemRecord | null;
}

/** Appends each change to the feed inside the caller's transaction. */
export async function appendApprovalChangesTx(
  tx: ManagedTransaction,
  changes: readonly ApprovalChangeAppend[],
): Promise<void> {
  await appendFeedTx(
    tx,
    changes.map((c) => ({
      topic: 'approval' as const,
      resourceId: c.approval.targetId,
      change: c.change,
      at: c.at,
      payload: { approval: c.approval, actor: c.actor, redeem: c.redeem ?? null } satisfies ApprovalFeedPayload,
    })),
  );
}

function redeemOf(props: unknown): GrantRedeemRecord {
  const p = toPlain(props) as Record<string, unknown>;
  return {
    code: null,
    field: null,
    message: null,
    authorizationId: null,
    ...p,
  } as GrantRedeemRecord;
}

/** Records one redeem of a known grant inside the redeem's transaction. */
export async function recordGrantRedeemTx(tx: ManagedTransaction, redeem: GrantRedeemRecord): Promise<void> {
  const row = Object.fromEntries(Object.entries(redeem).filter(([, v]) => v !== null));
  await tx.run(`CREATE (g:GrantRedeem) SET g = $row, g.at = datetime($row.at)`, { row });
}

/** A redeem with the approval whose grant it presented (null if that approval is gone). */
export interface GrantRedeemWithApproval {
  redeem: GrantRedeemRecord;
  approval: ApprovalRecord | null;
}

/** Redeems newest first, optionally of one outcome or one approval; keyset-paginated (`first` 1–500). */
export async function listGrantRedeems(
  driver: Driver,
  filter: { outcome: GrantRedeemOutcome | null; approvalId: string | null },
  page: { first: number; after?: string | null },
): Promise<KeysetPage<GrantRedeemWithApproval>> {
  const keyset = newestFirst(page, 'grantRedeems');
  const { records } = await driver.executeQuery(
    `MATCH (g:GrantRedeem)
     WHERE ($outcome IS NULL OR g.outcome = $outcome) AND ($approvalId IS NULL OR g.approvalId = $approvalId)
       AND ${keyset.before('g', 'at')}
     WITH g ORDER BY g.at DESC, g.id DESC LIMIT $limit
     OPTIONAL MATCH (a:Approval {id: g.approvalId})
     RETURN properties(g) AS g, properties(a) AS a ORDER BY g.at DESC, g.id DESC`,
    { outcome: filter.outcome, approvalId: filter.approvalId, ...keyset.params },
    { routing: 'READ' },
  );
  return keyset.cut(
    records.map((r) => {
      const a: unknown = r.get('a');
      return { redeem: redeemOf(r.get('g')), approval: a === null ? null : approvalOf(a) };
    }),
    (x) => ({ at: x.redeem.at, id: x.redeem.id }),
  );
}
