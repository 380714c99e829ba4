import type { Driver, ManagedTransaction } from 'neo4j-driver';
import type { ActionAuthorizedRecord, AutonomyChangeKind, AutonomyFeedPayload, AutonomyState } from '../model/index.js';
import { type AuditInput, writeWithAudit } from './audit.js';
import { coalescedRead } from './db/coalesced-read.js';
import { toPlain } from './db/statements.js';
import { appendFeedTx } from './feed.js';

/*
 * The kill switch and the breaker, one `(:AutonomySwitch {id: 'global'})`, and the authorization
 * history (`(:ActionAuthorized)`) that cooldowns and the breaker read. Every change of the switch
 * or the breaker appends an `autonomy` feed entry in its own transaction (who, when, why, before
 * and after), which notifications deliver as `autonomy.changed`.
 */

/** The resource id `autonomy` feed entries carry: the switch is estate-wide, not a resource's. */
export const AUTONOMY_FEED_RESOURCE = 'aitia:autonomy';

/** Who opened a breaker that tripped on its own. */
export const BREAKER_ACTOR = 'aitia';

const NORMAL: AutonomyState = {
  mode: 'normal',
  setBy: null,
  setAt: null,
  reason: null,
  breakerOpenedAt: null,
  breakerReason: null,
};

const READ_AUTONOMY = `MATCH (k:AutonomySwitch {id: 'global'}) RETURN properties(k) AS k`;

function autonomyOf(records: readonly { get(key: string): unknown }[]): AutonomyState {
  return autonomyFromProperties(records[0]?.get('k') ?? null);
}

/** The kill switch from the switch node's properties (null: never set, normal). */
export function autonomyFromProperties(raw: unknown): AutonomyState {
  if (raw === null || raw === undefined) return NORMAL;
  // autoLockAt is the lock automatic reports take (recordAutoAuthorization), not part of the state.
  const { id: _id, autoLockAt: _lock, ...stored } = toPlain(raw) as Record<string, unknown>;
  return { ...NORMAL, ...stored } as AutonomyState;
}

/** The kill switch as stored, inside a transaction; normal when it was never set. */
export async function readAutonomy(tx: ManagedTransaction): Promise<AutonomyState> {
  return autonomyOf((await tx.run(READ_AUTONOMY)).records);
}

/** The kill switch as stored; normal when it was never set. */
export async function autonomyState(driver: Driver): Promise<AutonomyState> {
  // Every gate question reads it: concurrent ones share one statement.
  return autonomyOf((await coalescedRead(driver, READ_AUTONOMY, {}, [])).records);
}

/** What setting the switch did: halt halts; normal resumes from a halt, else closes an open breaker. */
export function autonomyChangeOf(before: AutonomyState, after: AutonomyState): AutonomyChangeKind {
  if (after.mode === 'halt') return 'halted';
  if (before.mode === 'halt') return 'resumed';
  return before.breakerOpenedAt !== null ? 'breaker_closed' : 'resumed';
}

async function appendAutonomyTx(
  tx: ManagedTransaction,
  change: AutonomyChangeKind,
  payload: AutonomyFeedPayload,
): Promise<void> {
  await appendFeedTx(tx, [{ topic: 'autonomy', resourceId: AUTONOMY_FEED_RESOURCE, change, at: payload.at, payload }]);
}

/** Opens the breaker inside a transaction unless it is open already; appends `breaker_opened` when it opened. */
async function openBreakerTx(tx: ManagedTransaction, at: string, reason: string): Promise<boolean> {
  const before = await readAutonomy(tx);
  if (before.breakerOpenedAt !== null) return false;
  await tx.run(
    `MERGE (k:AutonomySwitch {id: 'global'}) ON CREATE SET k.mode = 'normal'
     SET k.breakerOpenedAt = datetime($at), k.breakerReason = $reason`,
    { at, reason },
  );
  const after = await readAutonomy(tx);
  await appendAutonomyTx(tx, 'breaker_opened', { actor: BREAKER_ACTOR, at, reason, before, after });
  return true;
}

/**
 * Sets the kill switch (normal also closes an open breaker); returns the state it replaced. With
 * `audit`, its audit line (worded from the state replaced) commits in the same transaction, and so
 * does its `autonomy` feed entry.
 */
export async function setAutonomyState(
  driver: Driver,
  state: Pick<AutonomyState, 'mode' | 'setBy' | 'setAt' | 'reason'>,
  audit?: (before: AutonomyState) => AuditInput,
): Promise<AutonomyState> {
  return writeWithAudit(
    driver,
    async (tx) => {
      const before = await readAutonomy(tx);
      await tx.run(
        `MERGE (k:AutonomySwitch {id: 'global'})
         SET k.mode = $mode, k.setBy = $setBy, k.setAt = datetime($setAt), k.reason = $reason
         FOREACH (_ IN CASE WHEN $mode = 'normal' THEN [1] ELSE [] END |
           REMOVE k.breakerOpenedAt, k.breakerReason)`,
        state,
      );
      const after = await readAutonomy(tx);
      await appendAutonomyTx(tx, autonomyChangeOf(before, after), {
        actor: state.setBy ?? 'unknown',
        at: state.setAt ?? new Date().toISOString(),
        reason: state.reason ?? '',
        before,
        after,
      });
      return before;
    },
    audit,
  );
}

/**
 * Opens the breaker unless it is open already (the first opening's time and reason stay); true when
 * this call opened it, its `breaker_opened` feed entry committed with it.
 */
export async function openBreaker(driver: Driver, at: string, reason: string): Promise<boolean> {
  return writeWithAudit(driver, async (tx) => {
    // The lock first (a write), so two racing openings append one entry: the second reads it open.
    await tx.run(
      `MERGE (k:AutonomySwitch {id: 'global'}) ON CREATE SET k.mode = 'normal' SET k.autoLockAt = datetime($at)`,
      {
        at,
      },
    );
    return openBreakerTx(tx, at, reason);
  });
}

/** What cooldowns and the breaker read. */
export interface AuthorizationHistory {
  /** The latest authorization of this action on this target since `since` (null: none, or no cooldown). */
  last: ActionAuthorizedRecord | null;
  /** Automatic authorizations estate-wide since `autoSince` (0 when no breaker is configured). */
  autoCount: number;
}

const LAST_AUTHORIZATION = `OPTIONAL MATCH (x:ActionAuthorized {targetId: $targetId, action: $action})
     WHERE $since IS NOT NULL AND x.at >= datetime($since)
     WITH x ORDER BY x.at DESC LIMIT 1
     RETURN properties(x) AS last`;
const AUTO_COUNT = `MATCH (x:ActionAuthorized) WHERE x.at >= datetime($autoSince) AND x.source = 'auto' RETURN count(x) AS n`;

type Rows = { records: readonly { get(key: string): unknown }[] };

function historyOf(last: Rows, counted: Rows | null): AuthorizationHistory {
  const row = (last.records[0]?.get('last') as unknown) ?? null;
  return {
    last: row === null ? null : (toPlain(row) as ActionAuthorizedRecord),
    autoCount: counted === null ? 0 : (toPlain(counted.records[0]?.get('n')) as number),
  };
}

/** The authorization history one decision reads. */
export async function authorizationHistory(
  driver: Driver,
  q: { targetId: string; action: string; since: string | null; autoSince: string | null },
): Promise<AuthorizationHistory> {
  const last = await coalescedRead(
    driver,
    LAST_AUTHORIZATION,
    { targetId: q.targetId, action: q.action, since: q.since },
    ['targetId', 'action', 'since'],
  );
  const counted =
    q.autoSince === null ? null : await coalescedRead(driver, AUTO_COUNT, { autoSince: q.autoSince }, ['autoSince']);
  return historyOf(last, counted);
}

/** What an automatic report decides under the lock: the authorization to record (null: refused) and a breaker to open. */
export interface AutoOutcome<T> {
  record: ActionAuthorizedRecord | null;
  tripBreaker: string | null;
  result: T;
}

/**
 * Decides and records an automatic action in one transaction. It first takes the write lock of the
 * kill switch (every automatic report and every setAutonomy takes it, so they run one after
 * another), then reads the switch and the history as committed, asks `decide`, and records the
 * authorization (with its audit line) only when it answers one; a breaker it trips opens in the
 * same commit. Fifty concurrent reports inside one cooldown record exactly one.
 */
export async function recordAutoAuthorization<T>(
  driver: Driver,
  q: { targetId: string; action: string; at: string },
  windowsOf: (autonomy: AutonomyState) => { since: string | null; autoSince: string | null },
  decide: (autonomy: AutonomyState, history: AuthorizationHistory) => AutoOutcome<T>,
  audit?: (auth: ActionAuthorizedRecord) => AuditInput,
): Promise<AutoOutcome<T>> {
  return writeWithAudit(
    driver,
    async (tx) => {
      // A write takes the lock (a no-op SET takes none); the unique id makes MERGE safe when racing.
      await tx.run(
        `MERGE (k:AutonomySwitch {id: 'global'}) ON CREATE SET k.mode = 'normal' SET k.autoLockAt = datetime($at)`,
        { at: q.at },
      );
      const autonomy = await readAutonomy(tx);
      const { since, autoSince } = windowsOf(autonomy);
      const last = await tx.run(LAST_AUTHORIZATION, { targetId: q.targetId, action: q.action, since });
      const counted = autoSince === null ? null : await tx.run(AUTO_COUNT, { autoSince });
      const outcome = decide(autonomy, historyOf(last, counted));
      if (outcome.tripBreaker !== null && autonomy.breakerOpenedAt === null)
        await openBreakerTx(tx, q.at, outcome.tripBreaker);
      if (outcome.record !== null)
        await tx.run(`CREATE (x:ActionAuthorized) SET x = $auth, x.at = datetime($auth.at)`, { auth: outcome.record });
      return outcome;
    },
    (outcome) => (outcome.record !== null && audit ? audit(outcome.record) : null),
  );
}
