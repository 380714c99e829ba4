import { DateTime } from 'luxon';
import type { Driver } from 'neo4j-driver';
import { upsertEvents } from '../../graph/events.js';
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
import { changesGuestConfig } from './task-types.js';
import { diffRequestCounts } from './request-stats.js';
import {
  errorMessage as message,
  gapReasonOf,
  isoOfSeconds as isoOf,
  logReadOf,
  type NodeTaskRead,
  readNode,
  taskCursorId,
} from './tasks-read.js';
import { DEFAULT_TASK_WINDOW, taskListSince, type TaskWindowOptions } from './tasks-window.js';

export { taskCursorId, type NodeTaskRead } from './tasks-read.js';

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
  await storeTaskReads(driver, client.baseUrl, cluster, report, events, offline, options);
  return done();
}

/**
 * Stores what a task read (a pass's stage or its top-up) listed, then what it proves: the events
 * first, then the nodes' log coverage, then their cursors — a crash in between re-reads, never
 * skips, and coverage never claims a read whose events are not in the graph.
 */
export async function storeTaskReads(
  driver: Driver,
  apiUrl: string,
  cluster: string,
  report: TaskSyncReport,
  events: readonly EventRecord[],
  extraReads: readonly LogRead[],
  options: Pick<SyncProxmoxTasksOptions, 'batchSize'>,
): Promise<void> {
  report.events.transformed = events.length;
  const written = await upsertEvents(driver, [...events], { batchSize: options.batchSize, at: isoNow() });
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
  await recordLogReads(driver, [...report.nodes.map((n) => logReadOf(cluster, apiUrl, n)), ...extraReads]);
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
      } satisfies NodeTaskRead);
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
