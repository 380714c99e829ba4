import { DateTime } from 'luxon';
import type { Driver } from 'neo4j-driver';
import { lastReadAndKnownEvents, type LogRead } from '../../graph/coverage.js';
import { runningEventsOnHost } from '../../graph/events.js';
import { getIngestCursor } from '../../graph/cursors.js';
import type { LogGap } from '../../model/coverage.js';
import type { EventRecord } from '../../model/events.js';
import type { IngestReport } from '../report.js';
import type { ProxmoxClient } from './client.js';
import { ProxmoxApiError } from './client-error.js';
import { recheckRunningTasks } from './tasks-recheck.js';
import { getNodeTaskPage } from './tasks-get.js';
import { transformProxmoxTask } from './tasks-transform.js';
import {
  advanceTaskCursor,
  clockBehindSeconds,
  clockOffsetOf,
  guestKindsFromListing,
  taskListSince,
  truncatedCoverFrom,
  type TaskWindowOptions,
} from './tasks-window.js';

/**
 * One node's task list read for one pass (or a pass's top-up): every page the envelope's `total`
 * says there is, the entries checked against their UPIDs, and what the read proves of the node's
 * log — read completely, cut short (the newest part proven), or failed with why — and of its clock.
 */

/** One node's read in a pass. */
export interface NodeTaskRead {
  node: string;
  since: number;
  listed: number;
  /** The whole window was read (every page): only then does the cursor advance. */
  complete: boolean;
  cursor: number | null;
  /** Stored running tasks re-read because the window no longer lists them. */
  rechecked: number;
  /** When the list was asked for (epoch seconds): a complete read covers task starts in [since, readAt]. */
  readAt: number;
  /**
   * The same to the millisecond: what the coverage records as its end. A read sent later in the
   * second a change was seen in (a top-up just after the inventory) covers it, one sent earlier in
   * that second does not. Absent: the whole second `readAt`.
   */
  readAtMs?: number;
  /** A read cut short still proves [coveredFrom, readAt] (see truncatedCoverFrom); null: nothing. */
  coveredFrom?: number | null;
  /** Why the read is not complete (recorded as a gap in the node's log coverage); null when complete. */
  gap: { reason: LogGap['reason']; detail: string } | null;
  /** Seconds the node's clock was seen ahead (a listed task starting after readAt); null: no evidence. */
  clockAheadSeconds: number | null;
  /** Seconds seen behind (a new task inside the previous complete read); 0: no evidence. */
  clockBehindSeconds?: number;
}

export interface NodeReadOptions extends Partial<TaskWindowOptions> {
  pageSize?: number;
  maxPages?: number;
  now?: () => DateTime;
  /** Read from here (epoch seconds) instead of the cursor's window, and re-check no running task: a top-up. */
  since?: number;
}

/** The cursor stream id of one node's task list. */
export function taskCursorId(cluster: string, node: string): string {
  return `proxmox:${cluster}/node/${node}#tasks`;
}

export const errorMessage = (err: unknown) => (err instanceof Error ? err.message : String(err));
export const isoOfSeconds = (seconds: number) =>
  DateTime.fromSeconds(seconds, { zone: 'utc' }).toISO({ suppressMilliseconds: true })!;

/** A node that did not answer (no connection, timeout, the proxy's 595/596, a gateway error) is unreachable; anything else is the read failing. */
export function gapReasonOf(err: unknown): LogGap['reason'] {
  if (!(err instanceof ProxmoxApiError)) return 'task_stage_failed';
  if (err.kind === 'network' || err.kind === 'timeout') return 'source_unreachable';
  return err.status !== null && [502, 503, 504, 595, 596].includes(err.status)
    ? 'source_unreachable'
    : 'task_stage_failed';
}

/** Pages one node's list from `since`: by offset, until `total` (or, without one, a short page) says it ended. */
async function readPages(
  client: ProxmoxClient,
  node: string,
  since: number,
  o: { pageSize: number; maxPages: number },
  report: IngestReport,
): Promise<{ entries: unknown[]; complete: boolean }> {
  const entries: unknown[] = [];
  for (let page = 0; page < o.maxPages; page++) {
    const { data, total } = await getNodeTaskPage(client, node, { since, limit: o.pageSize, start: entries.length });
    report.fetched++;
    if (!Array.isArray(data)) throw new Error(`/nodes/${node}/tasks: expected a list of tasks`);
    entries.push(...data);
    if (total !== null ? entries.length >= total : data.length < o.pageSize) return { entries, complete: true };
    // Fewer than `total` and nothing more: the list is not all there.
    if (data.length === 0) return { entries, complete: false };
  }
  return { entries, complete: false };
}

/**
 * Reads one node's list from its cursor's window (or `options.since`), checks each entry against
 * its UPID, re-reads stored running tasks the window no longer lists (not in a top-up), and says
 * what the read proves of the log and of the node's clock. Failures become the read's gap.
 */
export async function readNode(
  driver: Driver,
  client: ProxmoxClient,
  cluster: string,
  node: string,
  known: Map<string, 'qemu' | 'lxc'>,
  options: NodeReadOptions,
  report: IngestReport,
  out: EventRecord[],
): Promise<NodeTaskRead> {
  const scope = `${report.scope}/node/${node}`;
  const streamId = taskCursorId(cluster, node);
  const cursor = await getIngestCursor(driver, streamId);
  const asked = options.now?.() ?? DateTime.utc();
  const nowSeconds = Math.floor(asked.toSeconds());
  const since = options.since ?? taskListSince(cursor?.position ?? null, nowSeconds, options);
  const o = { pageSize: options.pageSize ?? 500, maxPages: options.maxPages ?? 20 };
  const path = `/nodes/${node}/tasks`;
  let entries: unknown[] = [];
  let complete = false;
  let answered = false;
  let gap: NodeTaskRead['gap'] = null;
  try {
    ({ entries, complete } = await readPages(client, node, since, o, report));
    answered = true;
    if (!complete) {
      const text = `more than ${entries.length} tasks since ${since} (asked ${o.maxPages} pages of ${o.pageSize}): the rest is read next pass (cursor kept)`;
      report.errors.push({ scope, path, status: null, message: text });
      gap = { reason: 'page_truncated', detail: text };
    }
  } catch (err) {
    const status = err instanceof ProxmoxApiError ? err.status : null;
    report.errors.push({ scope, path, status, message: errorMessage(err) });
    gap = { reason: gapReasonOf(err), detail: `${path}: ${errorMessage(err)}` };
  }
  const siblings = guestKindsFromListing(entries);
  const guestKindOf = (vmid: string) => known.get(vmid) ?? siblings.get(vmid) ?? null;
  const starts = new Map<string, number>();
  for (const entry of entries) {
    const r = transformProxmoxTask(entry, { cluster, guestKindOf });
    if (!r.ok) {
      const upid = (entry as { upid?: unknown } | null)?.upid;
      report.skipped.push({ what: 'row', id: typeof upid === 'string' ? upid : null, reason: r.reason });
      continue;
    }
    if (r.event.node !== node) {
      const reason = `listed by node ${node} but its UPID names node ${r.event.node}`;
      report.skipped.push({ what: 'row', id: r.event.id, reason });
      continue;
    }
    // A task listed on two pages (the list moved between them) is one task.
    if (starts.has(r.event.id)) continue;
    out.push(r.event);
    starts.set(r.event.id, DateTime.fromISO(r.event.startedAt).toSeconds());
  }
  // Re-read stored running tasks the window did not list, only when the node answered its list.
  const stale =
    answered && options.since === undefined
      ? (await runningEventsOnHost(driver, `proxmox:${cluster}/node/${node}`)).filter((e) => !starts.has(e.id))
      : [];
  const rechecked = await recheckRunningTasks(client, cluster, node, stale, guestKindOf, report, out);
  const startList = [...starts.values()];
  const ahead = complete && startList.length > 0 ? Math.max(0, Math.max(...startList) - nowSeconds) : 0;
  const behind = complete && starts.size > 0 ? await behindOf(driver, streamId, starts) : 0;
  return {
    node,
    since,
    listed: entries.length,
    complete,
    cursor: complete ? advanceTaskCursor(cursor?.position ?? null, since, startList) : null,
    rechecked,
    readAt: nowSeconds,
    readAtMs: asked.toMillis(),
    coveredFrom: answered && !complete ? truncatedCoverFrom(entries, since, nowSeconds) : null,
    gap,
    clockAheadSeconds: complete ? clockOffsetOf(ahead, behind) : null,
    clockBehindSeconds: behind,
  };
}

/** How far behind the node's clock is at least, from tasks new to the graph inside its previous complete read. */
async function behindOf(driver: Driver, streamId: string, starts: ReadonlyMap<string, number>): Promise<number> {
  const { last, known } = await lastReadAndKnownEvents(driver, streamId, [...starts.keys()]);
  const seconds = (iso: string) => Math.floor(DateTime.fromISO(iso).toSeconds());
  const fresh = [...starts].filter(([id]) => !known.has(id)).map(([, s]) => s);
  return clockBehindSeconds(last ? { from: seconds(last.from), to: seconds(last.to) } : null, fresh);
}

/**
 * One node's read as log coverage: complete → [since, readAt] covered; cut short → what it proves
 * covered and the rest a gap; failed → a gap with its reason.
 */
export function logReadOf(cluster: string, apiUrl: string, n: NodeTaskRead): LogRead {
  const base = {
    streamId: taskCursorId(cluster, n.node),
    source: `proxmox:${cluster}`,
    node: n.node,
    apiUrl,
    provider: 'proxmox' as const,
  };
  const toMs = Math.max(n.since * 1000, n.readAtMs ?? n.readAt * 1000);
  const to = DateTime.fromMillis(toMs, { zone: 'utc' }).toISO()!;
  const window = { from: isoOfSeconds(n.since), to };
  if (n.complete) return { ...base, complete: window, clockOffsetSeconds: n.clockAheadSeconds };
  const gap = n.gap ?? { reason: 'task_stage_failed' as const, detail: 'the read did not complete' };
  const proven = n.coveredFrom ?? null;
  if (proven === null || proven <= n.since) return { ...base, gap: { ...window, ...gap, at: to } };
  return {
    ...base,
    complete: { from: isoOfSeconds(proven), to },
    gap: { from: window.from, to: isoOfSeconds(proven), ...gap, at: to },
  };
}
