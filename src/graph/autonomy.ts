import type { Driver, ManagedTransaction } from 'neo4j-driver';
import type { ActionAuthorizedRecord, AutonomyState } from '../model/index.js';
import { type AuditInput, writeWithAudit } from './audit.js';
import { coalescedRead } from './coalesced-read.js';
import { toPlain } from './statements.js';

/*
 * The kill switch and the breaker, one `(:AutonomySwitch {id: 'global'})`, and the authorization
 * history (`(:ActionAuthorized)`) that cooldowns and the breaker read.
 */

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
  if (!records[0]) return NORMAL;
  const { id: _id, ...stored } = toPlain(records[0].get('k')) as Record<string, unknown>;
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

/**
 * Sets the kill switch (normal also closes an open breaker); returns the state it replaced. With
 * `audit`, its audit line (worded from the state replaced) commits in the same transaction.
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
      return before;
    },
    audit,
  );
}

/** Opens the breaker unless it is open already (the first opening's time and reason stay). */
export async function openBreaker(driver: Driver, at: string, reason: string): Promise<void> {
  await driver.executeQuery(
    `MERGE (k:AutonomySwitch {id: 'global'}) ON CREATE SET k.mode = 'normal'
     WITH k WHERE k.breakerOpenedAt IS NULL
     SET k.breakerOpenedAt = datetime($at), k.breakerReason = $reason`,
    { at, reason },
  );
}

/** Records an authorization (an automatic action reported taken), with its audit line when given. */
export async function recordAuthorization(
  driver: Driver,
  auth: ActionAuthorizedRecord,
  audit?: () => AuditInput,
): Promise<void> {
  await writeWithAudit(
    driver,
    async (tx) => void (await tx.run(`CREATE (x:ActionAuthorized) SET x = $auth, x.at = datetime($auth.at)`, { auth })),
    audit,
  );
}

/** What cooldowns and the breaker read. */
export interface AuthorizationHistory {
  /** The latest authorization of this action on this target since `since` (null: none, or no cooldown). */
  last: ActionAuthorizedRecord | null;
  /** Automatic authorizations estate-wide since `autoSince` (0 when no breaker is configured). */
  autoCount: number;
}

/** The authorization history one decision reads. */
export async function authorizationHistory(
  driver: Driver,
  q: { targetId: string; action: string; since: string | null; autoSince: string | null },
): Promise<AuthorizationHistory> {
  const { records } = await coalescedRead(
    driver,
    `OPTIONAL MATCH (x:ActionAuthorized {targetId: $targetId, action: $action})
     WHERE $since IS NOT NULL AND x.at >= datetime($since)
     WITH x ORDER BY x.at DESC LIMIT 1
     RETURN properties(x) AS last`,
    { targetId: q.targetId, action: q.action, since: q.since },
    ['targetId', 'action', 'since'],
  );
  const last = (records[0]?.get('last') as unknown) ?? null;
  let autoCount = 0;
  if (q.autoSince !== null) {
    const counted = await coalescedRead(
      driver,
      `MATCH (x:ActionAuthorized) WHERE x.at >= datetime($autoSince) AND x.source = 'auto' RETURN count(x) AS n`,
      { autoSince: q.autoSince },
      ['autoSince'],
    );
    autoCount = toPlain(counted.records[0]?.get('n')) as number;
  }
  return { last: last === null ? null : (toPlain(last) as ActionAuthorizedRecord), autoCount };
}
