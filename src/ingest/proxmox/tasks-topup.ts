import type { Driver } from 'neo4j-driver';
import { taskNodesOf } from '../../graph/coverage.js';
import { guestKindsOfCluster } from '../../graph/resources/queries.js';
import type { StateChange } from '../../graph/resources/upsert.js';
import type { EventRecord } from '../../model/events.js';
import { createReport, finishReport, newUpdateTag } from '../report.js';
import type { ProxmoxClient } from './client.js';
import { diffRequestCounts } from './request-stats.js';
import { errorMessage, readNode } from './tasks-read.js';
import { storeTaskReads, type SyncProxmoxTasksOptions, type TaskSyncReport } from './tasks-sync.js';

/**
 * The top-up of a Proxmox pass: its task stage reads the lists BEFORE the inventory, so a task
 * that started between the two (or one a node listed late) is in no read when the inventory
 * reports its change — an uncovered sliver after the newest read, which the ladder must call
 * `log_not_read`, never `no_record`. When the inventory reports changes, the nodes that could hold
 * their causes are read again from just before the first read's end to now, one request each,
 * before the changes are correlated: the log is then really read past the observation.
 */

/** How far before the first read's end the top-up starts: a task the node listed late is read too. */
export const TOP_UP_LOOKBACK_SECONDS = 60;

/** A change whose cause is logged on the node it came from (a migration): every node's list matters. */
const moves = (c: Pick<StateChange, 'from' | 'to'>) => c.from === 'migrating' || c.to === 'migrating';

/**
 * The nodes to top up for these changes: each changed guest's node; every node when a change
 * moves a guest or names no host. Empty when there are no changes (nothing is read).
 */
export async function topUpNodes(driver: Driver, changes: readonly StateChange[]): Promise<string[] | null> {
  if (changes.length === 0) return [];
  if (changes.some(moves)) return null;
  return taskNodesOf(
    driver,
    changes.map((c) => c.id),
  );
}

/**
 * Reads again, from `TOP_UP_LOOKBACK_SECONDS` before the first read's end, the nodes (null: all)
 * whose first read in this pass was complete, and stores what they list and prove like the stage
 * does. A node whose first read failed keeps its gap (the next pass reads it). Null when nothing
 * is to be read (no such node, the cluster unknown).
 */
export async function topUpProxmoxTasks(
  driver: Driver,
  client: ProxmoxClient,
  first: TaskSyncReport,
  nodes: readonly string[] | null,
  options: SyncProxmoxTasksOptions = {},
): Promise<TaskSyncReport | null> {
  const cluster = first.scope.startsWith('proxmox:') ? first.scope.slice('proxmox:'.length) : '';
  const wanted = first.nodes.filter((n) => n.complete && (nodes === null || nodes.includes(n.node)));
  if (cluster === '' || cluster.includes(':') || wanted.length === 0) return null;
  const report: TaskSyncReport = {
    ...createReport('proxmox', first.scope, newUpdateTag('proxmox-tasks-topup')),
    events: { transformed: 0, written: 0, created: 0, updated: 0 },
    nodes: [],
    unlinkedResourceIds: [],
    configChanged: [],
  };
  const start = client.requestCounts();
  try {
    const known = await guestKindsOfCluster(driver, cluster);
    const events: EventRecord[] = [];
    for (const n of wanted) {
      const since = Math.max(n.since, n.readAt - TOP_UP_LOOKBACK_SECONDS);
      report.nodes.push(await readNode(driver, client, cluster, n.node, known, { ...options, since }, report, events));
    }
    await storeTaskReads(driver, client.baseUrl, cluster, report, events, [], options);
  } catch (err) {
    // Nothing recorded as read: the sliver stays `log_not_read` until the next pass reads it.
    report.errors.push({ scope: report.scope, path: null, status: null, message: `task top-up: ${errorMessage(err)}` });
    report.complete = false;
  }
  finishReport(report);
  report.requests = diffRequestCounts(client.requestCounts(), start);
  return report;
}
