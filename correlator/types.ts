import type { ConsumedEvent, EventType, Kind } from '../src/model/index.js';

/** Wildcard for a table row's `from` or `to`: matches every state of the kind. */
export const ANY_STATE = '*';

/** One row of the transition table: which event types can cause `from → to` for `kind`. */
export interface TransitionRule {
  kind: Kind;
  from: string;
  to: string;
  /** Events whose outcome is this change: a stop leaves the guest stopped. */
  events: readonly EventType[];
  /**
   * Events this change is seen half-way through: their outcome is another state (a reboot ends
   * running, a restart migration running on the target), but a poll can land in the middle. They
   * are expected causes too, ranked below `events` when both are near the change.
   */
  midway?: readonly EventType[];
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
  /**
   * Count events on the host the resource ran on (`transition.hostId`) as causes where the table
   * expects a host-level type (`host_*`): vCenter losing the host is why its guests become
   * unreachable. Off in these bare defaults (only the resource's own events are causes, provider
   * activity is at most low); explain() — the pipeline's path — turns it on.
   */
  hostCauses: boolean;
  /** The resource is under Proxmox HA (its `ha_managed` attribute): see correlator/actors.ts. */
  haManaged: boolean;
  /**
   * The longest interval between the previous observation and this one that the ladder measures
   * from; an older previous observation (a poller that was down) is cut to this. See window.ts.
   */
  maxChangeIntervalSeconds: number;
  /** Events that already explain a transition of the same kind on this resource. */
  consumed: readonly ConsumedEvent[];
}

/** One hour: the candidate window (window.ts) fetches this much of a long interval, and no more. */
export const DEFAULT_MAX_CHANGE_INTERVAL_SECONDS = 3600;

/** Defaults per the design: 30 s for high, 300 s look-back, HA loops run every 10 s. */
export const DEFAULT_ATTRIBUTE_OPTIONS: Readonly<AttributeOptions> = {
  highWindowSeconds: 30,
  lookbackSeconds: 300,
  clockSkewSeconds: 5,
  requestChainSeconds: 60,
  emitLow: false,
  hostCauses: false,
  haManaged: false,
  maxChangeIntervalSeconds: DEFAULT_MAX_CHANGE_INTERVAL_SECONDS,
  consumed: [],
};
