import type { EventRecord } from '../src/model/events.js';
import { isoMillis } from '../src/model/iso-millis.js';

/** Milliseconds since the epoch of an ISO-8601 time, or null when it does not parse (luxon's reading). */
export const toMillis = isoMillis;

/**
 * An event placed against one observation and the interval the change lies in. The event's
 * interval is [start, end]: a running task extends past the observation; a finished task with no
 * reported end counts as the instant it started. The change lies in [changeFrom, observed]: the
 * previous observation saw the old state (without one, changeFrom = observed).
 */
export interface PlacedEvent {
  event: EventRecord;
  startMs: number;
  endMs: number;
  /** Signed seconds from the interval to the observation: >0 ended before, 0 spans it, <0 starts after. */
  deltaSeconds: number;
  /**
   * Seconds between the event's interval and the change's interval after the clock-skew tolerance
   * is granted (never negative): 0 when they overlap. The ladder's windows compare this.
   */
  skewedGapSeconds: number;
  /** Started no later than the observation, give or take the skew: a cause precedes its effect. */
  startsInTime: boolean;
}

/**
 * Places an event relative to `observedMs` and the change interval starting at `changeFromMs`
 * (default: the observation itself, the interval of a single instant); null when its times do
 * not parse.
 */
export function placeEvent(
  event: EventRecord,
  observedMs: number,
  clockSkewSeconds: number,
  changeFromMs: number = observedMs,
): PlacedEvent | null {
  const startMs = toMillis(event.startedAt);
  if (startMs === null) return null;
  const ended = toMillis(event.endedAt);
  const endMs = event.statusClass === 'running' ? Number.POSITIVE_INFINITY : (ended ?? startMs);
  if (endMs < startMs) return null;
  const skewMs = clockSkewSeconds * 1000;
  let deltaMs = 0;
  if (endMs < observedMs) deltaMs = observedMs - endMs;
  else if (startMs > observedMs) deltaMs = -(startMs - observedMs);
  const from = Math.min(changeFromMs, observedMs);
  const gapMs = endMs < from ? from - endMs : startMs > observedMs ? startMs - observedMs : 0;
  return {
    event,
    startMs,
    endMs,
    deltaSeconds: deltaMs / 1000,
    skewedGapSeconds: Math.max(0, gapMs - skewMs) / 1000,
    startsInTime: startMs - skewMs <= observedMs,
  };
}

/**
 * Orders candidates: the best rank first (when ranks are given: an event whose outcome is the
 * change, then one the change is seen half-way through, then the rest), then the nearest in time,
 * then the one that started last (the most recent action), then by id so the answer is deterministic.
 */
export function compareCandidates(ranks: ReadonlyMap<string, number> | null) {
  const rankOf = (p: PlacedEvent) => ranks?.get(p.event.type) ?? Number.MAX_SAFE_INTEGER;
  return (a: PlacedEvent, b: PlacedEvent): number => {
    if (ranks) {
      const ra = rankOf(a);
      const rb = rankOf(b);
      if (ra !== rb) return ra - rb;
    }
    const da = Math.abs(a.deltaSeconds);
    const db = Math.abs(b.deltaSeconds);
    if (da !== db) return da - db;
    if (a.startMs !== b.startMs) return b.startMs - a.startMs;
    return a.event.id < b.event.id ? -1 : a.event.id > b.event.id ? 1 : 0;
  };
}
