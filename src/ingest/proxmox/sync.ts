import type { Driver } from 'neo4j-driver';
import { markUnseenResourcesMissing, refreshEdgeStaleness } from '../../graph/resources.js';
import { isoNow } from '../../graph/statements.js';
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
import { loadProxmoxInventory } from './inventory-load.js';
import { onlineNodes, parseClusterResources, parseClusterStatus } from './inventory-parse.js';
import { transformProxmoxInventory } from './inventory-transform.js';

/** Tuning for one Proxmox inventory pass. */
export interface SyncProxmoxOptions {
  /** Written on every node and edge this pass touches; generated when omitted. */
  updateTag?: string;
  /** Rows per UNWIND statement. Default 1000. */
  batchSize?: number;
  /** Detail calls in flight at once. Default 4 (pveproxy serves a few workers per node). */
  concurrency?: number;
  /** Ping the guest agent of running VMs (needs VM.Monitor / VM.GuestAgent.Audit). Default true. */
  agentPing?: boolean;
  onProgress?: ProgressSink;
  /** When this pass observed the cluster (the transitions' observedAt). Default now; the demo replays a recorded day. */
  observedAt?: string;
}

/** A fetch that could not read the cluster at all: the condition opens, nothing else changes. */
async function unreachable(
  driver: Driver,
  client: ProxmoxClient,
  report: IngestReport,
  err: unknown,
  clusterName: string | null,
  path: string,
  options: SyncProxmoxOptions,
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
  emitProgress(options.onProgress, 'done', report);
  return report;
}

/**
 * One inventory pass over a Proxmox cluster: get (/cluster/status, /cluster/resources, each
 * guest's status/current and config, agent pings) → transform (pure) → load (batched MERGE).
 *
 * Staleness: only when every fetch of the cluster succeeded (`complete`) are resources of
 * `proxmox:<cluster>/…` not tagged by this pass marked missing, and observed edges likewise. A
 * failed or partial fetch (HTTP error, timeout, malformed JSON, a node that did not answer) marks
 * nothing; nothing is ever deleted. State changes are returned for the correlator.
 */
export async function syncProxmox(
  driver: Driver,
  client: ProxmoxClient,
  options: SyncProxmoxOptions = {},
): Promise<IngestReport> {
  const updateTag = options.updateTag ?? newUpdateTag('proxmox');
  const observedAt = options.observedAt ?? isoNow();
  const report = createReport('proxmox', `proxmox:${new URL(client.baseUrl).host}`, updateTag, observedAt);

  let statusData: unknown;
  try {
    statusData = await getClusterStatus(client);
    report.fetched++;
  } catch (err) {
    return unreachable(driver, client, report, err, null, '/cluster/status', options);
  }
  const status = parseClusterStatus(statusData);
  if (!status.ok)
    return unreachable(driver, client, report, new Error(status.reason), null, '/cluster/status', options);
  const cluster = status.value.name;
  report.scope = `proxmox:${cluster}`;

  let resourcesData: unknown;
  try {
    resourcesData = await getClusterResources(client);
    report.fetched++;
  } catch (err) {
    return unreachable(driver, client, report, err, cluster, '/cluster/resources', options);
  }
  const resources = parseClusterResources(resourcesData);
  if (!resources.ok)
    return unreachable(driver, client, report, new Error(resources.reason), cluster, '/cluster/resources', options);

  const online = onlineNodes(resources.value);
  const guests = resources.value.guests.filter((g) => online.has(g.node));
  const fetched = await fetchGuestDetails(client, cluster, guests, {
    concurrency: options.concurrency ?? 4,
    agentPing: options.agentPing ?? true,
  });
  report.fetched += fetched.fetched;
  report.errors.push(...fetched.errors);
  report.skipped.push(...fetched.skipped);
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

  if (report.complete) {
    const marked = await markUnseenResourcesMissing(driver, { scope: report.scope, updateTag, at: observedAt });
    report.markedMissing = marked.newlyMarked;
  }
  const edges = await refreshEdgeStaleness(driver, {
    scope: report.scope,
    source: inventory.scope,
    updateTag,
    markUnseen: report.complete,
    at: observedAt,
  });
  report.edgesMarkedMissing = edges.marked;
  emitProgress(options.onProgress, 'staleness', report);

  await recordProxmoxReachable(driver, { apiUrl: client.baseUrl, clusterName: cluster }, report);
  finishReport(report);
  emitProgress(options.onProgress, 'done', report);
  return report;
}
