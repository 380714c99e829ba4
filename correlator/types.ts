import type { ConsumedEvent, EventType, Kind } from '../src/model/index.js';

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
