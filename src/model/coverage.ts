import { isoMillis, utcIso } from './iso-millis.js';

/**
 * Coverage of a provider's log: which stretches of a log stream (one Proxmox node's task list, one
 * vCenter's event log) aitia read completely, which reads failed and why. "Cause unknown" is only
 * evidence when the log for the change's window was read completely; these facts tell the two
 * apart (see correlator/unknown.ts and docs/confidence.md "Why it does not know").
 */

/** Why part of a log was not read: the source did not answer, its read failed, or a page was cut short. */
export const LOG_GAP_REASONS = ['source_unreachable', 'task_stage_failed', 'page_truncated', 'not_read'] as const;
export type LogGapReason = (typeof LOG_GAP_REASONS)[number];

/** Why a `none` (or `medium`) attribution does not establish a cause. */
export const UNKNOWN_REASONS = [
  'no_record',
  'log_not_read',
  'beyond_retention',
  'clock_uncertain',
  'no_log_for_kind',
] as const;
export type UnknownReason = (typeof UNKNOWN_REASONS)[number];

/** A closed interval of log time (task/event start times), ISO-8601 UTC. */
export interface LogInterval {
  from: string;
  to: string;
}

/** A read that did not complete: the window it would have covered, and why it did not. */
export interface LogGap extends LogInterval {
  reason: Exclude<LogGapReason, 'not_read'>;
  /** The error, in the provider's words or ours (`/nodes/pve2/tasks: connect ECONNREFUSED`). */
  detail: string;
  /** When the read was tried. */
  at: string;
}

/** What the graph knows of one log stream: what was read completely, what failed, the clock. */
export interface StreamCoverage {
  /** `proxmox:lab/node/pve2#tasks`, `vcenter:vc01#events` (the stream's ingest cursor id). */
  streamId: string;
  /** `proxmox:lab`, `vcenter:vc01`. */
  source: string;
  /** The Proxmox node whose task list this is; null for a vCenter's event log. */
  node: string | null;
  /** Read completely, merged, oldest first (only those near the window asked, when read for one). */
  intervals: LogInterval[];
  /** Failed reads, newest first (bounded). */
  gaps: LogGap[];
  /** The oldest log time ever read completely: before it, the log is beyond what aitia read. */
  horizon: string | null;
  /** Seconds the stream's clock was seen ahead of aitia's at its last read (a task starting in the future); null: no evidence. */
  clockOffsetSeconds: number | null;
}

/** Why an attribution does not know. Flat, so the graph, GraphQL and MCP carry it alike. */
export interface UnknownBecause {
  reason: UnknownReason;
  /** no_record: the window read completely; log_not_read: the part that was not. ISO-8601 UTC. */
  from: string | null;
  to: string | null;
  /** log_not_read: why that part was not read. */
  gapReason: LogGapReason | null;
  /** The node whose log (or clock) it is; null for a vCenter or when not known. */
  node: string | null;
  /** The failed read's error, or what else explains the reason. */
  detail: string | null;
  /** beyond_retention: the oldest log time aitia read. */
  horizon: string | null;
  /** clock_uncertain: how far the node's clock was off, and the tolerance. */
  clockOffsetSeconds: number | null;
  toleranceSeconds: number | null;
}

/** An UnknownBecause with every optional fact null. */
export function unknownBecauseOf(
  reason: UnknownReason,
  facts: Partial<Omit<UnknownBecause, 'reason'>> = {},
): UnknownBecause {
  return {
    reason,
    from: null,
    to: null,
    gapReason: null,
    node: null,
    detail: null,
    horizon: null,
    clockOffsetSeconds: null,
    toleranceSeconds: null,
    ...facts,
  };
}

// Epoch ms as luxon reads them (NaN: unparseable), and back: src/model/iso-millis.ts, luxon's answers, faster.
const ms = (iso: string) => isoMillis(iso) ?? Number.NaN;
const iso = (m: number) => utcIso(m, { suppressMilliseconds: true });

/** {@link mergeIntervals} in epoch ms: what uncoveredParts walks, without writing and re-reading the texts. */
function mergeMillis(intervals: readonly LogInterval[], slackSeconds: number): Array<{ f: number; t: number }> {
  const parsed = intervals
    .map((i) => ({ f: ms(i.from), t: ms(i.to) }))
    .filter((i) => Number.isFinite(i.f) && Number.isFinite(i.t) && i.t >= i.f)
    .sort((a, b) => a.f - b.f);
  const out: Array<{ f: number; t: number }> = [];
  for (const i of parsed) {
    const last = out[out.length - 1];
    if (last && i.f <= last.t + slackSeconds * 1000) last.t = Math.max(last.t, i.t);
    else out.push({ ...i });
  }
  return out;
}

/**
 * Merges intervals that overlap or touch (within `slackSeconds`): sorted, disjoint, oldest first.
 * Unparseable or reversed intervals are dropped. Pure; the graph's write does the same in Cypher.
 */
export function mergeIntervals(intervals: readonly LogInterval[], slackSeconds = 1): LogInterval[] {
  return mergeMillis(intervals, slackSeconds).map((i) => ({ from: iso(i.f), to: iso(i.t) }));
}

/**
 * The parts of [from, to] (epoch ms) that no interval covers, oldest first. Pure.
 */
export function uncoveredParts(
  fromMs: number,
  toMs: number,
  intervals: readonly LogInterval[],
): Array<{ fromMs: number; toMs: number }> {
  const out: Array<{ fromMs: number; toMs: number }> = [];
  let cursor = fromMs;
  for (const { f, t } of mergeMillis(intervals, 1)) {
    if (t < cursor) continue;
    if (f > toMs) break;
    if (f > cursor) out.push({ fromMs: cursor, toMs: Math.min(f, toMs) });
    cursor = Math.max(cursor, t);
    if (cursor >= toMs) break;
  }
  if (cursor < toMs) out.push({ fromMs: cursor, toMs });
  return out;
}

/** Seconds of [from, to] (epoch ms) the intervals cover. Pure. */
export function coveredSeconds(fromMs: number, toMs: number, intervals: readonly LogInterval[]): number {
  if (toMs <= fromMs) return 0;
  const gaps = uncoveredParts(fromMs, toMs, intervals).reduce((s, p) => s + (p.toMs - p.fromMs), 0);
  return (toMs - fromMs - gaps) / 1000;
}
