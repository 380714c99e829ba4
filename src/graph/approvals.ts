import { randomUUID } from 'node:crypto';
import type { Driver } from 'neo4j-driver';
import type {
  ActionAuthorizedRecord,
  ApprovalRecord,
  ApprovalStatus,
  AutonomyState,
  GrantRefusalCode,
  Lifecycle,
} from '../model/index.js';
import { AitiaError } from '../model/errors.js';
import { appendApprovalChangesTx, approvalOf, recordGrantRedeemTx } from './approval-history.js';
import { type AuditInput, writeAuditTx, writeWithAudit } from './audit.js';
import { readAutonomy } from './autonomy.js';
import { int, newestFirst, type KeysetPage } from './db/statements.js';

/*
 * Approvals, grants and the kill switch in the graph: `(:Approval)` per request or plan step (its
 * grant as a SHA-256 `grantHash`, never the token), `(:ActionAuthorized)` per redeemed grant, and
 * one `(:AutonomySwitch {id: 'global'})`. Every decision is a conditional update: two operators
 * (or fifty executors) racing on one approval change it once. Each change appends its `approval`
 * feed entry in its own transaction (approval-history.ts).
 */

/**
 * Records new approval requests (a single action, or every step of a plan) with status pending,
 * their `requested` feed entries and their audit line when given, in one transaction.
 */
export async function createApprovals(
  driver: Driver,
  rows: readonly ApprovalRecord[],
  audit?: () => AuditInput,
): Promise<void> {
  const params = { rows: rows.map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== null))) };
  await writeWithAudit(
    driver,
    async (tx) => {
      const { records } = await tx.run(
        `UNWIND $rows AS row
         CREATE (a:Approval)
         SET a = row, a.requestedAt = datetime(row.requestedAt), a.expiresAt = datetime(row.expiresAt)
         RETURN properties(a) AS a ORDER BY a.step, a.id`,
        params,
      );
      await appendApprovalChangesTx(
        tx,
        records.map((r) => {
          const approval = approvalOf(r.get('a'));
          return { change: 'requested', approval, actor: approval.requester, at: approval.requestedAt };
        }),
      );
    },
    audit,
  );
}

/** Approvals by id, or every step of a plan by its id, in step order. */
export async function approvalsById(driver: Driver, id: string): Promise<ApprovalRecord[]> {
  const { records } = await driver.executeQuery(
    `MATCH (a:Approval) WHERE a.id = $id OR a.planId = $id
     RETURN properties(a) AS a ORDER BY a.step, a.id`,
    { id },
    { routing: 'READ' },
  );
  return records.map((r) => approvalOf(r.get('a')));
}

/** The decision an operator makes: approve (with the grant's hash and expiry) or deny. */
export interface ApprovalDecision {
  id: string;
  status: Extract<ApprovalStatus, 'approved' | 'denied'>;
  decidedBy: string;
  decidedAt: string;
  decisionReason: string | null;
  grantHash: string | null;
  grantExpiresAt: string | null;
}

/**
 * Decides pending, unexpired approvals (one, or the chosen steps of a plan) in one transaction,
 * then reads back every approval under `id`; each decided one's feed entry and, with `audit`, its
 * audit line (worded from what was read back) commit with them. A step no longer pending (another operator decided first) or whose
 * request expired refuses the whole decision with CONFLICT naming it: nothing is decided.
 */
export async function decideApprovals(
  driver: Driver,
  id: string,
  decisions: readonly ApprovalDecision[],
  audit?: (approvals: ApprovalRecord[]) => AuditInput,
): Promise<ApprovalRecord[]> {
  return writeWithAudit(
    driver,
    async (tx) => {
      for (const d of decisions) {
        const { records } = await tx.run(
          `MATCH (a:Approval {id: $id})
           WHERE a.status = 'pending' AND a.expiresAt > datetime($decidedAt)
           SET a.status = $status, a.decidedBy = $decidedBy, a.decidedAt = datetime($decidedAt),
               a.decisionReason = $decisionReason, a.grantHash = $grantHash,
               a.grantExpiresAt = CASE WHEN $grantExpiresAt IS NULL THEN null ELSE datetime($grantExpiresAt) END
           RETURN a.id AS id`,
          d,
        );
        // Thrown inside the transaction: it rolls back the steps already decided.
        if (records.length === 0)
          throw new AitiaError('CONFLICT', `approval ${d.id} was decided by someone else meanwhile`, { field: 'id' });
      }
      const { records } = await tx.run(
        `MATCH (a:Approval) WHERE a.id = $id OR a.planId = $id RETURN properties(a) AS a ORDER BY a.step, a.id`,
        { id },
      );
      const approvals = records.map((r) => approvalOf(r.get('a')));
      await appendApprovalChangesTx(
        tx,
        decisions.map((d) => ({
          change: d.status,
          approval: approvals.find((a) => a.id === d.id)!,
          actor: d.decidedBy,
          at: d.decidedAt,
        })),
      );
      return approvals;
    },
    audit,
  );
}

/**
 * Approvals newest first, optionally of one status, and open (pending, unexpired at `open.now`) or
 * not (decided, used, or expired undecided); keyset-paginated (`first` 1–500).
 */
export async function listApprovals(
  driver: Driver,
  status: ApprovalStatus | null,
  page: { first: number; after?: string | null },
  open: { open: boolean; now: string } | null = null,
): Promise<KeysetPage<ApprovalRecord>> {
  const keyset = newestFirst(page, 'approvals');
  const { records } = await driver.executeQuery(
    `MATCH (a:Approval) WHERE ($status IS NULL OR a.status = $status)
       AND ($open IS NULL OR (a.status = 'pending' AND a.expiresAt > datetime($now)) = $open)
       AND ${keyset.before('a', 'requestedAt')}
     RETURN properties(a) AS a ORDER BY a.requestedAt DESC, a.id DESC LIMIT $limit`,
    { status, open: open?.open ?? null, now: open?.now ?? null, ...keyset.params },
    { routing: 'READ' },
  );
  return keyset.cut(
    records.map((r) => approvalOf(r.get('a'))),
    (a) => ({ at: a.requestedAt, id: a.id }),
  );
}

/**
 * Marks pending approvals whose `expiresAt` passed by `now` expired (`expiredAt`), at most `limit`
 * (oldest expiry first), each with its `expired` feed entry in the same transaction. Each request
 * is first locked (a write), then matched again as committed: a sweep racing another (two
 * replicas, a restart mid-sweep) or a decision finds it already marked or decided and reports
 * nothing, so every expiry is reported exactly once. Returns the approvals it marked.
 */
export async function expireApprovals(driver: Driver, now: string, limit = 200): Promise<ApprovalRecord[]> {
  const sweep = randomUUID();
  return writeWithAudit(driver, async (tx) => {
    const due = await tx.run(
      `MATCH (a:Approval) WHERE a.status = 'pending' AND a.expiredAt IS NULL AND a.expiresAt <= datetime($now)
       WITH a ORDER BY a.expiresAt, a.id LIMIT $limit
       SET a.expirySweep = $sweep
       RETURN a.id AS id`,
      { now, limit: int(limit), sweep },
    );
    const ids = due.records.map((r) => r.get('id') as string);
    if (ids.length === 0) return [];
    const { records } = await tx.run(
      `UNWIND $ids AS id MATCH (a:Approval {id: id})
       WHERE a.status = 'pending' AND a.expiredAt IS NULL AND a.expirySweep = $sweep
       SET a.expiredAt = datetime($now)
       RETURN properties(a) AS a ORDER BY a.expiresAt, a.id`,
      { ids, now, sweep },
    );
    const expired = records.map((r) => approvalOf(r.get('a')));
    await appendApprovalChangesTx(
      tx,
      expired.map((approval) => ({ change: 'expired', approval, actor: 'aitia', at: now })),
    );
    return expired;
  });
}

/** What a redeem reads, locked, inside its transaction: the grant, its target's lifecycle and the kill switch. */
export interface LockedGrant {
  approval: ApprovalRecord;
  targetLifecycle: Lifecycle | null;
  autonomy: AutonomyState;
}

/** What a refusal must say for its redeem to be recorded: the failed check, its field and message. */
export interface RedeemRefusal {
  code: GrantRefusalCode;
  field: string | null;
  message: string;
}

/**
 * Redeems a grant in one transaction: locks the approval holding `grantHash` (recording the
 * attempt's time takes a write lock before anything is read, so concurrent redeems of one grant run
 * one after another), reads it with its
 * target's lifecycle and the kill switch, asks `check`, and only when it answers null marks the
 * grant used and records `authorization`. Either way the redeem of a known grant is recorded
 * (`(:GrantRedeem)`, and its `redeemed` or `refused` feed entry) in the same transaction. Returns
 * what was read and whether it was used; `approval` is null for an unknown token.
 */
export async function redeemGrantTx<R extends RedeemRefusal>(
  driver: Driver,
  grantHash: string,
  attempt: { at: string; principal: string },
  check: (locked: LockedGrant) => R | null,
  authorization: (approval: ApprovalRecord) => ActionAuthorizedRecord,
  audit?: (auth: ActionAuthorizedRecord) => AuditInput,
): Promise<{ locked: LockedGrant | null; refusal: R | null; authorization: ActionAuthorizedRecord | null }> {
  const { at, principal } = attempt;
  const session = driver.session();
  try {
    return await session.executeWrite(async (tx) => {
      // A write takes the approval's lock (a no-op SET takes none); only then is it read, committed.
      await tx.run(`MATCH (a:Approval {grantHash: $grantHash}) SET a.lastRedeemAttemptAt = datetime($at)`, {
        grantHash,
        at,
      });
      const lock = await tx.run(
        `MATCH (a:Approval {grantHash: $grantHash}) OPTIONAL MATCH (r:Resource {id: a.targetId})
         RETURN properties(a) AS a, r.lifecycle AS lifecycle`,
        { grantHash },
      );
      const row = lock.records[0];
      if (!row) return { locked: null, refusal: null, authorization: null };
      const locked: LockedGrant = {
        approval: approvalOf(row.get('a')),
        targetLifecycle: (row.get('lifecycle') as Lifecycle | null) ?? null,
        autonomy: await readAutonomy(tx),
      };
      const redeem = { id: `redeem-${randomUUID()}`, at, approvalId: locked.approval.id, principal };
      const refusal = check(locked);
      if (refusal !== null) {
        const refused = {
          ...redeem,
          outcome: 'refused' as const,
          code: refusal.code,
          field: refusal.field,
          message: refusal.message,
          authorizationId: null,
        };
        await recordGrantRedeemTx(tx, refused);
        await appendApprovalChangesTx(tx, [
          { change: 'refused', approval: locked.approval, actor: principal, at, redeem: refused },
        ]);
        return { locked, refusal, authorization: null };
      }
      const auth = authorization(locked.approval);
      const used = await tx.run(
        `MATCH (a:Approval {grantHash: $grantHash}) WHERE a.status = 'approved'
         SET a.status = 'used', a.usedAt = datetime($auth.at), a.usedBy = $auth.principal, a.authorizationId = $auth.id
         CREATE (x:ActionAuthorized) SET x = $auth, x.at = datetime($auth.at)
         RETURN properties(a) AS a`,
        { grantHash, auth },
      );
      const redeemed = {
        ...redeem,
        outcome: 'redeemed' as const,
        code: null,
        field: null,
        message: null,
        authorizationId: auth.id,
      };
      await recordGrantRedeemTx(tx, redeemed);
      const approval = used.records[0] ? approvalOf(used.records[0].get('a')) : locked.approval;
      await appendApprovalChangesTx(tx, [{ change: 'redeemed', approval, actor: principal, at, redeem: redeemed }]);
      // The redeem's audit line commits with the grant used; a refusal above writes none here.
      if (audit) await writeAuditTx(tx, [audit(auth)]);
      return { locked, refusal: null, authorization: auth };
    });
  } finally {
    await session.close();
  }
}
