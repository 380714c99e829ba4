/**
 * Retry timing for a delivery (pure): exponential backoff with full jitter — a delay drawn
 * uniformly from [0, min(cap, base·2^attempt)) — so receivers coming back are not hit by every
 * replica's queue at once; after `budget` attempts the delivery is a dead letter.
 */

export interface RetryPolicy {
  baseMs: number;
  capMs: number;
  /** Attempts before a dead letter (the first try included). */
  budget: number;
}

export const DEFAULT_RETRY: RetryPolicy = { baseMs: 500, capMs: 60_000, budget: 8 };

/** The wait before attempt `attempt + 1` after `attempt` failures (1-based); `random` in [0, 1). */
export function backoffMs(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/** Whether another attempt is allowed after `attempts` failed ones. */
export function retryLeft(policy: RetryPolicy, attempts: number): boolean {
  return attempts < policy.budget;
}
