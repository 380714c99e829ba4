import type { ActorKind, AttributionConfidence, EventRecord, EventType, StatusClass } from '../src/model/events.js';
import type { Kind } from '../src/model/kinds.js';

export type { AttributionConfidence, EventRecord } from '../src/model/events.js';

/** An observed state change of one resource, as the scheduler's poll detected it. */
export interface Transition {
  id?: string | null;
  resourceId: string;
  kind: Kind;
  from: string;
  to: string;
  /** ISO-8601; when the poll saw the new state (the change happened at or before it). */
  observedAt: string;
  observer?: string | null;
  /** The node/host the resource ran on; only used to find provider-level activity for `low`. */
  hostId?: string | null;
}

/** Wildcard for a table row's `from` or `to`: matches every state of the kind. */
export const ANY_STATE = '*';

/** One row of the transition table: which event types can cause `from → to` for `kind`. */
export interface TransitionRule {
  kind: Kind;
  from: string;
  to: string;
  events: readonly EventType[];
  /** Why these events cause this change: provider behaviour, written down. */
  why: string;
}

export type TransitionTable = readonly TransitionRule[];

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
  events: AttributionEvent[];
  /** Seconds from the cause's interval to the observation: >0 before it, 0 during, <0 after (skew). */
  deltaSeconds: number | null;
  /** True when the cause's type is one the table expects for this transition. */
  expectedType: boolean;
  /** Events on this resource in the look-back, including those already consumed. */
  consideredEvents: number;
  lookbackSeconds: number;
  /** One sentence saying why this confidence. */
  reason: string;
}

/** An event already used to explain a transition `from → to` of the same resource. */
export interface ConsumedEvent {
  eventId: string;
  from: string;
  to: string;
}

/** Tuning of the ladder; all times in seconds. */
export interface AttributeOptions {
  /** high: the cause's interval must come within this distance of the observation. */
  highWindowSeconds: number;
  /** medium: how far back any event on the resource is considered. */
  lookbackSeconds: number;
  /** Tolerance for node clocks: provider timestamps may be off by this much either way. */
  clockSkewSeconds: number;
  /** How long after a request (HA, reboot, migration) its executing task may start. */
  requestChainSeconds: number;
  /** Emit `low` for provider-level activity (off by default: it is rarely the cause). */
  emitLow: boolean;
  /** Events that already explain a transition of the same kind on this resource. */
  consumed: readonly ConsumedEvent[];
}

/** Defaults per the design: 30 s for high, 300 s look-back, HA loops run every 10 s. */
export const DEFAULT_ATTRIBUTE_OPTIONS: Readonly<AttributeOptions> = {
  highWindowSeconds: 30,
  lookbackSeconds: 300,
  clockSkewSeconds: 5,
  requestChainSeconds: 60,
  emitLow: false,
  consumed: [],
};
