import {
  type Attribution,
  type ConsumedEvent,
  type EventRecord,
  noneAttribution,
  type Transition,
} from '../src/model/index.js';
import { describeEvent, toAttributionEvent, whenPhrase } from './describe.js';
import { findRequest } from './request-chains.js';
import { compareCandidates, type PlacedEvent, placeEvent, toMillis } from './timing.js';
import { expectedEventTypes } from './transition-table.js';
import { type AttributeOptions, DEFAULT_ATTRIBUTE_OPTIONS, type TransitionTable } from './types.js';

/** Did the event end well enough to have done what it set out to do? (`running` has not failed yet.) */
function succeeded(e: EventRecord): boolean {
  return e.statusClass === 'ok' || e.statusClass === 'warning' || e.statusClass === 'running';
}

/** `proxmox:lab/qemu/101` → `proxmox:lab/`: provider-level activity must come from the same cluster/server. */
function scopePrefixOf(resourceId: string): string {
  const slash = resourceId.indexOf('/');
  return slash < 0 ? `${resourceId}/` : resourceId.slice(0, slash + 1);
}

/**
 * Explains one transition from candidate events, on the ladder of DESIGN.md "Attribution":
 * high = an event on exactly this resource, of a type the table expects, that did not fail, whose
 * interval comes within `highWindowSeconds` (+ skew) of the observation; medium = any other event on
 * this resource in the look-back; low (only with `emitLow`) = activity without this resource's id:
 * resource-less events on the same node (`transition.hostId`) or, without a host, the same
 * cluster/server, and events on that host itself; none otherwise.
 * The expected type beats others, then the nearest in time. Consumed events (already explaining a
 * transition of the same kind on this resource) are skipped. Pure: the caller fetches candidates.
 */
export function attribute(
  transition: Transition,
  candidates: readonly EventRecord[],
  table: TransitionTable,
  options: Partial<AttributeOptions> = {},
): Attribution {
  const opts: AttributeOptions = { ...DEFAULT_ATTRIBUTE_OPTIONS, ...options };
  const observedMs = toMillis(transition.observedAt);
  if (observedMs === null) {
    return noneAttribution(
      opts,
      0,
      `observedAt ${JSON.stringify(transition.observedAt)} is not an ISO-8601 time; nothing can be matched.`,
    );
  }
  const expected = expectedEventTypes(table, transition.kind, transition.from, transition.to);
  const consumed = new Set(
    opts.consumed.filter((c) => c.from === transition.from && c.to === transition.to).map((c) => c.eventId),
  );
  const place = (e: EventRecord) => placeEvent(e, observedMs, opts.clockSkewSeconds);
  const placed = candidates.map(place).filter((p): p is PlacedEvent => p !== null && p.startsInTime);

  // Ids are cluster/server-scoped, so exact equality is what keeps vmid 101 of another cluster out.
  const onResource = placed.filter((p) => p.event.resourceId === transition.resourceId);
  const inLookback = onResource.filter((p) => p.skewedGapSeconds <= opts.lookbackSeconds);
  const open = inLookback.filter((p) => !consumed.has(p.event.id));
  const pool = onResource.filter((p) => !consumed.has(p.event.id));

  const high = open
    .filter((p) => expected.has(p.event.type) && succeeded(p.event) && p.skewedGapSeconds <= opts.highWindowSeconds)
    .sort(compareCandidates(null))[0];
  if (high) return build('high', high, pool, inLookback.length, true, opts, transition);

  const medium = [...open].sort(compareCandidates(expected))[0];
  if (medium)
    return build('medium', medium, pool, inLookback.length, expected.has(medium.event.type), opts, transition);

  if (opts.emitLow) {
    const prefix = scopePrefixOf(transition.resourceId);
    const low = placed
      .filter((p) => p.skewedGapSeconds <= opts.lookbackSeconds && !consumed.has(p.event.id))
      .filter((p) =>
        p.event.resourceId === null
          ? transition.hostId
            ? p.event.hostId === transition.hostId
            : (p.event.hostId ?? '').startsWith(prefix)
          : Boolean(transition.hostId) && p.event.resourceId === transition.hostId,
      )
      .sort(compareCandidates(expected))[0];
    if (low) return build('low', low, [], inLookback.length, expected.has(low.event.type), opts, transition);
  }

  const why =
    inLookback.length === 0
      ? `No task or event on this resource in the ${opts.lookbackSeconds} s before the change.`
      : `The ${inLookback.length} task(s)/event(s) on this resource in the ${opts.lookbackSeconds} s before the change already explain earlier ${transition.from} → ${transition.to} transitions.`;
  return noneAttribution(opts, inLookback.length, why);
}

function build(
  confidence: 'high' | 'medium' | 'low',
  cause: PlacedEvent,
  pool: readonly PlacedEvent[],
  considered: number,
  expectedType: boolean,
  opts: AttributeOptions,
  transition: Transition,
): Attribution {
  const e = cause.event;
  const chained =
    confidence === 'low' ? null : findRequest(cause, pool, opts.requestChainSeconds, opts.clockSkewSeconds);
  const r = chained?.request.event;
  return {
    confidence,
    actor: r ? r.actor : e.actor,
    actorKind: r ? r.actorKind : e.actorKind,
    requestedBy: r ? r.actor : null,
    executor: r ? e.actor : null,
    executorKind: chained ? chained.chain.executorKind : null,
    events: [toAttributionEvent(e, 'cause'), ...(r ? [toAttributionEvent(r, 'request')] : [])],
    deltaSeconds: cause.deltaSeconds,
    expectedType,
    consideredEvents: considered,
    lookbackSeconds: opts.lookbackSeconds,
    reason:
      reasonFor(confidence, cause, expectedType, transition, opts) +
      (r ? ` Requested by ${r.actor ?? 'an unnamed user'} through ${describeEvent(r)} (${chained!.chain.label}).` : ''),
  };
}

function reasonFor(
  confidence: 'high' | 'medium' | 'low',
  cause: PlacedEvent,
  expectedType: boolean,
  t: Transition,
  opts: AttributeOptions,
): string {
  const what = describeEvent(cause.event);
  const when = whenPhrase(cause.deltaSeconds, cause.event.statusClass === 'running');
  const change = `${t.from} → ${t.to}`;
  if (confidence === 'high')
    return `${what} on this resource is an expected cause of ${change}, ${when}, and did not fail.`;
  if (confidence === 'low') {
    return `No task or event on this resource itself; ${what} is provider-level activity ${when}. It does not establish the cause.`;
  }
  const why = !expectedType
    ? `is not an expected cause of ${change}`
    : !succeeded(cause.event)
      ? `is of an expected type but did not succeed (${cause.event.statusText ?? cause.event.statusClass})`
      : `is of an expected type but further than ${opts.highWindowSeconds} s from the observation`;
  return `${what} on this resource ${why}; it is ${when}. It is related, not an established cause.`;
}

/** The events an attribution used, for `options.consumed` of later transitions on the same resource. */
export function consumedBy(transition: Transition, attribution: Attribution): ConsumedEvent[] {
  return attribution.events.map((e) => ({ eventId: e.id, from: transition.from, to: transition.to }));
}
