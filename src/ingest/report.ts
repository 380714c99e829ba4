import { randomBytes } from 'node:crypto';
import { DateTime } from 'luxon';
import type { StateChange } from '../graph/resources/upsert.js';
import type { ConditionOp } from '../graph/transitions/record.js';
import type { Provider } from '../model/index.js';

/** Counts of one kind of item through the pipeline: transformed rows, rows written, of which new. */
export interface StageCounts {
  transformed: number;
  written: number;
  created: number;
}

/** Something ingest left out on purpose, with the reason (it never aborts the pass). */
export interface SkippedItem {
  what: 'resource' | 'edge' | 'row' | 'call' | 'match';
  id: string | null;
  reason: string;
}

/** A failure while fetching one scope (the cluster, a node, a document). */
export interface ScopeError {
  scope: string;
  path: string | null;
  status: number | null;
  message: string;
}

/** API requests a polled pass sent (every attempt, retries included), by category. */
export interface PassRequests {
  total: number;
  byCategory: Record<string, number>;
  retried: number;
  /** Answers asking to slow down (429, 503). */
  throttled: number;
  /** Time spent backing off after them. */
  backoffMs: number;
}

/**
 * What one ingest pass did. `complete` is true only when every fetch of the scope succeeded: only
 * then may resources not seen be marked missing (`markedMissing`). Nothing is ever deleted.
 */
export interface IngestReport {
  provider: Provider;
  /** `proxmox:<cluster>` or `vcenter:<server>`; the id prefix this pass owns. */
  scope: string;
  updateTag: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  complete: boolean;
  /** Provider objects read: API calls answered (Proxmox) or objects in the document (vCenter). */
  fetched: number;
  resources: StageCounts;
  edges: StageCounts;
  skipped: SkippedItem[];
  errors: ScopeError[];
  /** Stored state → new state, for the correlator to turn into Transitions. First sightings are not changes. */
  stateChanges: StateChange[];
  markedMissing: number;
  edgesMarkedMissing: number;
  /**
   * Conditions the pass found about its provider (adapter_unreachable opened when the API cannot be
   * read, resolved when it answers again): the adapter does not write them, the observation's one
   * write (recordTransitions) does, with the transitions.
   */
  conditionOps: ConditionOp[];
  /** What those condition ops did once written: the conditions newly opened and those resolved. */
  conditions: { opened: string[]; resolved: string[] };
  /** What a polled pass asked of the provider's API (absent for pushed documents). */
  requests?: PassRequests;
}

/** A fresh update tag: `<prefix>-<UTC compact time>-<random>`, unique per pass. */
export function newUpdateTag(prefix: string): string {
  return `${prefix}-${DateTime.utc().toFormat("yyyyLLdd'T'HHmmss'Z'")}-${randomBytes(3).toString('hex')}`;
}

/** A fresh report for a pass that starts now. */
export function createReport(
  provider: Provider,
  scope: string,
  updateTag: string,
  startedAt: string = DateTime.utc().toISO(),
): IngestReport {
  const now = startedAt;
  return {
    provider,
    scope,
    updateTag,
    startedAt: now,
    finishedAt: now,
    durationMs: 0,
    complete: false,
    fetched: 0,
    resources: { transformed: 0, written: 0, created: 0 },
    edges: { transformed: 0, written: 0, created: 0 },
    skipped: [],
    errors: [],
    stateChanges: [],
    markedMissing: 0,
    edgesMarkedMissing: 0,
    conditionOps: [],
    conditions: { opened: [], resolved: [] },
  };
}

/** Stamps the end time and duration; returns the same report. */
export function finishReport(report: IngestReport): IngestReport {
  const end = DateTime.utc();
  report.finishedAt = end.toISO();
  report.durationMs = Math.max(0, end.toMillis() - DateTime.fromISO(report.startedAt).toMillis());
  return report;
}

/** Ingest stages in the order a pass runs them, for progress lines. */
export type IngestStage = 'fetch' | 'transform' | 'load' | 'staleness' | 'done';

/** Receives one progress line per finished stage (the CLI prints them; the poller logs them). */
export type ProgressSink = (line: string, stage: IngestStage, report: IngestReport) => void;

/**
 * One human line of the counts so far, e.g.
 * `proxmox:lab load: fetched=24 resources=26 written=26 new=0 edges=30/30 new=0 skipped=0 errors=0`.
 */
export function formatProgress(stage: IngestStage, r: IngestReport): string {
  const parts = [
    `${r.scope} ${stage}:`,
    `fetched=${r.fetched}`,
    `resources=${r.resources.transformed} written=${r.resources.written} new=${r.resources.created}`,
    `edges=${r.edges.transformed} written=${r.edges.written} new=${r.edges.created}`,
    `skipped=${r.skipped.length}`,
    `errors=${r.errors.length}`,
  ];
  if (stage === 'staleness' || stage === 'done')
    parts.push(`missing=${r.markedMissing}`, `changes=${r.stateChanges.length}`);
  if (stage === 'done' && r.requests) parts.push(`requests=${r.requests.total}`);
  if (stage === 'done')
    parts.push(
      r.complete ? 'complete' : 'INCOMPLETE (nothing marked missing)',
      `${(r.durationMs / 1000).toFixed(1)} s`,
    );
  return parts.join(' ');
}

/** Calls the sink, if any, with the formatted line. */
export function emitProgress(sink: ProgressSink | undefined, stage: IngestStage, report: IngestReport): void {
  sink?.(formatProgress(stage, report), stage, report);
}
