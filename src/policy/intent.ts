import { DateTime } from 'luxon';
import type { Policy } from './policy-document.js';
import type { LastChangeFact, TargetFacts } from './target-facts.js';

/**
 * Actions that undo or override a recent change: remediations an agent reaches for when something
 * is down. When a person (or their API token, or their HA request) changed the target on purpose a
 * moment ago, an automatic remediation would undo an operator's intent — it escalates instead.
 */
export const REMEDIATION_ACTIONS: readonly string[] = [
  'start',
  'restart',
  'resume',
  'unpause',
  'reboot',
  'reset',
  'power-on',
  'power-cycle',
  'migrate',
  'recover',
  'remediate',
];

/** True when the change was made by someone accountable, on the evidence of the expected task. */
export function isIntentional(change: LastChangeFact): boolean {
  const principal =
    change.actorKind === 'human' || change.actorKind === 'api_token' || change.actorKind === 'ha_manager';
  return change.confidence === 'high' && principal && (change.actor?.trim() ?? '') !== '';
}

/**
 * Whether a remediation must wait for an operator because the target's last change was someone's
 * intent within `attribution.respect_intent_seconds`; null when intent does not apply. Pure: `at`
 * is the moment of the question, recorded with the decision so it replays the same.
 */
export function respectIntent(policy: Policy, target: TargetFacts, action: string, at: string): string | null {
  const window = policy.attribution.respect_intent_seconds;
  const change = target.lastChange;
  if (window <= 0 || !change || !REMEDIATION_ACTIONS.includes(action) || !isIntentional(change)) return null;
  const asked = DateTime.fromISO(at, { setZone: true });
  const changed = DateTime.fromISO(change.observedAt, { setZone: true });
  if (!asked.isValid || !changed.isValid) return null;
  const ago = Math.round(asked.diff(changed, 'seconds').seconds);
  if (ago < 0 || ago > window) return null;
  const when = changed.toUTC().toFormat("yyyy-LL-dd HH:mm:ss 'UTC'");
  const task = change.cause ? ` (${change.cause})` : '';
  return (
    `intent: ${target.slug} went ${change.from} → ${change.to} at ${when}, ${ago} s ago, by ${change.actor}${task}, ` +
    `high confidence — a person meant it; ${action} would undo it within attribution.respect_intent_seconds ` +
    `(${window} s), so an operator decides`
  );
}
