/**
 * Leases: one replica at a time runs each leader-only loop (a source's poller, the health
 * scheduler). A lease is `(:Lease {name, holder, token, expiresAt})` in Neo4j; `token` goes up on
 * every acquisition and every write of the loop carries it (the fence), so a replica that lost its
 * lease — paused, partitioned, slow — cannot write. The rules here are pure; src/graph/db/leases.ts
 * applies them inside one locked transaction, with Neo4j's clock as the only clock.
 */

/** The lease names: one per source poller, one for the health scheduler. */
export const HEALTH_SCHEDULER_LEASE = 'health-scheduler';

/** The lease of the poller of source `name` (as in the sources file): `poll:<name>`. */
export function pollLeaseName(source: string): string {
  return `poll:${source}`;
}

/** A lease as stored; `holder` is null when released (or never held). */
export interface LeaseRecord {
  holder: string | null;
  token: number;
  /** Milliseconds since the epoch, by Neo4j's clock. */
  expiresAtMs: number;
}

/** What a claim does: take the lease (a new token), keep it (same token, later expiry), or wait. */
export type LeaseDecision =
  | { action: 'acquire' | 'renew'; token: number; expiresAtMs: number }
  | { action: 'wait'; holder: string; token: number; expiresAtMs: number };

/**
 * The claim of `me` on a lease at `nowMs` for `seconds`: free (never held, released or expired) →
 * acquire with the next token; held by me and not expired → renew with the same token; held by
 * another and not expired → wait. My own expired lease is acquired anew with a new token: the
 * loop stopped when it expired, and writes with the old token must stay refused.
 */
export function decideLease(stored: LeaseRecord | null, me: string, nowMs: number, seconds: number): LeaseDecision {
  const expiresAtMs = nowMs + seconds * 1000;
  const token = stored?.token ?? 0;
  const live = stored !== null && stored.holder !== null && stored.expiresAtMs > nowMs;
  if (!live) return { action: 'acquire', token: token + 1, expiresAtMs };
  if (stored.holder === me) return { action: 'renew', token, expiresAtMs };
  return { action: 'wait', holder: stored.holder!, token, expiresAtMs: stored.expiresAtMs };
}

/** How often a replica claims: a third of the lease, so a renewal can fail twice before it expires. */
export function claimIntervalMs(seconds: number): number {
  return Math.max(100, Math.floor((seconds * 1000) / 3));
}

/**
 * Whether a holder may still act, by its own clock: the lease was last confirmed at
 * `confirmedAtMs` (local time when the claim was sent) for `seconds`. A holder that cannot renew
 * (Neo4j away) stops its loop before the lease could have passed to another replica.
 */
export function stillHolds(confirmedAtMs: number, nowMs: number, seconds: number): boolean {
  return nowMs - confirmedAtMs < seconds * 1000;
}

/** What a fenced write carries: the lease, its holder and the token of the acquisition. */
export interface Fence {
  lease: string;
  holder: string;
  token: number;
}

/**
 * A write refused by its fence: the lease has another holder or a newer token. The transaction
 * was rolled back; the loop stops until this replica acquires the lease again.
 */
export class LeaseLostError extends Error {
  override name = 'LeaseLostError';
  readonly code = 'LEASE_LOST';
  constructor(
    readonly fence: Fence,
    readonly current: { holder: string | null; token: number } | null,
  ) {
    super(
      `LEASE_LOST: lease ${fence.lease} token ${fence.token} of ${fence.holder} is no longer valid` +
        (current ? ` (holder ${current.holder ?? 'none'}, token ${current.token})` : ' (no such lease)'),
    );
  }
}

/** True for a {@link LeaseLostError}, also when wrapped as another error's cause. */
export function isLeaseLost(err: unknown): err is LeaseLostError {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++)
    if (e instanceof LeaseLostError) return true;
  return false;
}
