import type { Attribution, ConsumedEvent, EventRecord, Kind, Transition } from '../src/model/index.js';
import { noneAttribution, unknownBecauseOf } from '../src/model/index.js';
import { attribute } from './attribute.js';
import { narrate } from './narrative.js';
import { expectedEventTypes, TRANSITION_TABLE } from './transition-table.js';
import { DEFAULT_ATTRIBUTE_OPTIONS, type TransitionTable } from './types.js';
import { DEFAULT_MAX_TASK_SECONDS } from './window.js';
import { decideUnknown, type CoverageFacts } from './unknown.js';

/** Tuning of the ladder and the look-up; every field has the design's default. */
export interface CorrelatorSettings {
  highWindowSeconds: number;
  lookbackSeconds: number;
  /** Tolerance for node clocks applied to provider timestamps. */
  clockSkewSeconds: number;
  requestChainSeconds: number;
  /** Longest finished task whose interval is still fetched (see correlator/window.ts). */
  maxTaskSeconds: number;
  /** Longest interval since the previous observation the ladder measures from (see window.ts). */
  maxChangeIntervalSeconds: number;
  emitLow: boolean;
  table: TransitionTable;
}

export const DEFAULT_CORRELATOR_SETTINGS: Readonly<CorrelatorSettings> = {
  highWindowSeconds: DEFAULT_ATTRIBUTE_OPTIONS.highWindowSeconds,
  lookbackSeconds: DEFAULT_ATTRIBUTE_OPTIONS.lookbackSeconds,
  clockSkewSeconds: DEFAULT_ATTRIBUTE_OPTIONS.clockSkewSeconds,
  requestChainSeconds: DEFAULT_ATTRIBUTE_OPTIONS.requestChainSeconds,
  maxTaskSeconds: DEFAULT_MAX_TASK_SECONDS,
  maxChangeIntervalSeconds: DEFAULT_ATTRIBUTE_OPTIONS.maxChangeIntervalSeconds,
  emitLow: DEFAULT_ATTRIBUTE_OPTIONS.emitLow,
  table: TRANSITION_TABLE,
};

/** Everything the graph holds that one explanation reads (src/graph correlationContexts). */
export interface ExplainInput {
  transition: Transition;
  resourceName: string | null;
  /** The host the resource runs on, if known. */
  host: { hostId: string; node: string } | null;
  /** Events on this resource in the candidate window (or still running). */
  candidates: readonly EventRecord[];
  /**
   * Events on its host and resource-less ones on its node (read when {@link needsHostActivity}):
   * the host's own failure (vCenter) explains a guest going unreachable, a node's start-up or
   * shutdown tells who ran a guest's root@pam task; anything else there is provider-level, for `low`.
   */
  hostActivity: readonly EventRecord[];
  /** The resource is under Proxmox HA (its `ha_managed` attribute); absent = not known to be. */
  haManaged?: boolean | null;
  /** Events earlier transitions of this resource already used. */
  consumed: readonly ConsumedEvent[];
  /**
   * What the graph records of the log streams that could hold the cause (src/graph coverage): with
   * it every `none` and `medium` says why it does not know (`unknownBecause`); absent, nothing is said.
   */
  coverage?: CoverageFacts | null;
}

/** What one explanation found: the attribution, its UTC narrative, and what it was about. */
export interface Explanation {
  /** The transition, with the host it ran on filled in when the graph knew it. */
  transition: Transition;
  attribution: Attribution;
  narrative: string;
  /** Candidate events read (before the ladder filtered them). */
  candidates: number;
}

/**
 * Whether explaining `transition` needs the activity of the host it runs on: always for `low`;
 * otherwise when the table expects a host-level (`host_*`: the host's failure makes its guests
 * unreachable) or node-wide (`bulk_*`: the node's start-up or shutdown ran the guest's task) event
 * for the change. The pipeline sets `withHostActivity` from this, per change.
 */
export function needsHostActivity(
  transition: Pick<Transition, 'kind' | 'from' | 'to'>,
  settings: Partial<Pick<CorrelatorSettings, 'emitLow' | 'table'>> = {},
): boolean {
  if (settings.emitLow ?? DEFAULT_CORRELATOR_SETTINGS.emitLow) return true;
  const table = settings.table ?? DEFAULT_CORRELATOR_SETTINGS.table;
  return [...expectedEventTypes(table, transition.kind, transition.from, transition.to)].some(
    (t) => t.startsWith('host_') || t.startsWith('bulk_'),
  );
}

/**
 * Explains one transition from what the graph holds: pure, no I/O. The host's activity is
 * considered whenever the graph read it: a host-level event the table expects is a cause (the
 * host's failure), a node-wide start-up or shutdown names the system as actor, and anything else
 * there counts only with `emitLow`. Events that earlier transitions consumed are passed on, so
 * one task does not explain two transitions of the same kind on the same resource.
 */
export function explain(input: ExplainInput, settings: Partial<CorrelatorSettings> = {}): Explanation {
  const s: CorrelatorSettings = { ...DEFAULT_CORRELATOR_SETTINGS, ...settings };
  const t: Transition = { ...input.transition, hostId: input.transition.hostId ?? input.host?.hostId ?? null };
  const candidates = t.hostId ? [...input.candidates, ...input.hostActivity] : [...input.candidates];
  const attribution = attribute(t, candidates, s.table, {
    highWindowSeconds: s.highWindowSeconds,
    lookbackSeconds: s.lookbackSeconds,
    clockSkewSeconds: s.clockSkewSeconds,
    requestChainSeconds: s.requestChainSeconds,
    maxChangeIntervalSeconds: s.maxChangeIntervalSeconds,
    emitLow: s.emitLow,
    hostCauses: true,
    haManaged: input.haManaged === true,
    consumed: input.consumed,
  });
  if (input.coverage !== undefined) {
    attribution.unknownBecause = decideUnknown(t, attribution.confidence, input.coverage, {
      lookbackSeconds: s.lookbackSeconds,
      clockSkewSeconds: s.clockSkewSeconds,
      maxChangeIntervalSeconds: s.maxChangeIntervalSeconds,
      table: s.table,
    });
  }
  const told = narrate({ id: t.resourceId, kind: t.kind, name: input.resourceName }, t, attribution);
  const narrative = told.ok
    ? told.text
    : `${t.kind} ${t.resourceId} went ${t.from} → ${t.to}; no narrative: ${told.reason}.`;
  return { transition: t, attribution, narrative, candidates: candidates.length };
}

/**
 * The honest answer when explaining failed: a `none` attribution that says why and a narrative
 * that says the cause is unknown. The change itself was observed and is kept.
 */
export function unexplained(
  change: { resourceId: string; kind: Kind; from: string; to: string; observedAt: string },
  message: string,
): { attribution: Attribution; narrative: string } {
  return {
    attribution: {
      ...noneAttribution(
        DEFAULT_CORRELATOR_SETTINGS,
        0,
        `The correlator failed (${message}); the cause was not looked up.`,
      ),
      unknownBecause: unknownBecauseOf('log_not_read', {
        gapReason: 'not_read',
        detail: `the correlator failed (${message}); no log was looked up`,
      }),
    },
    narrative: `${change.kind} ${change.resourceId} went ${change.from} → ${change.to} at ${change.observedAt}. The correlator failed (${message}); the cause is unknown.`,
  };
}
