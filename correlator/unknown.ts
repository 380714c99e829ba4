import {
  type AttributionConfidence,
  type LogGap,
  type LogInterval,
  type StreamCoverage,
  type Transition,
  uncoveredParts,
  type UnknownBecause,
  unknownBecauseOf,
} from '../src/model/index.js';
import { toMillis } from './timing.js';
import { expectedEventTypes } from './transition-table.js';
import { DEFAULT_ATTRIBUTE_OPTIONS, type TransitionTable } from './types.js';

/**
 * Why an attribution does not know (docs/confidence.md "Why it does not know"), decided from the
 * change's window and what the graph records of the provider's log: pure, table-tested.
 */

/** The log streams that could hold a cause of the change, as the graph holds them. */
export interface CoverageFacts {
  /** The streams that matter: the task list of the node the resource ran on, else every stream of its source. */
  streams: readonly StreamCoverage[];
}

export interface UnknownSettings {
  lookbackSeconds: number;
  /** Clock tolerance: uncovered slivers shorter than this, and clock offsets within it, are ignored. */
  clockSkewSeconds: number;
  maxChangeIntervalSeconds: number;
  table: TransitionTable;
}

const iso = (ms: number) => new Date(Math.round(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/**
 * The window a cause must have started in for the ladder to find it: from the look-back before the
 * change's interval (the previous observation, at most `maxChangeIntervalSeconds` back) to the
 * observation. Null when the observation is not a time.
 */
export function causeWindow(
  t: Pick<Transition, 'observedAt' | 'previousObservedAt'>,
  s: Pick<UnknownSettings, 'lookbackSeconds' | 'maxChangeIntervalSeconds'>,
): { fromMs: number; toMs: number } | null {
  const observed = toMillis(t.observedAt);
  if (observed === null) return null;
  const previous = toMillis(t.previousObservedAt);
  const changeFrom =
    previous !== null && previous < observed
      ? Math.max(previous, observed - s.maxChangeIntervalSeconds * 1000)
      : observed;
  return { fromMs: changeFrom - s.lookbackSeconds * 1000, toMs: observed };
}

/** A change whose cause is logged on the node it came from (a migration): every node's log matters. */
export function movesNode(t: Pick<Transition, 'from' | 'to'>): boolean {
  return t.from === 'migrating' || t.to === 'migrating';
}

/** The newest failed read overlapping [fromMs, toMs], if any. */
function gapOver(gaps: readonly LogGap[], fromMs: number, toMs: number): LogGap | null {
  const over = gaps.filter((g) => (toMillis(g.from) ?? Infinity) <= toMs && (toMillis(g.to) ?? -Infinity) >= fromMs);
  return over.sort((a, b) => (toMillis(b.at) ?? 0) - (toMillis(a.at) ?? 0))[0] ?? null;
}

/**
 * The whole uncovered stretch a part of the window lies in, not clipped to the window: from the end
 * of the complete read before it to the start of the one after it (null: there is none — before
 * the first read, or after the newest: not read yet).
 */
export function holeAround(
  part: { fromMs: number; toMs: number },
  intervals: readonly LogInterval[],
): { fromMs: number | null; toMs: number | null } {
  let before: number | null = null;
  let after: number | null = null;
  for (const i of intervals) {
    const f = toMillis(i.from);
    const t = toMillis(i.to);
    if (f === null || t === null) continue;
    if (t <= part.fromMs && (before === null || t > before)) before = t;
    if (f >= part.toMs && (after === null || f < after)) after = f;
  }
  return { fromMs: before, toMs: after };
}

/** A hole between two complete reads no longer than the clock tolerance. */
function isJitter(hole: { fromMs: number | null; toMs: number | null }, toleranceSeconds: number): boolean {
  return hole.fromMs !== null && hole.toMs !== null && hole.toMs - hole.fromMs <= toleranceSeconds * 1000;
}

/**
 * Decides `unknownBecause` for a `none` or `medium` attribution (null for high and low):
 * 1. `no_log_for_kind` — the transition table expects no event for this change (the provider logs nothing for it);
 * 2. `log_not_read` — no log stream is known for the resource's source at all;
 * 3. `clock_uncertain` — a stream's clock was seen off by more than the tolerance;
 * 4. per stream, the parts of the window no complete read covers: a part a failed read overlaps is
 *    `log_not_read` with that read's reason; a part wholly before the oldest log time ever read is
 *    `beyond_retention`; any other is `log_not_read` (`not_read`: not read yet). Only a hole between
 *    two complete reads no longer than the tolerance (clock jitter), with no failed read over it, is
 *    ignored: a sliver after the newest complete read is not read yet, never nothing.
 *    `log_not_read` wins over `beyond_retention` (it may still be read);
 * 5. otherwise `no_record`: the whole window was read completely and holds nothing that explains it.
 */
export function decideUnknown(
  transition: Pick<Transition, 'kind' | 'from' | 'to' | 'observedAt' | 'previousObservedAt'>,
  confidence: AttributionConfidence,
  coverage: CoverageFacts | null,
  settings: Partial<UnknownSettings> & { table: TransitionTable },
): UnknownBecause | null {
  if (confidence !== 'none' && confidence !== 'medium') return null;
  const s: UnknownSettings = {
    lookbackSeconds: DEFAULT_ATTRIBUTE_OPTIONS.lookbackSeconds,
    clockSkewSeconds: DEFAULT_ATTRIBUTE_OPTIONS.clockSkewSeconds,
    maxChangeIntervalSeconds: DEFAULT_ATTRIBUTE_OPTIONS.maxChangeIntervalSeconds,
    ...settings,
  };
  const window = causeWindow(transition, s);
  if (!window)
    return unknownBecauseOf('log_not_read', { gapReason: 'not_read', detail: 'the observation time is not a time' });
  const span = { from: iso(window.fromMs), to: iso(window.toMs) };
  if (expectedEventTypes(s.table, transition.kind, transition.from, transition.to).size === 0)
    return unknownBecauseOf('no_log_for_kind', {
      detail: `no task or event type is known to cause ${transition.kind} ${transition.from} → ${transition.to}`,
    });
  const streams = coverage?.streams ?? [];
  if (streams.length === 0)
    return unknownBecauseOf('log_not_read', {
      ...span,
      gapReason: 'not_read',
      detail: "no read of this source's task or event log is recorded",
    });
  const skewed = streams.find(
    (x) => x.clockOffsetSeconds !== null && Math.abs(x.clockOffsetSeconds) > s.clockSkewSeconds,
  );
  if (skewed)
    return unknownBecauseOf('clock_uncertain', {
      node: skewed.node,
      clockOffsetSeconds: skewed.clockOffsetSeconds,
      toleranceSeconds: s.clockSkewSeconds,
    });
  let beyond: UnknownBecause | null = null;
  for (const stream of streams) {
    const horizon = toMillis(stream.horizon);
    for (const p of uncoveredParts(window.fromMs, window.toMs, stream.intervals)) {
      const gap = gapOver(stream.gaps, p.fromMs, p.toMs);
      // Jitter between two complete reads is no gap; a failed read over it, or no read after it yet, is.
      if (!gap && isJitter(holeAround(p, stream.intervals), s.clockSkewSeconds)) continue;
      const at = { from: iso(p.fromMs), to: iso(p.toMs), node: stream.node };
      if (gap) return unknownBecauseOf('log_not_read', { ...at, gapReason: gap.reason, detail: gap.detail });
      if (horizon === null || p.toMs > horizon + s.clockSkewSeconds * 1000)
        return unknownBecauseOf('log_not_read', {
          ...at,
          gapReason: 'not_read',
          detail: horizon === null ? 'this log has never been read completely' : 'not read yet',
        });
      beyond ??= unknownBecauseOf('beyond_retention', { ...at, horizon: stream.horizon });
    }
  }
  // One stream read (the node it ran on): name it; several (host unknown): the source's whole log.
  return beyond ?? unknownBecauseOf('no_record', { ...span, node: streams.length === 1 ? streams[0]!.node : null });
}
