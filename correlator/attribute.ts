import {
  type Attribution,
  type ConsumedEvent,
  type EventRecord,
  noneAttribution,
  type Transition,
} from '../src/model/index.js';
import { systemActorFor } from './actors.js';
import { describeEvent, toAttributionEvent, whenPhrase } from './describe.js';
import { followRequests } from './request-chains.js';
import { utcIso } from '../src/model/iso-millis.js';
import { compareCandidates, type PlacedEvent, placeEvent, toMillis } from './timing.js';
import { causeRanks, OUTCOME_RANK } from './transition-table.js';
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
 * Where the change is known to lie: from the previous observation (capped at
 * `maxChangeIntervalSeconds` before this one) to this one. Without a usable previous observation
 * (absent, unparseable, or not before this one), the interval is the observation itself.
 */
function changeInterval(
  t: Transition,
  observedMs: number,
  opts: AttributeOptions,
): { fromMs: number; since: string | null; capped: boolean } {
  const previousMs = toMillis(t.previousObservedAt);
  if (previousMs === null || previousMs >= observedMs) return { fromMs: observedMs, since: null, capped: false };
  const fromMs = Math.max(previousMs, observedMs - opts.maxChangeIntervalSeconds * 1000);
  const since = utcIso(previousMs, { suppressMilliseconds: true });
  return { fromMs, since, capped: fromMs > previousMs };
}

/**
 * Explains one transition from candidate events, on the ladder of DESIGN.md "Attribution". Times
 * are measured against the change's interval: from the previous observation (when the transition
 * carries one) to this one; without one, against the observation alone.
 * - high = an event on exactly this resource (or, with `hostCauses`, a host-level event on the host
 *   it ran on), of a type the table expects, that did not fail, whose interval comes within
 *   `highWindowSeconds` (+ skew) of the change's interval, and that no later event undid;
 * - medium = any other event on this resource in the look-back;
 * - low (only with `emitLow`) = activity without this resource's id: resource-less events on the
 *   same node (`transition.hostId`) or, without a host, the same cluster/server, and events on
 *   that host itself;
 * - none otherwise.
 * Ranking: an event whose outcome is the change beats one the change is seen half-way through,
 * which beats an unexpected one; then the nearest in time. Consumed events (already explaining a
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
  const change = changeInterval(transition, observedMs, opts);
  const ranks = causeRanks(table, transition.kind, transition.from, transition.to);
  // What undoes the change: an event whose outcome is the way back (a start after the stop).
  const back = causeRanks(table, transition.kind, transition.to, transition.from);
  const consumed = new Set(
    opts.consumed.filter((c) => c.from === transition.from && c.to === transition.to).map((c) => c.eventId),
  );
  const place = (e: EventRecord) => placeEvent(e, observedMs, opts.clockSkewSeconds, change.fromMs);
  const placed = candidates.map(place).filter((p): p is PlacedEvent => p !== null && p.startsInTime);

  // Ids are cluster/server-scoped, so exact equality is what keeps vmid 101 of another cluster out.
  const onResource = placed.filter((p) => p.event.resourceId === transition.resourceId);
  const inLookback = onResource.filter((p) => p.skewedGapSeconds <= opts.lookbackSeconds);
  // The host's own failure explains its guests (vCenter): host-level types the table expects, on the host it ran on.
  const hostCauses =
    opts.hostCauses && transition.hostId
      ? placed.filter(
          (p) =>
            p.event.resourceId === transition.hostId &&
            p.event.type.startsWith('host_') &&
            ranks.has(p.event.type) &&
            p.skewedGapSeconds <= opts.lookbackSeconds,
        )
      : [];
  // Undone: a later event took the resource back, finished well before the observation (the
  // provider's state may lag a few seconds, so only an undo older than the high window counts).
  const undoneBy = (c: PlacedEvent): PlacedEvent | undefined =>
    onResource.find(
      (s) =>
        s !== c &&
        back.get(s.event.type) === OUTCOME_RANK &&
        (s.event.statusClass === 'ok' || s.event.statusClass === 'warning') &&
        s.startMs >= c.endMs &&
        s.endMs <= observedMs - opts.highWindowSeconds * 1000,
    );
  const undone = [...inLookback, ...hostCauses]
    .filter((p) => ranks.has(p.event.type) && !consumed.has(p.event.id))
    .map((p) => ({ p, by: undoneBy(p) }))
    .filter((u): u is { p: PlacedEvent; by: PlacedEvent } => u.by !== undefined);
  const undoneIds = new Set(undone.map((u) => u.p.event.id));
  const open = [...inLookback, ...hostCauses].filter((p) => !consumed.has(p.event.id) && !undoneIds.has(p.event.id));
  const pool = onResource.filter((p) => !consumed.has(p.event.id));
  const note =
    undone
      .map(
        (u) =>
          ` ${describeEvent(u.p.event)} would be expected, but ${describeEvent(u.by.event)} undid it before the observation.`,
      )
      .join('') +
    (change.capped
      ? ` The previous observation (${change.since}) is more than ${opts.maxChangeIntervalSeconds} s back; only the last ${opts.maxChangeIntervalSeconds} s of that interval were searched.`
      : '');
  const ctx: BuildContext = {
    pool,
    placed,
    considered: inLookback.length,
    opts,
    transition,
    since: change.since,
    note,
  };

  const high = open
    .filter((p) => ranks.has(p.event.type) && succeeded(p.event) && p.skewedGapSeconds <= opts.highWindowSeconds)
    .sort(compareCandidates(ranks))[0];
  if (high) return build('high', high, true, ctx);

  const medium = [...open].sort(compareCandidates(ranks))[0];
  if (medium) return build('medium', medium, ranks.has(medium.event.type), ctx);

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
      .sort(compareCandidates(ranks))[0];
    if (low) return build('low', low, ranks.has(low.event.type), { ...ctx, pool: [] });
  }

  const used = undone.length > 0 ? 'were undone or already explain' : 'already explain';
  const why =
    (inLookback.length === 0
      ? `No task or event on this resource in the ${opts.lookbackSeconds} s before the change.`
      : `The ${inLookback.length} task(s)/event(s) on this resource in the ${opts.lookbackSeconds} s before the change ${used} earlier ${transition.from} → ${transition.to} transitions.`) +
    note;
  return noneAttribution(opts, inLookback.length, why, change.since);
}

interface BuildContext {
  /** Events on this resource a request chain may use. */
  pool: readonly PlacedEvent[];
  /** Every placed candidate (node-wide tasks included), for the system-actor rules. */
  placed: readonly PlacedEvent[];
  considered: number;
  opts: AttributeOptions;
  transition: Transition;
  since: string | null;
  /** Expected events that were undone, said in the reason. */
  note: string;
}

function build(
  confidence: 'high' | 'medium' | 'low',
  cause: PlacedEvent,
  expectedType: boolean,
  ctx: BuildContext,
): Attribution {
  const { opts, transition } = ctx;
  const e = cause.event;
  const trail =
    confidence === 'low' ? null : followRequests(cause, ctx.pool, opts.requestChainSeconds, opts.clockSkewSeconds);
  const requests = trail?.requests ?? [];
  const credited = requests[requests.length - 1] ?? cause;
  const r = requests.length > 0 ? credited.event : null;
  const system =
    confidence === 'low'
      ? null
      : systemActorFor(credited, ctx.placed, { haManaged: opts.haManaged, clockSkewSeconds: opts.clockSkewSeconds });
  const onHost = e.resourceId !== transition.resourceId;
  return {
    confidence,
    actor: credited.event.actor,
    actorKind: system?.actorKind ?? credited.event.actorKind,
    // A request chain that ends at the system (the HA manager migrating on its own) has no user behind it.
    requestedBy: r && !system ? r.actor : null,
    executor: r ? e.actor : null,
    executorKind: trail ? trail.chain.executorKind : null,
    systemContext: system?.context ?? null,
    events: [toAttributionEvent(e, 'cause'), ...requests.map((q) => toAttributionEvent(q.event, 'request'))],
    deltaSeconds: cause.deltaSeconds,
    expectedType,
    consideredEvents: ctx.considered,
    lookbackSeconds: opts.lookbackSeconds,
    previousObservedAt: ctx.since,
    reason:
      reasonFor(confidence, cause, expectedType, onHost && confidence !== 'low', ctx) +
      (r
        ? ` Requested by ${r.actor ?? 'an unnamed user'} through ${describeEvent(r)} (${trail!.chain.label})${
            requests.length > 1
              ? `, carried out through ${requests
                  .slice(0, -1)
                  .reverse()
                  .map((q) => describeEvent(q.event))
                  .join(', then ')}`
              : ''
          }.`
        : '') +
      (system ? ` Run by the system (${system.context.label}), not a person.` : '') +
      ctx.note,
  };
}

function reasonFor(
  confidence: 'high' | 'medium' | 'low',
  cause: PlacedEvent,
  expectedType: boolean,
  onHost: boolean,
  ctx: BuildContext,
): string {
  const { transition: t, opts } = ctx;
  const what = describeEvent(cause.event);
  const when = whenPhrase(cause.deltaSeconds, cause.event.statusClass === 'running');
  const change = `${t.from} → ${t.to}`;
  const where = onHost ? `on the host this resource ran on (${cause.event.node ?? t.hostId})` : 'on this resource';
  const inInterval =
    ctx.since && cause.skewedGapSeconds === 0 && cause.deltaSeconds > 0
      ? ` (after the previous observation, ${ctx.since}: within the interval the change happened in)`
      : '';
  if (confidence === 'high')
    return `${what} ${where} is an expected cause of ${change}, ${when}${inInterval}, and did not fail.`;
  if (confidence === 'low') {
    return `No task or event on this resource itself; ${what} is provider-level activity ${when}. It does not establish the cause.`;
  }
  const why = !expectedType
    ? `is not an expected cause of ${change}`
    : !succeeded(cause.event)
      ? `is of an expected type but did not succeed (${cause.event.statusText ?? cause.event.statusClass})`
      : `is of an expected type but further than ${opts.highWindowSeconds} s from the ${ctx.since ? 'change interval' : 'observation'}`;
  return `${what} ${where} ${why}; it is ${when}. It is related, not an established cause.`;
}

/** The events an attribution used, for `options.consumed` of later transitions on the same resource. */
export function consumedBy(transition: Transition, attribution: Attribution): ConsumedEvent[] {
  return attribution.events.map((e) => ({ eventId: e.id, from: transition.from, to: transition.to }));
}
