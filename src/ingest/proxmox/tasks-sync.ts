import { DateTime } from 'luxon';
import type { Driver } from 'neo4j-driver';
import { runningEventsOnHost, upsertEvents } from '../../graph/events.js';
import { guestKindsOfCluster } from '../../graph/resources/queries.js';
import { getIngestCursor, saveIngestCursor } from '../../graph/cursors.js';
import { recordApiGap, recordLogReads, type LogRead } from '../../graph/coverage.js';
import type { LogGap } from '../../model/coverage.js';
import { isoNow } from '../../graph/db/statements.js';
import type { EventRecord } from '../../model/events.js';
import { mapLimit } from '../map-limit.js';
import { createReport, finishReport, type IngestReport, newUpdateTag } from '../report.js';
import type { ProxmoxClient } from './client.js';
import { ProxmoxApiError } from './client-error.js';
import { getClusterStatus } from './inventory-get.js';
import { parseClusterStatus } from './inventory-parse.js';
import { recheckRunningTasks } from './tasks-recheck.js';
import { getNodeTasks } from './tasks-get.js';
import { transformProxmoxTask } from './tasks-transform.js';
import { changesGuestConfig } from './task-types.js';
import { diffRequestCounts } from './request-stats.js';
import {
  advanceTaskCursor,
  DEFAULT_TASK_WINDOW,
  guestKindsFromListing,
  taskListSince,
  type TaskWindowOptions,
} from './tasks-window.js';

export interface SyncProxmoxTasksOptions extends Partial<TaskWindowOptions> {
  /** Entries per list call (`limit`). Default 500. */
  pageSize?: number;
  /** List calls per node and pass; a window with more tasks is left for the next pass. Default 20. */
  maxPages?: number;
  /** Nodes read at once. Default 4. */
  concurrency?: number;
  /** Rows per UNWIND statement. Default 10 000. */
  batchSize?: number;
  /** The clock, for tests. Default now. */
  now?: () => DateTime;
  /** Reads `/cluster/status`; a pass shares one read between its task and inventory stages. */
  readClusterStatus?: () => Promise<unknown>;
}

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
  /** Why the read is not complete (recorded as a gap in the node's log coverage); null when complete. */
  gap: { reason: LogGap['reason']; detail: string } | null;
  /** Seconds the node's clock was seen ahead (a listed task starting after readAt); null: no evidence. */
  clockAheadSeconds: number | null;
}

/** An ingest report plus what the task pass did with events and cursors. */
export interface TaskSyncReport extends IngestReport {
  events: { transformed: number; written: number; created: number; updated: number };
  nodes: NodeTaskRead[];
  /** Resources the events name that the graph does not hold yet (linked after the inventory pass). */
  unlinkedResourceIds: string[];
  /**
   * Guests a finished task may have reconfigured or moved (create, clone, restore, config, move or
   * resize disk, migrate, rollback, template), from events this pass stored new or saw finish: the
   * inventory stage re-reads exactly their configs.
   */
  configChanged: string[];
}

/** The cursor stream id of one node's task list. */
export function taskCursorId(cluster: string, node: string): string {
  return `proxmox:${cluster}/node/${node}#tasks`;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
const isoOf = (seconds: number) =>
  DateTime.fromSeconds(seconds, { zone: 'utc' }).toISO({ suppressMilliseconds: true })!;

/** A node that did not answer (no connection, timeout, the proxy's 595/596, a gateway error) is unreachable; anything else is the read failing. */
function gapReasonOf(err: unknown): LogGap['reason'] {
  if (!(err instanceof ProxmoxApiError)) return 'task_stage_failed';
  if (err.kind === 'network' || err.kind === 'timeout') return 'source_unreachable';
  return err.status !== null && [502, 503, 504, 595, 596].includes(err.status)
    ? 'source_unreachable'
    : 'task_stage_failed';
}

/**
 * Ingests every online node's task history: per node `GET /nodes/{node}/tasks?source=all&since=…`
 * paged until the window is read, from the node's cursor minus an overlap (tasks that finished
 * since are re-read and updated in place); stored running tasks older than the window are re-read
 * on their own. Malformed UPIDs and entries that contradict their UPID go to `skipped`, never to
 * the graph. A node whose read failed keeps its cursor; the others still advance.
 */
export async function syncProxmoxTasks(
  driver: Driver,
  client: ProxmoxClient,
  options: SyncProxmoxTasksOptions = {},
): Promise<TaskSyncReport> {
  const report: TaskSyncReport = {
    ...createReport('proxmox', `proxmox:${new URL(client.baseUrl).host}`, newUpdateTag('proxmox-tasks')),
    events: { transformed: 0, written: 0, created: 0, updated: 0 },
    nodes: [],
    unlinkedResourceIds: [],
    configChanged: [],
  };
  const start = client.requestCounts();
  const done = () => {
    finishReport(report);
    report.requests = diffRequestCounts(client.requestCounts(), start);
    return report;
  };
  let status;
  try {
    status = parseClusterStatus(await (options.readClusterStatus ?? (() => getClusterStatus(client)))());
    report.fetched++;
  } catch (err) {
    report.errors.push({
      scope: report.scope,
      path: '/cluster/status',
      status: err instanceof ProxmoxApiError ? err.status : null,
      message: message(err),
    });
    await recordSourceGap(driver, client, options, gapReasonOf(err), `/cluster/status: ${message(err)}`);
    return done();
  }
  if (!status.ok) {
    report.errors.push({ scope: report.scope, path: '/cluster/status', status: null, message: status.reason });
    await recordSourceGap(driver, client, options, 'task_stage_failed', `/cluster/status: ${status.reason}`);
    return done();
  }
  const cluster = status.value.name;
  report.scope = `proxmox:${cluster}`;
  const known = await guestKindsOfCluster(driver, cluster);
  const nodes = status.value.nodes.filter((n) => n.online !== false).map((n) => n.name);
  for (const n of status.value.nodes.filter((x) => x.online === false)) {
    report.errors.push({
      scope: `${report.scope}/node/${n.name}`,
      path: null,
      status: null,
      message: 'node offline in /cluster/status: its tasks are read when it is back',
    });
  }
  const offline = await offlineReads(
    driver,
    cluster,
    client.baseUrl,
    status.value.nodes.filter((x) => x.online === false).map((n) => n.name),
    options,
  );
  const events: EventRecord[] = [];
  await mapLimit(nodes, options.concurrency ?? 4, async (node) => {
    report.nodes.push(await readNode(driver, client, cluster, node, known, options, report, events));
  });
  report.events.transformed = events.length;
  const written = await upsertEvents(driver, events, { batchSize: options.batchSize, at: isoNow() });
  report.events.written = written.written;
  report.events.created = written.created;
  report.events.updated = written.updated;
  report.unlinkedResourceIds = written.unlinkedResourceIds;
  const touched = new Set(written.touchedIds);
  report.configChanged = [
    ...new Set(
      events
        .filter((e) => touched.has(e.id) && e.endedAt !== null && e.resourceId && changesGuestConfig(e.type, e.rawType))
        .map((e) => e.resourceId!),
    ),
  ].sort();
  // Coverage, like the cursors, only after the events are stored: what it claims read is in the graph.
  await recordLogReads(driver, [...report.nodes.map((n) => logReadOf(cluster, client.baseUrl, n)), ...offline]);
  // Cursors move only after the events are stored: a crash in between re-reads, never skips.
  for (const n of report.nodes) {
    if (n.complete && n.cursor !== null) {
      n.cursor = await saveIngestCursor(driver, {
        id: taskCursorId(cluster, n.node),
        position: n.cursor,
        at: isoNow(),
        detail: { since: n.since, listed: n.listed },
      });
    }
  }
  report.nodes.sort((a, b) => a.node.localeCompare(b.node));
  report.complete = report.errors.length === 0;
  return done();
}

async function readNode(
  driver: Driver,
  client: ProxmoxClient,
  cluster: string,
  node: string,
  known: Map<string, 'qemu' | 'lxc'>,
  options: SyncProxmoxTasksOptions,
  report: TaskSyncReport,
  out: EventRecord[],
): Promise<NodeTaskRead> {
  const scope = `${report.scope}/node/${node}`;
  const cursor = await getIngestCursor(driver, taskCursorId(cluster, node));
  const nowSeconds = Math.floor((options.now?.() ?? DateTime.utc()).toSeconds());
  const since = taskListSince(cursor?.position ?? null, nowSeconds, options);
  const pageSize = options.pageSize ?? 500;
  const maxPages = options.maxPages ?? 20;
  const path = `/nodes/${node}/tasks`;
  const entries: unknown[] = [];
  let complete = false;
  let answered = false;
  let gap: NodeTaskRead['gap'] = null;
  try {
    for (let page = 0; page < maxPages; page++) {
      const data = await getNodeTasks(client, node, { since, limit: pageSize, start: page * pageSize });
      report.fetched++;
      if (!Array.isArray(data)) throw new Error(`${path}: expected a list of tasks`);
      entries.push(...data);
      if (data.length < pageSize) {
        complete = true;
        break;
      }
    }
    answered = true;
    if (!complete) {
      const text = `more than ${maxPages * pageSize} tasks since ${since}: the rest is read next pass (cursor kept)`;
      report.errors.push({ scope, path, status: null, message: text });
      gap = { reason: 'page_truncated', detail: text };
    }
  } catch (err) {
    report.errors.push({
      scope,
      path,
      status: err instanceof ProxmoxApiError ? err.status : null,
      message: message(err),
    });
    gap = { reason: gapReasonOf(err), detail: `${path}: ${message(err)}` };
  }
  const siblings = guestKindsFromListing(entries);
  const guestKindOf = (vmid: string) => known.get(vmid) ?? siblings.get(vmid) ?? null;
  const starts: number[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    const r = transformProxmoxTask(entry, { cluster, guestKindOf });
    if (!r.ok) {
      const upid = (entry as { upid?: unknown } | null)?.upid;
      report.skipped.push({ what: 'row', id: typeof upid === 'string' ? upid : null, reason: r.reason });
      continue;
    }
    if (r.event.node !== node) {
      report.skipped.push({
        what: 'row',
        id: r.event.id,
        reason: `listed by node ${node} but its UPID names node ${r.event.node}`,
      });
      continue;
    }
    out.push(r.event);
    seen.add(r.event.id);
    starts.push(DateTime.fromISO(r.event.startedAt).toSeconds());
  }
  // Re-read stored running tasks the window did not list, only when the node answered its list.
  const stale = answered
    ? (await runningEventsOnHost(driver, `proxmox:${cluster}/node/${node}`)).filter((e) => !seen.has(e.id))
    : [];
  const rechecked = await recheckRunningTasks(client, cluster, node, stale, guestKindOf, report, out);
  const ahead = starts.length > 0 ? Math.max(...starts) - nowSeconds : 0;
  return {
    node,
    since,
    listed: entries.length,
    complete,
    cursor: complete ? advanceTaskCursor(cursor?.position ?? null, since, starts) : null,
    rechecked,
    readAt: nowSeconds,
    gap,
    clockAheadSeconds: complete ? Math.max(0, ahead) : null,
  };
}

/** One node's read as log coverage: complete → [since, readAt] covered; else a gap with its reason. */
function logReadOf(cluster: string, apiUrl: string, n: NodeTaskRead): LogRead {
  const base = {
    streamId: taskCursorId(cluster, n.node),
    source: `proxmox:${cluster}`,
    node: n.node,
    apiUrl,
    provider: 'proxmox' as const,
  };
  const window = { from: isoOf(n.since), to: isoOf(Math.max(n.since, n.readAt)) };
  if (n.complete) return { ...base, complete: window, clockOffsetSeconds: n.clockAheadSeconds };
  const gap = n.gap ?? { reason: 'task_stage_failed' as const, detail: 'the read did not complete' };
  return { ...base, gap: { ...window, ...gap, at: window.to } };
}

/** Nodes offline in /cluster/status: their window is a gap (their tasks are read when they are back). */
async function offlineReads(
  driver: Driver,
  cluster: string,
  apiUrl: string,
  nodes: readonly string[],
  options: SyncProxmoxTasksOptions,
): Promise<LogRead[]> {
  const nowSeconds = Math.floor((options.now?.() ?? DateTime.utc()).toSeconds());
  return Promise.all(
    nodes.map(async (node) => {
      const cursor = await getIngestCursor(driver, taskCursorId(cluster, node));
      const since = taskListSince(cursor?.position ?? null, nowSeconds, options);
      return logReadOf(cluster, apiUrl, {
        node,
        since,
        listed: 0,
        complete: false,
        cursor: null,
        rechecked: 0,
        readAt: nowSeconds,
        gap: { reason: 'source_unreachable', detail: `node ${node} offline in /cluster/status` },
        clockAheadSeconds: null,
      });
    }),
  );
}

/** /cluster/status did not answer: the cluster is not known, so the gap goes on every stream read through this API. */
async function recordSourceGap(
  driver: Driver,
  client: ProxmoxClient,
  options: SyncProxmoxTasksOptions,
  reason: LogGap['reason'],
  detail: string,
): Promise<void> {
  const now = options.now?.() ?? DateTime.utc();
  const o = { ...DEFAULT_TASK_WINDOW, ...options };
  await recordApiGap(driver, {
    apiUrl: client.baseUrl,
    to: isoOf(Math.floor(now.toSeconds())),
    since: isoOf(Math.floor(now.toSeconds()) - o.initialLookbackSeconds),
    reason,
    detail,
  });
}
