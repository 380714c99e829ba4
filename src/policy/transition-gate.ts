import type { TransitionDecision } from '../model/index.js';
import type { SuppressionMode } from './policy-document.js';

/** Who or what a transition was attributed to, and how sure the correlator is. */
export interface TransitionAttribution {
  confidence: 'high' | 'medium' | 'low' | 'none';
  actor?: string | null;
  actorKind?: 'human' | 'api_token' | 'ha_manager' | 'system' | null;
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
  if (!isPrincipal(attribution)) {
    return {
      decision: 'open_incident',
      reasons: [`high confidence, but ${who} is not a principal: nobody decided this, so an incident opens`],
    };
  }
  const attributed = `high confidence in principal ${who}`;
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
