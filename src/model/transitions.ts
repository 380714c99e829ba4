import type { ActorKind, AttributionConfidence, EventRecord, EventType, StatusClass } from './events.js';
import type { Kind } from './kinds.js';
import type { UnknownBecause } from './coverage.js';
import type { AttributionAuthorization, UnauthorizedAction } from './authorizations.js';
import { isoMillis } from './iso-millis.js';

/**
 * The domain of an observed state change: the change itself, its attribution (who or what caused
 * it, and how sure the correlator is) and the gate's decision on it. Defined once, here; the
 * correlator computes them, the graph stores them, the services and APIs show them.
 */

/** An observed state change of one resource, as a provider pass detected it. */
export interface Transition {
  id?: string | null;
  resourceId: string;
  kind: Kind;
  from: string;
  to: string;
  /** ISO-8601; when the pass saw the new state (the change happened at or before it). */
  observedAt: string;
  /**
   * ISO-8601; when the resource was last seen in the old state (its previous `lastSeen`): the
   * change happened after it. With it the ladder measures from that interval, not from the
   * observation alone; without it (null/absent), from the observation as before.
   */
  previousObservedAt?: string | null;
  observer?: string | null;
  /** The node/host the resource ran on; only used to find provider-level activity for `low`. */
  hostId?: string | null;
}

/** An event used in an attribution: its role and what a narrative needs to describe it. */
export interface AttributionEvent {
  id: string;
  /** `cause`: the event that explains the change; `request`: who asked for it (HA, reboot, migration). */
  role: 'cause' | 'request';
  provider: EventRecord['provider'];
  type: EventType;
  rawType: string;
  actor: string | null;
  actorKind: ActorKind;
  node: string | null;
  startedAt: string;
  endedAt: string | null;
  statusClass: StatusClass;
  statusText: string | null;
  /** One line, UTC: `qmstop by alice@pve on pve1, 2026-05-14T02:08:29Z–2026-05-14T02:08:30Z, ok`. */
  summary: string;
}

/**
 * Why a task run as root@pam (or an event with no user) is credited to the provider itself rather
 * than a person: what it was doing. The narrative says "by the system (<label>)".
 */
export interface SystemContext {
  /** `HA manager`, `node start-up: startall`, `node shutdown: stopall`, `vSphere HA`. */
  label: string;
  /** The node-wide task the cause ran under (startall, stopall), when one was found. */
  eventId: string | null;
}

/** The correlator's answer for one transition. Never a guess: `none` says nothing was found. */
export interface Attribution {
  confidence: AttributionConfidence;
  /** Who is credited: the requester when an HA manager or Proxmox executed on someone's behalf. */
  actor: string | null;
  actorKind: ActorKind | null;
  /** The user behind a request chain (HA request, reboot, migration); null without one. */
  requestedBy: string | null;
  /** Who ran the executing task when it was not the credited actor (root@pam for HA). */
  executor: string | null;
  executorKind: ActorKind | null;
  /** Set when the system is credited (`actorKind: system`, or the HA manager on its own): what it was doing. */
  systemContext: SystemContext | null;
  /** `cause` first, then the requests behind it, nearest first: the last one is credited. */
  events: AttributionEvent[];
  /** Seconds from the cause's interval to the observation: >0 before it, 0 during, <0 after (skew). */
  deltaSeconds: number | null;
  /** True when the cause's type is one the table expects for this transition. */
  expectedType: boolean;
  /** Events on this resource in the look-back, including those already consumed. */
  consideredEvents: number;
  lookbackSeconds: number;
  /**
   * ISO-8601 UTC; the previous observation, when the transition carried one: the change happened
   * after it, and the ladder measured from that interval (its last `maxChangeIntervalSeconds` at
   * most) rather than from the observation alone. Null: measured from the observation.
   */
  previousObservedAt: string | null;
  /** One sentence saying why this confidence. */
  reason: string;
  /**
   * Set on every `none` and `medium`: why no cause is established — the log was read completely
   * and holds nothing (`no_record`), or it was not (see src/model/coverage.ts). Null on high/low,
   * and absent on attributions stored before it existed.
   */
  unknownBecause?: UnknownBecause | null;
  /** The redeemed grant or reported auto action the change is credited to (correlator/authorization.ts); absent or null: none. */
  authorization?: AttributionAuthorization | null;
  /** Set when a mapped agent made the change and no authorization explains it; absent or null otherwise. */
  unauthorized?: UnauthorizedAction | null;
}

/** An event already used to explain a transition `from → to` of the same resource. */
export interface ConsumedEvent {
  eventId: string;
  from: string;
  to: string;
}

/** The attribution that says nothing was found (or looked up), and why. */
export function noneAttribution(
  opts: { lookbackSeconds: number },
  considered: number,
  reason: string,
  previousObservedAt: string | null = null,
): Attribution {
  return {
    confidence: 'none',
    actor: null,
    actorKind: null,
    requestedBy: null,
    executor: null,
    executorKind: null,
    systemContext: null,
    events: [],
    deltaSeconds: null,
    expectedType: false,
    consideredEvents: considered,
    lookbackSeconds: opts.lookbackSeconds,
    previousObservedAt,
    reason,
  };
}

/**
 * What follows an observed transition:
 * - `suppress`: no incident and no remediation — a principal meant to do it (only in mode `on`);
 * - `annotate`: open the incident with the attribution attached as a lead to confirm, not a fact
 *   (medium confidence: an event on the resource nearby, but not the expected one in time);
 * - `open_incident`: open the incident; the narrative carries whatever attribution there is.
 */
export type TransitionDecisionKind = 'suppress' | 'annotate' | 'open_incident';

/** The gate's decision on one transition, with its reasons. */
export interface TransitionDecision {
  decision: TransitionDecisionKind;
  reasons: string[];
  /** Only in shadow mode: what `on` would have suppressed, for operators to review. */
  wouldHaveSuppressed?: string;
}

/**
 * A Transition as stored: the change, where it was observed, its attribution and decision, and the
 * narrative in UTC as rendered when stored (other zones are rendered on demand).
 */
export interface TransitionRecord {
  id: string;
  resourceId: string;
  kind: Kind;
  from: string;
  to: string;
  rawFrom: string | null;
  rawTo: string | null;
  observedAt: string;
  observer: string;
  /** The node/host the resource ran on when observed (for `low` look-ups), if known. */
  hostId: string | null;
  attribution: Attribution;
  decision: TransitionDecision;
  narrative: string;
  createdAt: string;
  /** Its place on the feed (subscribers resume from it); null for transitions stored before the feed. */
  sequence: number | null;
  /** Earlier attributions of this transition, oldest first: kept when a later complete read re-explained it. */
  attributionHistory?: PastAttribution[];
}

/** An attribution a transition had before it was explained again. */
export interface PastAttribution {
  attribution: Attribution;
  narrative: string;
  decision: TransitionDecision;
  /** When it was replaced, ISO-8601 UTC. */
  replacedAt: string;
  /** Why it was explained again (`the task log for … was read completely`). */
  replacedBecause: string;
}

/**
 * The natural key of a transition: resource, change and observation time to the millisecond
 * (`proxmox:lab/qemu/101#running>stopped@1778724511000`). The same observation stored twice is one.
 */
export function transitionId(t: { resourceId: string; from: string; to: string; observedAt: string }): string {
  // NaN (`…@NaN`) for an unparseable time, as luxon's invalid DateTime gives.
  const ms = isoMillis(t.observedAt) ?? Number.NaN;
  return `${t.resourceId}#${t.from}>${t.to}@${ms}`;
}
