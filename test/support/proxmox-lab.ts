import { join } from 'node:path';
import { FIXTURES } from './fixtures.js';
import { taskListResponder } from '../../src/demo/proxmox-tasks.js';
import { createProxmoxClient, type ProxmoxClient } from '../../src/ingest/proxmox/client.js';
import { loadRecordedRoutes, type ProxmoxStandin, type RecordedResponse, type RouteTable } from './proxmox-standin.js';

/** Recordings of the synthetic 3-node cluster `lab` (pve1..pve3, 10 guests, 9 storages). */
export const LAB_FIXTURES = join(FIXTURES, 'proxmox/cluster-lab');

function bodyOf(table: RouteTable, key: string): { data: unknown } {
  const r = table.get(key) as RecordedResponse | undefined;
  if (!r || typeof r === 'function') throw new Error(`no recorded ${key}`);
  return structuredClone(r.body) as { data: unknown };
}

/**
 * The lab recordings with the cluster renamed (tests build ids with their scope) and optional
 * edits: guests gone (`without`: left out of /cluster/resources and of their node's answers, as a
 * deleted guest is), entries missing from /cluster/resources only (`listingOnly`: a partial
 * listing), or listing entries patched.
 */
export function labRoutes(
  clusterName: string,
  edits: {
    without?: string[];
    listingOnly?: string[];
    patchListing?: Record<string, Record<string, unknown>>;
    drop?: string[];
  } = {},
): RouteTable {
  const table = loadRecordedRoutes(LAB_FIXTURES);
  const status = bodyOf(table, 'GET /cluster/status');
  for (const e of status.data as Array<Record<string, unknown>>) if (e.type === 'cluster') e.name = clusterName;
  table.set('GET /cluster/status', { body: status });
  const listing = bodyOf(table, 'GET /cluster/resources');
  listing.data = (listing.data as Array<Record<string, unknown>>)
    .filter((e) => ![...(edits.without ?? []), ...(edits.listingOnly ?? [])].includes(String(e.id)))
    .map((e) => ({ ...e, ...(edits.patchListing?.[String(e.id)] ?? {}) }));
  table.set('GET /cluster/resources', { body: listing });
  // Task lists (the state poll reads them first): none recorded, so each node answers an empty list.
  for (const n of ['pve1', 'pve2', 'pve3']) table.set(`GET /nodes/${n}/tasks`, { body: { data: [], total: 0 } });
  for (const key of edits.drop ?? []) table.delete(key);
  for (const key of [...table.keys()]) {
    const m = /^GET \/nodes\/[^/]+\/((?:qemu|lxc)\/\d+)\//.exec(key);
    if (m && (edits.without ?? []).includes(m[1]!)) table.delete(key);
  }
  return table;
}

/** Replaces the `data` of one recorded answer (e.g. a guest's status/current for the next poll). */
export function patchData(table: RouteTable, key: string, patch: Record<string, unknown>, remove: string[] = []): void {
  const body = bodyOf(table, key);
  const data = { ...(body.data as Record<string, unknown>), ...patch };
  for (const k of remove) delete data[k];
  table.set(key, { body: { ...body, data } });
}

/** A client for the stand-in with short timeouts, so fault tests stay fast. */
export function standinClient(standin: ProxmoxStandin, overrides: { token?: string } = {}): ProxmoxClient {
  return createProxmoxClient({
    baseUrl: standin.url,
    token: overrides.token ?? standin.token,
    timeoutMs: 400,
    retries: 1,
    backoffMs: 10,
  });
}

/** The lab's three nodes answer their task lists from `entries`, read at each request. */
export function withLabTasks(table: RouteTable, entries: () => ReadonlyArray<Record<string, unknown>>): RouteTable {
  for (const n of ['pve1', 'pve2', 'pve3']) table.set(`GET /nodes/${n}/tasks`, taskListResponder(entries));
  return table;
}
