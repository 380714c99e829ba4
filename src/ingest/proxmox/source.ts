/**
 * The Proxmox provider pass as an observation source (src/ingest/source.ts): the task stage, then
 * the inventory, then the events that waited for their resource; the observation path runs it.
 */
import { DateTime } from 'luxon';
import type { Driver } from 'neo4j-driver';
import { linkEventsToResources } from '../../graph/events.js';
import type { ObservationSource } from '../source.js';
import type { ProxmoxClient } from './client.js';
import { getClusterStatus } from './inventory-get.js';
import { createProxmoxPollState, type ProxmoxPollState } from './poll-state.js';
import { addRequestCounts, emptyRequestCounts, formatRequestCounts, type RequestCounts } from './request-stats.js';
import { syncProxmox, type ProxmoxSyncReport, type SyncProxmoxOptions } from './sync.js';
import { syncProxmoxTasks, type SyncProxmoxTasksOptions, type TaskSyncReport } from './tasks-sync.js';
import { topUpNodes, topUpProxmoxTasks } from './tasks-topup.js';

/** The task stage of a Proxmox pass and the events it linked to resources that appeared in it. */
export interface ProxmoxPassExtra {
  tasks: TaskSyncReport;
  /** The task lists read again after the inventory reported changes (see tasks-topup.ts); null: none. */
  topUp: TaskSyncReport | null;
  linkedEvents: number;
  /** What the whole pass (both stages) asked of the API. */
  requests: RequestCounts;
  /** The inventory stage's reads per guest (configs by reason, status fallbacks, agent pings). */
  reads: ProxmoxSyncReport['reads'];
}

/**
 * A Proxmox cluster, in the order attribution needs: (1) the task history, so the tasks that
 * explain a change are in the graph before it is explained; (2) the inventory, which reports the
 * state changes; (3) when it reports any, the task lists of the nodes that may hold their causes
 * read again up to now (tasks-topup.ts), so the log is read past the observation before the
 * changes are correlated; then events listed before their resource existed are linked to it.
 *
 * The source remembers between its passes what the inventory read (configs, agent pings: see
 * src/ingest/proxmox/poll-state.ts), so a steady-state pass reads `/cluster/status` once (shared by
 * both stages), `/cluster/resources`, and per node its task list and guest lists; configs only for
 * guests a finished task may have changed (handed from the task stage), new ones, moved ones and
 * the rolling refresh; agent pings on their own cadence.
 */
export function proxmoxSource(
  client: ProxmoxClient,
  options: {
    tasks?: SyncProxmoxTasksOptions;
    inventory?: SyncProxmoxOptions;
    /** Called with the task stage's line as soon as it is done (before the inventory). */
    onTasks?: (line: string, report: TaskSyncReport) => void;
    /** What earlier passes read; default a fresh one for this source. */
    state?: ProxmoxPollState;
  } = {},
): ObservationSource<ProxmoxPassExtra> {
  const state = options.state ?? createProxmoxPollState();
  return {
    name: `proxmox ${client.baseUrl}`,
    async pass(driver: Driver) {
      // One read of /cluster/status per pass, shared by both stages (a failure fails both alike).
      let status: Promise<unknown> | null = null;
      const readClusterStatus = () => (status ??= getClusterStatus(client));
      const tasks = await syncProxmoxTasks(driver, client, { ...options.tasks, readClusterStatus });
      options.onTasks?.(formatTaskSync(tasks), tasks);
      const report = await syncProxmox(driver, client, {
        ...options.inventory,
        state,
        readClusterStatus,
        configChanged: [...(options.inventory?.configChanged ?? []), ...tasks.configChanged],
      });
      // The changes are correlated after this pass: the nodes that may hold their causes are read
      // past the observation first (the task stage read them before the inventory).
      const topUp =
        report.stateChanges.length > 0
          ? await topUpProxmoxTasks(driver, client, tasks, await topUpNodes(driver, report.stateChanges), options.tasks)
          : null;
      const linkedEvents = await linkEventsToResources(driver, [
        ...tasks.unlinkedResourceIds,
        ...(topUp?.unlinkedResourceIds ?? []),
      ]);
      const requests = [
        tasks.requests,
        report.requests as RequestCounts | undefined,
        topUp?.requests,
      ].reduce<RequestCounts>((sum, r) => addRequestCounts(sum, r ?? emptyRequestCounts()), emptyRequestCounts());
      report.requests = requests;
      return {
        report,
        observer: `scheduler:${report.scope}`,
        extra: { tasks, topUp, linkedEvents, requests, reads: report.reads },
      };
    },
    summarize: ({ extra }) => [formatTaskSync(extra.tasks), ...(extra.topUp ? [formatTopUp(extra.topUp)] : [])],
    stateDetail: ({ extra }) => `linked-events=${extra.linkedEvents} ${formatProxmoxReads(extra)}`,
  };
}

/**
 * What a pass cost the API, in one phrase: `requests=11 (cluster=2 tasks=3 node_list=6) configs=0
 * (first=0 task=0 placement=0 refresh=0) status-fallbacks=0 agent-pings=0`.
 */
export function formatProxmoxReads(extra: Pick<ProxmoxPassExtra, 'requests' | 'reads'>): string {
  const c = extra.reads.configs;
  const configs = c.first + c.task + c.placement + c.refresh;
  return (
    `${formatRequestCounts(extra.requests)} configs=${configs} (first=${c.first} task=${c.task} ` +
    `placement=${c.placement} refresh=${c.refresh}) status-fallbacks=${extra.reads.statusFallbacks} ` +
    `agent-pings=${extra.reads.agentPings}`
  );
}

/**
 * The task stage in one line, with the window it read (the earliest `since` of any node), so an
 * empty read says where it looked: `proxmox:lab tasks: nodes=3 since=2026-05-13T02:00:00Z
 * listed=12 events=12 new=4 updated=1 skipped=0 errors=0`.
 */
export function formatTaskSync(t: TaskSyncReport): string {
  const since =
    t.nodes.length > 0
      ? DateTime.fromSeconds(Math.min(...t.nodes.map((n) => n.since)), { zone: 'utc' }).toISO({
          suppressMilliseconds: true,
        })
      : 'none';
  const listed = t.nodes.reduce((n, x) => n + x.listed, 0);
  const line =
    `${t.scope} tasks: nodes=${t.nodes.length} since=${since} listed=${listed} events=${t.events.written} ` +
    `new=${t.events.created} updated=${t.events.updated} skipped=${t.skipped.length} errors=${t.errors.length}`;
  return listed === 0 && t.nodes.length > 0
    ? `${line} (no task started in the window; the first read of a node goes back AITIA_PROXMOX_BACKFILL_HOURS)`
    : line;
}

/** The top-up in one line: `proxmox:lab tasks top-up: nodes=pve1,pve3 listed=2 new=1 errors=0`. */
export function formatTopUp(t: TaskSyncReport): string {
  const listed = t.nodes.reduce((n, x) => n + x.listed, 0);
  return (
    `${t.scope} tasks top-up: nodes=${t.nodes.map((n) => n.node).join(',') || 'none'} listed=${listed} ` +
    `new=${t.events.created} errors=${t.errors.length}`
  );
}
