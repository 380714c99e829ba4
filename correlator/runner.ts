import type { Driver } from 'neo4j-driver';
import { openCondition, resolveCondition } from '../src/graph/conditions.js';
import { findCandidateEvents, findNodeEvents } from '../src/graph/events.js';
import { hostOf } from '../src/graph/resource-queries.js';
import {
  type Attribution,
  noneAttribution,
  type ResourceRecord,
  type Transition,
  transitionId,
  type TransitionRecord,
} from '../src/model/index.js';
import { getResourceById } from '../src/graph/resources.js';
import { consumedEventsOf, createTransition, getTransition } from '../src/graph/transitions.js';
import type { Kind } from '../src/model/kinds.js';
import type { EventRecord } from '../src/model/events.js';
import type { SuppressionMode } from '../src/policy/policy-document.js';
import { decideTransition } from '../src/policy/transition-gate.js';
import { attribute } from './attribute.js';
import { narrate } from './narrative.js';
import { TRANSITION_TABLE } from './transition-table.js';
import { DEFAULT_ATTRIBUTE_OPTIONS, type TransitionTable } from './types.js';
import { candidateWindow, DEFAULT_MAX_TASK_SECONDS } from './window.js';

/**
 * The correlator's I/O shell: fetch candidates for one transition from Neo4j on the
 * (resourceId, startedAt) index and the events earlier transitions of the same resource already
 * used, run the pure `attribute()` / `narrate()` / gate, and (for polls) store the Transition,
 * open or resolve the paused_io_error condition, and publish it to subscribers.
 */

/** Tuning of the ladder and the look-up; every field has the design's default. */
export interface CorrelatorSettings {
  highWindowSeconds: number;
  lookbackSeconds: number;
  /** Tolerance for node clocks applied to provider timestamps. */
  clockSkewSeconds: number;
  requestChainSeconds: number;
  /** Longest finished task whose interval is still fetched (see correlator/window.ts). */
  maxTaskSeconds: number;
  emitLow: boolean;
  table: TransitionTable;
}

export const DEFAULT_CORRELATOR_SETTINGS: Readonly<CorrelatorSettings> = {
  highWindowSeconds: DEFAULT_ATTRIBUTE_OPTIONS.highWindowSeconds,
  lookbackSeconds: DEFAULT_ATTRIBUTE_OPTIONS.lookbackSeconds,
  clockSkewSeconds: DEFAULT_ATTRIBUTE_OPTIONS.clockSkewSeconds,
  requestChainSeconds: DEFAULT_ATTRIBUTE_OPTIONS.requestChainSeconds,
  maxTaskSeconds: DEFAULT_MAX_TASK_SECONDS,
  emitLow: DEFAULT_ATTRIBUTE_OPTIONS.emitLow,
  table: TRANSITION_TABLE,
};

/** What one explanation found: the attribution, its UTC narrative, and what it was about. */
export interface Explanation {
  transition: Transition;
  resource: ResourceRecord | null;
  attribution: Attribution;
  narrative: string;
  /** Candidate events fetched (before the ladder filtered them). */
  candidates: number;
}

/**
 * Explains one transition from stored events; stores nothing. Events that transitions observed
 * strictly before this one already used are passed as consumed, so one task does not explain two
 * transitions of the same kind on the same resource.
 */
export async function explainStoredTransition(
  driver: Driver,
  transition: Transition,
  settings: Partial<CorrelatorSettings> = {},
): Promise<Explanation> {
  const s: CorrelatorSettings = { ...DEFAULT_CORRELATOR_SETTINGS, ...settings };
  const window = candidateWindow(transition.observedAt, s);
  if (!window) throw new Error(`observedAt ${JSON.stringify(transition.observedAt)} is not an ISO-8601 time`);
  const resource = await getResourceById(driver, transition.resourceId);
  const host = transition.hostId ? null : await hostOf(driver, transition.resourceId);
  const t: Transition = { ...transition, hostId: transition.hostId ?? host?.hostId ?? null };

  const candidates: EventRecord[] = await findCandidateEvents(driver, t.resourceId, window);
  if (s.emitLow && t.hostId) {
    // Provider-level activity: events on the host itself, and resource-less ones on its node.
    candidates.push(...(await findCandidateEvents(driver, t.hostId, window)));
    const node = host?.node ?? (await getResourceById(driver, t.hostId))?.name;
    if (node)
      candidates.push(
        ...(await findNodeEvents(driver, { hostId: t.hostId, node }, window)).filter((e) => e.resourceId === null),
      );
  }
  const consumed = await consumedEventsOf(driver, t.resourceId, { from: window.from, before: t.observedAt });
  const attribution = attribute(t, candidates, s.table, {
    highWindowSeconds: s.highWindowSeconds,
    lookbackSeconds: s.lookbackSeconds,
    clockSkewSeconds: s.clockSkewSeconds,
    requestChainSeconds: s.requestChainSeconds,
    emitLow: s.emitLow,
    consumed,
  });
  const told = narrate({ id: t.resourceId, kind: t.kind, name: resource?.name ?? null }, t, attribution);
  const narrative = told.ok
    ? told.text
    : `${t.kind} ${t.resourceId} went ${t.from} → ${t.to}; no narrative: ${told.reason}.`;
  return { transition: t, resource, attribution, narrative, candidates: candidates.length };
}

/** A state change as a poll reported it (upsertResources `changes`), with when and by whom it was seen. */
export interface ObservedChange {
  id: string;
  kind: Kind;
  from: string;
  to: string;
  /** The provider's word for the new state. */
  rawState?: string | null;
  /** The provider's word for the old state, when the observer knew it. */
  rawFrom?: string | null;
}

export interface CorrelateOptions {
  /** When the poll read the new states (ISO-8601). */
  observedAt: string;
  /** Who observed: `proxmox-poll:<cluster>`. */
  observer: string;
  /** The policy's `attribution.suppression`. */
  suppression: SuppressionMode;
  settings?: Partial<CorrelatorSettings>;
  /** Called once per newly stored transition (the GraphQL subscription's bus). */
  publish?: (transition: TransitionRecord) => void;
}

export interface CorrelationReport {
  /** Transitions stored by this call, in order. */
  created: TransitionRecord[];
  /** Changes already stored (a retried poll): left as they were. */
  existing: string[];
  conditions: { opened: string[]; resolved: string[] };
  /** Changes that could not be explained or stored, with the error; the others still were. */
  errors: Array<{ resourceId: string; message: string }>;
}

/** The VM state that has its own condition, opened on entry and resolved on exit. */
const IO_ERROR_STATE = 'paused_io_error';

/**
 * Turns a poll's state changes into stored, attributed, gated Transitions (the first sighting of a
 * resource is not a change: upsertResources does not report it). Changes are handled one by one,
 * in order, so a later change of the same resource sees the events the earlier one consumed.
 */
export async function correlateChanges(
  driver: Driver,
  changes: readonly ObservedChange[],
  options: CorrelateOptions,
): Promise<CorrelationReport> {
  const report: CorrelationReport = { created: [], existing: [], conditions: { opened: [], resolved: [] }, errors: [] };
  for (const change of changes) {
    try {
      await correlateOne(driver, change, options, report);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      report.errors.push({ resourceId: change.id, message });
      // The poll has already stored the new state, so the next poll will not report this change
      // again: keep the observation, honestly unexplained, rather than lose it.
      await storeUnexplained(driver, change, options, report, message).catch(() => {});
    }
  }
  return report;
}

/** Conditions that follow from the state itself: paused on an I/O error opens one, leaving it resolves it. */
async function applyStateConditions(
  driver: Driver,
  change: ObservedChange,
  transition: TransitionRecord,
  options: CorrelateOptions,
  report: CorrelationReport,
): Promise<void> {
  if (change.kind === 'vm' && change.to === IO_ERROR_STATE) {
    const opened = await openCondition(driver, {
      resourceId: change.id,
      type: 'paused_io_error',
      at: options.observedAt,
      evidence: {
        transitionId: transition.id,
        from: change.from,
        to: change.to,
        rawState: change.rawState ?? null,
        observedAt: transition.observedAt,
      },
      attribution: { transitionId: transition.id, ...transition.attribution, narrative: transition.narrative },
    });
    if (opened.opened) report.conditions.opened.push(opened.condition.id);
  } else if (change.kind === 'vm' && change.from === IO_ERROR_STATE) {
    const resolved = await resolveCondition(driver, {
      resourceId: change.id,
      type: 'paused_io_error',
      at: options.observedAt,
      evidence: {
        transitionId: transition.id,
        from: change.from,
        to: change.to,
        rawState: change.rawState ?? null,
        observedAt: transition.observedAt,
      },
    });
    if (resolved.resolved && resolved.condition) report.conditions.resolved.push(resolved.condition.id);
  }
}

/** Stores a change whose explanation failed as a `none` transition that says why. */
async function storeUnexplained(
  driver: Driver,
  change: ObservedChange,
  options: CorrelateOptions,
  report: CorrelationReport,
  message: string,
): Promise<void> {
  const attribution = noneAttribution(
    DEFAULT_CORRELATOR_SETTINGS,
    0,
    `The correlator failed (${message}); the cause was not looked up.`,
  );
  const narrative = `${change.kind} ${change.id} went ${change.from} → ${change.to} at ${options.observedAt}. The correlator failed (${message}); the cause is unknown.`;
  const { transition, created } = await createTransition(driver, {
    resourceId: change.id,
    kind: change.kind,
    from: change.from,
    to: change.to,
    observedAt: options.observedAt,
    observer: options.observer,
    hostId: null,
    rawFrom: change.rawFrom ?? null,
    rawTo: change.rawState ?? null,
    attribution,
    decision: decideTransition(attribution, narrative, options.suppression),
    narrative,
  });
  if (created) {
    report.created.push(transition);
    await applyStateConditions(driver, change, transition, options, report);
    options.publish?.(transition);
  }
}

async function correlateOne(
  driver: Driver,
  change: ObservedChange,
  options: CorrelateOptions,
  report: CorrelationReport,
): Promise<void> {
  const base: Transition = {
    resourceId: change.id,
    kind: change.kind,
    from: change.from,
    to: change.to,
    observedAt: options.observedAt,
    observer: options.observer,
  };
  const id = transitionId(base);
  if (await getTransition(driver, id)) {
    report.existing.push(id);
    return;
  }
  const explained = await explainStoredTransition(driver, base, options.settings);
  const decision = decideTransition(explained.attribution, explained.narrative, options.suppression);
  const { transition, created } = await createTransition(driver, {
    ...base,
    observer: options.observer,
    hostId: explained.transition.hostId ?? null,
    rawFrom: change.rawFrom ?? null,
    rawTo: change.rawState ?? null,
    attribution: explained.attribution,
    decision,
    narrative: explained.narrative,
  });
  if (!created) {
    report.existing.push(id);
    return;
  }
  report.created.push(transition);
  await applyStateConditions(driver, change, transition, options, report);
  options.publish?.(transition);
}
