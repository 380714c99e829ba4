import type { Driver } from 'neo4j-driver';
import { isoNow } from '../../graph/db/statements.js';
import {
  createReport,
  emitProgress,
  finishReport,
  type IngestReport,
  newUpdateTag,
  type ProgressSink,
} from '../report.js';
import { recordProxmoxReachable, recordProxmoxUnreachable } from './adapter-condition.js';
import type { ProxmoxClient } from './client.js';
import { ProxmoxApiError } from './client-error.js';
import { fetchGuestDetails } from './guest-details.js';
import { getClusterResources, getClusterStatus } from './inventory-get.js';
import {
  CONFIG_READ_REASONS,
  createProxmoxPollState,
  type ConfigReadReason,
  type ProxmoxPollState,
} from './poll-state.js';
import { diffRequestCounts, type RequestCounts } from './request-stats.js';
import { markStaleness } from '../inventory-load.js';
import { loadProxmoxInventory } from './inventory-load.js';
import { onlineNodes, parseClusterResources, parseClusterStatus } from './inventory-parse.js';
import { checkNodeCompleteness, statusOnlineNodes } from './node-completeness.js';
import { transformProxmoxInventory } from './inventory-transform.js';

/** Tuning for one Proxmox inventory pass. */
export interface SyncProxmoxOptions {
  /** Written on every node and edge this pass touches; generated when omitted. */
  updateTag?: string;
  /** Rows per UNWIND statement. Default 1000. */
  batchSize?: number;
  /**
   * Nodes and guests worked on at once. Default 16: the client bounds the requests in flight
   * (AITIA_PROXMOX_MAX_CONCURRENT_REQUESTS), this only keeps enough of them queued.
   */
  concurrency?: number;
  /** Ping the guest agent of running VMs (needs VM.Monitor / VM.GuestAgent.Audit). Default true. */
  agentPing?: boolean;
  onProgress?: ProgressSink;
  /** When this pass observed the cluster (the transitions' observedAt). Default now; the demo replays a recorded day. */
  observedAt?: string;
  /**
   * What earlier passes of the same poller read (configs, agent pings), updated in place. Without
   * it the pass starts from nothing: every config is read and every agent due, as on a first pass.
   */
  state?: ProxmoxPollState;
  /** Guests whose config a task may have changed since the last pass (resource ids). */
  configChanged?: readonly string[];
  /** Every config is re-read within this many seconds, spread over the polls. Default 3600. */
  configRefreshSeconds?: number;
  /** Seconds between guest-agent pings of a running VM. Default 300. */
  agentSeconds?: number;
  /** Reads `/cluster/status`; a pass shares one read between its task and inventory stages. */
  readClusterStatus?: () => Promise<unknown>;
  /** The clock (epoch ms) for the refresh and agent cadences. Default Date.now. */
  now?: () => number;
}

/** An inventory pass's report, with what it read per guest and why. */
export interface ProxmoxSyncReport extends IngestReport {
  reads: {
    /** Config reads, by why they were due. */
    configs: Record<ConfigReadReason, number>;
    /** Guests asked with status/current because their node's list lacked them. */
    statusFallbacks: number;
    agentPings: number;
  };
}

/** A fetch that could not read the cluster at all: the condition opens, nothing else changes. */
async function unreachable(
  driver: Driver,
  client: ProxmoxClient,
  report: ProxmoxSyncReport,
  err: unknown,
  clusterName: string | null,
  path: string,
  options: SyncProxmoxOptions,
  start: RequestCounts,
) {
  const e = err instanceof ProxmoxApiError ? err : null;
  report.errors.push({
    scope: report.scope,
    path,
    status: e?.status ?? null,
    message: err instanceof Error ? err.message : String(err),
  });
  await recordProxmoxUnreachable(driver, { apiUrl: client.baseUrl, clusterName, error: err }, report);
  finishReport(report);
  report.requests = diffRequestCounts(client.requestCounts(), start);
  emitProgress(options.onProgress, 'done', report);
  return report;
}

/**
 * One inventory pass over a Proxmox cluster: get (/cluster/status, /cluster/resources, per node
 * the guest lists `qemu?full=1` and `lxc`; configs only when due, agent pings on their cadence —
 * see {@link fetchGuestDetails}) → transform (pure) → load (batched MERGE).
 *
 * Staleness: only when every fetch of the cluster succeeded (`complete`) are resources of
 * `proxmox:<cluster>/…` not tagged by this pass marked missing, and observed edges likewise. A
 * failed or partial fetch (HTTP error, timeout, malformed JSON, a node that did not answer) marks
 * nothing; nothing is ever deleted. Every node `/cluster/status` reports online must answer with
 * its guests, matching `/cluster/resources` ({@link checkNodeCompleteness}); one that does not
 * makes the pass partial and keeps `adapter_unreachable` open on the cluster, naming the node. State changes are returned for the correlator.
 */
export async function syncProxmox(
  driver: Driver,
  client: ProxmoxClient,
  options: SyncProxmoxOptions = {},
): Promise<ProxmoxSyncReport> {
  const updateTag = options.updateTag ?? newUpdateTag('proxmox');
  const observedAt = options.observedAt ?? isoNow();
  const report: ProxmoxSyncReport = {
    ...createReport('proxmox', `proxmox:${new URL(client.baseUrl).host}`, updateTag, observedAt),
    reads: {
      configs: Object.fromEntries(CONFIG_READ_REASONS.map((r) => [r, 0])) as Record<ConfigReadReason, number>,
      statusFallbacks: 0,
      agentPings: 0,
    },
  };
  const start = client.requestCounts();
  const state = options.state ?? createProxmoxPollState();
  for (const id of options.configChanged ?? []) state.pendingConfig.add(id);

  let statusData: unknown;
  try {
    statusData = await (options.readClusterStatus ?? (() => getClusterStatus(client)))();
    report.fetched++;
  } catch (err) {
    return unreachable(driver, client, report, err, null, '/cluster/status', options, start);
  }
  const status = parseClusterStatus(statusData);
  if (!status.ok)
    return unreachable(driver, client, report, new Error(status.reason), null, '/cluster/status', options, start);
  const cluster = status.value.name;
  report.scope = `proxmox:${cluster}`;

  let resourcesData: unknown;
  try {
    resourcesData = await getClusterResources(client);
    report.fetched++;
  } catch (err) {
    return unreachable(driver, client, report, err, cluster, '/cluster/resources', options, start);
  }
  const resources = parseClusterResources(resourcesData);
  if (!resources.ok)
    return unreachable(
      driver,
      client,
      report,
      new Error(resources.reason),
      cluster,
      '/cluster/resources',
      options,
      start,
    );

  const online = onlineNodes(resources.value);
  const guests = resources.value.guests.filter((g) => online.has(g.node));
  const fetched = await fetchGuestDetails(client, cluster, guests, {
    concurrency: options.concurrency ?? 16,
    nodes: statusOnlineNodes(status.value),
    agentPing: options.agentPing ?? true,
    state,
    now: (options.now ?? Date.now)(),
    configRefreshMs: (options.configRefreshSeconds ?? 3600) * 1000,
    agentPeriodMs: (options.agentSeconds ?? 300) * 1000,
  });
  report.reads = {
    configs: fetched.configReads,
    statusFallbacks: fetched.statusFallbacks,
    agentPings: fetched.agentPings,
  };
  report.fetched += fetched.fetched;
  report.errors.push(...fetched.errors);
  report.skipped.push(...fetched.skipped);
  const nodes = checkNodeCompleteness(cluster, status.value, resources.value, fetched.nodeLists);
  report.errors.push(...nodes.errors);
  emitProgress(options.onProgress, 'fetch', report);

  const inventory = transformProxmoxInventory({
    apiUrl: client.baseUrl,
    status: status.value,
    resources: resources.value,
    details: fetched.details,
  });
  report.skipped.push(...inventory.skipped);
  for (const p of inventory.problems)
    report.errors.push({ scope: report.scope, path: '/cluster/resources', status: null, message: p });
  report.complete = report.errors.length === 0;
  emitProgress(options.onProgress, 'transform', report);

  await loadProxmoxInventory(driver, inventory, { updateTag, observedAt, batchSize: options.batchSize }, report);
  emitProgress(options.onProgress, 'load', report);

  await markStaleness(driver, report, { scope: report.scope, source: inventory.scope, updateTag, observedAt });
  emitProgress(options.onProgress, 'staleness', report);

  // Guests the cluster no longer lists are forgotten (a returning VMID is a first sight again).
  if (resources.value.problems.length === 0) {
    const listed = new Set(resources.value.guests.map((g) => `proxmox:${cluster}/${g.type}/${g.vmid}`));
    for (const id of state.guests.keys()) if (!listed.has(id)) state.guests.delete(id);
    for (const id of state.pendingConfig) if (!listed.has(id)) state.pendingConfig.delete(id);
  }

  if (nodes.incomplete.length > 0) {
    const err = new Error(
      `node${nodes.incomplete.length > 1 ? 's' : ''} ${nodes.incomplete.join(', ')} online in /cluster/status did not answer with ${nodes.incomplete.length > 1 ? 'their' : 'its'} guests: the pass is partial`,
    );
    await recordProxmoxUnreachable(
      driver,
      { apiUrl: client.baseUrl, clusterName: cluster, error: err, nodes: nodes.incomplete },
      report,
    );
  } else await recordProxmoxReachable(driver, { apiUrl: client.baseUrl, clusterName: cluster }, report);
  finishReport(report);
  report.requests = diffRequestCounts(client.requestCounts(), start);
  emitProgress(options.onProgress, 'done', report);
  return report;
}
