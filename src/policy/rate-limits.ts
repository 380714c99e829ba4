import { DateTime } from 'luxon';
import type { Policy } from './policy-document.js';

/*
 * Cooldowns and the breaker: how often the same action may run on the same target, and how many
 * automatic actions the whole estate may take in a window. Pure: the service reads the history
 * (`ActionAuthorized`) and the breaker's state and passes them in; every answer only tightens.
 */

/** The authorization history a decision read, and the breaker's state. */
export interface RateFacts {
  /** The latest authorization of this action on this target inside its cooldown, if any. */
  last: { id: string; at: string; principal: string; source: string } | null;
  /** Automatic authorizations estate-wide inside the breaker's window. */
  autoCount: number;
  breakerOpenedAt: string | null;
  breakerReason: string | null;
}

/**
 * How far back a decision must read: the action's cooldown and the breaker's window (null: not
 * configured). The breaker counts nothing before `resetAt`, when an operator last set the switch:
 * closing the breaker starts a fresh window.
 */
export function rateWindows(
  policy: Policy,
  action: string,
  at: string,
  resetAt: string | null = null,
): { since: string | null; autoSince: string | null } {
  const now = DateTime.fromISO(at, { zone: 'utc' });
  const cooldown = Object.prototype.hasOwnProperty.call(policy.cooldowns, action)
    ? policy.cooldowns[action]
    : undefined;
  const breaker = policy.breaker;
  let autoSince = breaker === undefined ? null : now.minus({ seconds: breaker.window_seconds });
  if (autoSince !== null && resetAt !== null)
    autoSince = DateTime.max(autoSince, DateTime.fromISO(resetAt, { zone: 'utc' }));
  return {
    since: cooldown === undefined ? null : now.minus({ seconds: cooldown }).toISO(),
    autoSince: autoSince === null ? null : autoSince.toUTC().toISO(),
  };
}

/** What the limits say: escalate or not, why, and whether the breaker must open now (its reason). */
export interface RateOutcome {
  escalate: boolean;
  reasons: string[];
  tripBreaker: string | null;
}

/**
 * Applies the breaker (open, or tripping now) and the action's cooldown. A repeat inside the
 * cooldown escalates naming the previous authorization; past `max_auto_actions` automatic actions
 * in the window the breaker opens and everything escalates until an operator closes it.
 */
export function applyRateLimits(policy: Policy, action: string, at: string, facts: RateFacts): RateOutcome {
  const reasons: string[] = [];
  let tripBreaker: string | null = null;
  const { breaker } = policy;
  if (facts.breakerOpenedAt !== null) {
    reasons.push(
      `breaker open since ${facts.breakerOpenedAt} (${facts.breakerReason ?? 'no reason recorded'}): everything escalates until an operator sets autonomy normal`,
    );
  } else if (breaker !== undefined && facts.autoCount >= breaker.max_auto_actions) {
    tripBreaker = `${facts.autoCount} automatic actions in the last ${breaker.window_seconds} s (breaker.max_auto_actions ${breaker.max_auto_actions})`;
    reasons.push(`breaker opens: ${tripBreaker}; everything escalates until an operator sets autonomy normal`);
  }
  const cooldown = Object.prototype.hasOwnProperty.call(policy.cooldowns, action)
    ? policy.cooldowns[action]
    : undefined;
  if (cooldown !== undefined && facts.last !== null) {
    const lastAt = DateTime.fromISO(facts.last.at, { zone: 'utc' });
    const ago = DateTime.fromISO(at, { zone: 'utc' }).diff(lastAt, 'seconds');
    const seconds = Math.max(0, Math.floor(ago.seconds));
    if (seconds < cooldown) {
      // When it frees, so an executor refused knows when to ask again.
      const free = lastAt.plus({ seconds: cooldown }).toUTC().toISO({ suppressMilliseconds: true });
      reasons.push(
        `cooldowns.${action}: ${cooldown} s — the same action on this target was authorized ${seconds} s ago (${facts.last.id}, ${facts.last.source} by ${facts.last.principal} at ${facts.last.at}); allowed again from ${free}`,
      );
    }
  }
  return { escalate: reasons.length > 0, reasons, tripBreaker };
}
