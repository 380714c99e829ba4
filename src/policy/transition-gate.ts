import type { TransitionDecision } from '../model/index.js';
import type { SuppressionMode } from './policy-document.js';

/** Who or what a transition was attributed to, and how sure the correlator is. */
export interface TransitionAttribution {
  confidence: 'high' | 'medium' | 'low' | 'none';
  actor?: string | null;
  actorKind?: 'human' | 'api_token' | 'ha_manager' | 'system' | null;
  /** The grant or auto action aitia authorized that explains it (src/pipeline/authorize.ts). */
  authorization?: { grantId: string; source: 'grant' | 'auto'; approvedBy: string | null } | null;
  /** Set when a mapped agent made the change with no authorization that explains it. */
  unauthorized?: { principal: string; reason: string } | null;
}

/**
 * Whether the change was meant: high confidence in a principal, or in an action aitia itself
 * authorized (a redeemed grant, a reported auto action) — and never an agent's unauthorized one.
 */
export function isMeant(attribution: TransitionAttribution): boolean {
  if (attribution.confidence !== 'high' || attribution.unauthorized) return false;
  return Boolean(attribution.authorization) || isPrincipal(attribution);
}

/** "under grant auth-… approved by bob" / "as the automatic action auth-…", for the gate's reasons. */
function underAuthorization(a: TransitionAttribution): string {
  const x = a.authorization;
  if (!x) return '';
  return x.source === 'auto'
    ? ` as the automatic action ${x.grantId} the gate allowed`
    : ` under grant ${x.grantId}${x.approvedBy ? ` approved by ${x.approvedBy}` : ''}`;
}

/**
 * A principal is someone accountable: a human or an API token. An HA request counts when it is
 * credited to a user (the actor is set); HA acting on its own (recovery after a fence, no actor)
 * and `system` are not principals — nobody decided, so nothing may be suppressed.
 */
export function isPrincipal(attribution: TransitionAttribution): boolean {
  const actor = attribution.actor?.trim() ?? '';
  if (actor === '') return false;
  return (
    attribution.actorKind === 'human' || attribution.actorKind === 'api_token' || attribution.actorKind === 'ha_manager'
  );
}

/**
 * Decides what follows a transition from its attribution and the policy's suppression mode.
 * Only high confidence in a principal can suppress, and only when the mode is `on`; `shadow`
 * (the default) opens the incident and records what it would have suppressed; medium confidence
 * never suppresses (annotate); low and none open an incident.
 */
export function decideTransition(
  attribution: TransitionAttribution,
  narrative: string,
  suppression: SuppressionMode,
): TransitionDecision {
  const who = `${attribution.actor ?? 'unknown'} (${attribution.actorKind ?? 'unknown kind'})`;
  if (attribution.unauthorized) {
    const u = attribution.unauthorized;
    return {
      decision: 'open_incident',
      reasons: [
        `unauthorized: agent ${u.principal} acted with no grant or reported automatic action that explains it (${u.reason}); never suppressed, an incident opens`,
      ],
    };
  }
  if (attribution.confidence === 'medium') {
    return {
      decision: 'annotate',
      reasons: [
        `medium confidence in ${who}: never suppressed; the incident opens with the attribution as a lead to confirm`,
      ],
    };
  }
  if (attribution.confidence === 'low' || attribution.confidence === 'none') {
    return {
      decision: 'open_incident',
      reasons: [`${attribution.confidence} confidence: the cause is not known, so an incident opens`],
    };
  }
  if (!isMeant(attribution)) {
    return {
      decision: 'open_incident',
      reasons: [`high confidence, but ${who} is not a principal: nobody decided this, so an incident opens`],
    };
  }
  const attributed = `high confidence in principal ${who}${underAuthorization(attribution)}`;
  if (suppression === 'on') {
    return {
      decision: 'suppress',
      reasons: [`${attributed}; attribution.suppression is on: no incident, no remediation`],
    };
  }
  if (suppression === 'shadow') {
    return {
      decision: 'open_incident',
      reasons: [
        `${attributed}; attribution.suppression is shadow: the incident opens`,
        `would have suppressed: ${narrative}`,
      ],
      wouldHaveSuppressed: narrative,
    };
  }
  return { decision: 'open_incident', reasons: [`${attributed}; attribution.suppression is off: never suppressed`] };
}

/**
 * A condition is expected when the change it followed was meant: a principal's at high confidence,
 * or an action aitia authorized; an agent's unauthorized change never is.
 */
export function isExpected(cause: TransitionAttribution | null): boolean {
  return cause !== null && isMeant(cause);
}

/** The gate's decision on a condition that opens: suppressed (on), would have been (shadow), or paged. */
export interface ConditionSuppression {
  suppressed: boolean;
  wouldSuppress: boolean;
  reasons: string[];
}

/**
 * Decides how a condition opens from the transition it followed (if any) and the suppression mode.
 * Suppression is about paging, not truth: a suppressed condition is still open and listed, and
 * health stays what the checks say. Only an expected cause can suppress, and only in mode `on`;
 * `shadow` opens it as usual and records what `on` would have done.
 */
export function decideCondition(
  cause: { attribution: TransitionAttribution; narrative: string } | null,
  suppression: SuppressionMode,
): ConditionSuppression {
  if (cause === null)
    return { suppressed: false, wouldSuppress: false, reasons: ['no change explains it: cause unknown'] };
  const a = cause.attribution;
  const who = `${a.actor ?? 'unknown'} (${a.actorKind ?? 'unknown kind'})`;
  if (!isExpected(a)) {
    const why = a.unauthorized
      ? `follows agent ${a.unauthorized.principal}'s unauthorized change: not an intentional change, it pages`
      : `follows a change with ${a.confidence} confidence in ${who}: not an intentional change, it pages`;
    return { suppressed: false, wouldSuppress: false, reasons: [why] };
  }
  const expected = `expected: follows an intentional change by ${who}${underAuthorization(a)} — ${cause.narrative}`;
  if (suppression === 'on')
    return {
      suppressed: true,
      wouldSuppress: false,
      reasons: [expected, 'attribution.suppression is on: opened suppressed, nobody is paged'],
    };
  if (suppression === 'shadow')
    return {
      suppressed: false,
      wouldSuppress: true,
      reasons: [expected, 'attribution.suppression is shadow: it opens and pages; `on` would have suppressed it'],
    };
  return { suppressed: false, wouldSuppress: false, reasons: [expected, 'attribution.suppression is off: it pages'] };
}
