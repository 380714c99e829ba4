import neo4j, {
  EagerResult,
  type Driver,
  type ManagedTransaction,
  type QueryConfig,
  type Session,
  type SessionConfig,
} from 'neo4j-driver';
import { decideLease, type Fence, type LeaseDecision, LeaseLostError, type LeaseRecord } from '../../model/lease.js';
import { int } from './statements.js';

/**
 * The lease repository, two nodes per leader-only loop:
 * - `(:Lease {name, holder, token, expiresAt, acquiredAt, claimedAt})`, what claims read and write;
 * - `(:LeaseFence {name, holder, token})`, what fenced writes check, written only on acquisition.
 * Every statement that decides on either first takes its write lock (a SET on the node). A fenced
 * write locks the fence to its commit, so an acquisition (which writes the fence) waits for the
 * writes of the previous holder in flight, and a write after it sees the new token. A renewal
 * touches only the lease, so it never waits behind its own holder's writes.
 * Expiry is judged by Neo4j's clock, the one clock every replica shares.
 */

/** A claim's outcome, with the database time it was decided at. */
export type LeaseClaim = LeaseDecision & { nowMs: number };

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** Acquires, renews or (held by another, not expired) leaves the lease `name` for `holder`. */
export async function claimLease(
  driver: Driver,
  claim: { name: string; holder: string; seconds: number },
): Promise<LeaseClaim> {
  const session = driver.session();
  try {
    return await session.executeWrite(async (tx) => {
      await tx.run('MERGE (l:Lease {name: $name}) ON CREATE SET l.token = 0 SET l.claimedAt = datetime()', {
        name: claim.name,
      });
      const res = await tx.run(
        `MATCH (l:Lease {name: $name})
         RETURN l.holder AS holder, l.token AS token, l.expiresAt.epochMillis AS expires, datetime().epochMillis AS now`,
        { name: claim.name },
      );
      const row = res.records[0]!;
      const nowMs = num(row.get('now'))!;
      const stored: LeaseRecord = {
        holder: (row.get('holder') as string | null) ?? null,
        token: num(row.get('token')) ?? 0,
        expiresAtMs: num(row.get('expires')) ?? 0,
      };
      const decision = decideLease(stored, claim.holder, nowMs, claim.seconds);
      if (decision.action === 'acquire') {
        await tx.run('MERGE (f:LeaseFence {name: $name}) SET f.holder = $holder, f.token = $token', {
          name: claim.name,
          holder: claim.holder,
          token: int(decision.token),
        });
      }
      if (decision.action !== 'wait') {
        await tx.run(
          `MATCH (l:Lease {name: $name})
           SET l.holder = $holder, l.token = $token, l.expiresAt = datetime({epochMillis: $expires}),
               l.acquiredAt = CASE WHEN $acquire THEN datetime() ELSE l.acquiredAt END`,
          {
            name: claim.name,
            holder: claim.holder,
            token: int(decision.token),
            expires: int(decision.expiresAtMs),
            acquire: decision.action === 'acquire',
          },
        );
      }
      return { ...decision, nowMs };
    });
  } finally {
    await session.close();
  }
}

/** Gives the lease up (a clean shutdown) so another replica takes it at its next claim; the fence stays. */
export async function releaseLease(driver: Driver, fence: Fence): Promise<boolean> {
  const { records } = await driver.executeQuery(
    `MATCH (l:Lease {name: $name}) WHERE l.holder = $holder AND l.token = $token
     SET l.holder = null, l.expiresAt = datetime() RETURN count(l) AS n`,
    { name: fence.lease, holder: fence.holder, token: int(fence.token) },
  );
  return Number(records[0]?.get('n') ?? 0) > 0;
}

/** Every lease as stored (for status and tests). */
export async function readLeases(
  driver: Driver,
): Promise<Array<{ name: string; holder: string | null; token: number; expiresAt: string | null }>> {
  const { records } = await driver.executeQuery(
    `MATCH (l:Lease) RETURN l.name AS name, l.holder AS holder, l.token AS token, toString(l.expiresAt) AS expiresAt
     ORDER BY name`,
    {},
    { routing: 'READ' },
  );
  return records.map((r) => ({
    name: String(r.get('name')),
    holder: (r.get('holder') as string | null) ?? null,
    token: num(r.get('token')) ?? 0,
    expiresAt: (r.get('expiresAt') as string | null) ?? null,
  }));
}

/**
 * The fence, first in a write transaction: locks the lease's fence and throws
 * {@link LeaseLostError} (so the whole transaction rolls back) unless it still has this holder and
 * token. The SET is what takes the lock; it is held to commit, and the read after it sees the last
 * acquisition committed.
 */
export async function checkFenceTx(tx: ManagedTransaction, fence: Fence): Promise<void> {
  // A constant, not `f.token = f.token`: that would read the token before the lock and could write
  // an acquisition's new token back to the old one. Neo4j locks on a SET even when nothing changes.
  await tx.run('MATCH (f:LeaseFence {name: $name}) SET f.locked = true', { name: fence.lease });
  const res = await tx.run('MATCH (f:LeaseFence {name: $name}) RETURN f.holder AS holder, f.token AS token', {
    name: fence.lease,
  });
  const row = res.records[0];
  const current = row
    ? { holder: (row.get('holder') as string | null) ?? null, token: num(row.get('token')) ?? 0 }
    : null;
  if (!current || current.holder !== fence.holder || current.token !== fence.token)
    throw new LeaseLostError(fence, current);
}

/* eslint-disable @typescript-eslint/no-explicit-any -- a transparent Proxy over the driver's own types */

/**
 * The driver a leader-only loop writes through: every write transaction (`executeQuery` not routed
 * to READ, `session.executeWrite`) runs {@link checkFenceTx} first, in the same transaction; reads
 * (`routing: 'READ'`, `executeRead`, `run` in a READ session) pass through. Auto-commit `session.run`
 * in a write session and explicit transactions cannot be fenced and are refused. `onLost` hears every refused write.
 */
export function fencedDriver(driver: Driver, fence: Fence, onLost?: (err: LeaseLostError) => void): Driver {
  const fenced = async <T>(tx: ManagedTransaction, work: (tx: ManagedTransaction) => Promise<T>): Promise<T> => {
    try {
      await checkFenceTx(tx, fence);
    } catch (err) {
      if (err instanceof LeaseLostError) onLost?.(err);
      throw err;
    }
    return work(tx);
  };
  const refuse = (what: string) => () => {
    throw new Error(`fenced driver: ${what} cannot carry the lease's fence; use executeWrite or executeQuery`);
  };
  // A READ session's auto-commit `run` writes nothing (Neo4j refuses writes in it), so it needs no fence.
  const wrapSession = (s: Session, readOnly: boolean) =>
    new Proxy(s, {
      get(target, prop) {
        if (prop === 'executeWrite')
          return (work: (tx: ManagedTransaction) => Promise<unknown>, cfg?: any) =>
            target.executeWrite((tx) => fenced(tx, work), cfg);
        if (prop === 'run' && readOnly) return target.run.bind(target);
        if (prop === 'run' || prop === 'beginTransaction' || prop === 'writeTransaction') return refuse(String(prop));
        const v = Reflect.get(target, prop);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
  const executeQuery = async (query: string, parameters?: any, config: QueryConfig<any> = {}) => {
    if (config.routing === 'READ') return driver.executeQuery(query, parameters, config);
    const session = driver.session({
      database: config.database,
      bookmarkManager:
        config.bookmarkManager === undefined
          ? driver.executeQueryBookmarkManager
          : (config.bookmarkManager ?? undefined),
      impersonatedUser: config.impersonatedUser,
    });
    try {
      return await session.executeWrite((tx) =>
        fenced(tx, async (t) => {
          const res = t.run(query, parameters);
          const keys = await res.keys();
          const { records, summary } = await res;
          return new EagerResult(keys, records, summary);
        }),
      );
    } finally {
      await session.close();
    }
  };
  return new Proxy(driver, {
    get(target, prop) {
      if (prop === 'executeQuery') return executeQuery;
      if (prop === 'session')
        return (config?: SessionConfig) =>
          wrapSession(target.session(config), config?.defaultAccessMode === neo4j.session.READ);
      const v = Reflect.get(target, prop);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}
/* eslint-enable @typescript-eslint/no-explicit-any */
