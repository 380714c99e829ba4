import { DateTime } from 'luxon';
import type { EventRecord } from '../src/model/events.js';

/** Milliseconds since the epoch of an ISO-8601 time, or null when it does not parse. */
export function toMillis(iso: string | null | undefined): number | null {
  if (!iso) return null;
  const dt = DateTime.fromISO(iso, { setZone: true });
  return dt.isValid ? dt.toMillis() : null;
}

/**
 * An event placed against one observation. The interval is [start, end]: a running task extends
 * past the observation; a finished task with no reported end counts as the instant it started.
 */
export interface PlacedEvent {
  event: EventRecord;
  startMs: number;
  endMs: number;
  /** Signed seconds from the interval to the observation: >0 ended before, 0 spans it, <0 starts after. */
  deltaSeconds: number;
  /** Distance in seconds after the clock-skew tolerance is granted (never negative). */
  skewedGapSeconds: number;
  /** Started no later than the observation, give or take the skew: a cause precedes its effect. */
  startsInTime: boolean;
}

/** Places an event relative to `observedMs`; null when its times do not parse. */
export function placeEvent(event: EventRecord, observedMs: number, clockSkewSeconds: number): PlacedEvent | null {
  const startMs = toMillis(event.startedAt);
  if (startMs === null) return null;
  const ended = toMillis(event.endedAt);
  const endMs = event.statusClass === 'running' ? Number.POSITIVE_INFINITY : (ended ?? startMs);
  if (endMs < startMs) return null;
  const skewMs = clockSkewSeconds * 1000;
  let deltaMs = 0;
  if (endMs < observedMs) deltaMs = observedMs - endMs;
  else if (startMs > observedMs) deltaMs = -(startMs - observedMs);
  return {
    event,
    startMs,
    endMs,
    deltaSeconds: deltaMs / 1000,
    skewedGapSeconds: Math.max(0, Math.abs(deltaMs) - skewMs) / 1000,
    startsInTime: startMs - skewMs <= observedMs,
  };
}

/**
 * Orders candidates: the expected type first (when asked), then the nearest in time, then the one
 * that started last (the most recent action), then by id so the answer is deterministic.
 */
export function compareCandidates(expected: ReadonlySet<string> | null) {
  return (a: PlacedEvent, b: PlacedEvent): number => {
    if (expected) {
      const ea = expected.has(a.event.type) ? 0 : 1;
      const eb = expected.has(b.event.type) ? 0 : 1;
      if (ea !== eb) return ea - eb;
    }
    const da = Math.abs(a.deltaSeconds);
    const db = Math.abs(b.deltaSeconds);
    if (da !== db) return da - db;
    if (a.startMs !== b.startMs) return b.startMs - a.startMs;
    return a.event.id < b.event.id ? -1 : a.event.id > b.event.id ? 1 : 0;
  };
}
