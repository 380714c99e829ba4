import type { ProxmoxClient } from './client.js';
import { ProxmoxApiError } from './client-error.js';
import type { AgentPingAnswer } from './guest-agent.js';

/**
 * Dumb fetchers: one API call each, no reshaping. Failures are thrown as ProxmoxApiError; the sync
 * decides what a failure means for the scope.
 */

/** `GET /cluster/status`: the cluster entry and one entry per node. */
export function getClusterStatus(client: ProxmoxClient): Promise<unknown> {
  return client.get('/cluster/status');
}

/** `GET /cluster/resources`: nodes, guests, storages (and types inventory ignores). */
export function getClusterResources(client: ProxmoxClient): Promise<unknown> {
  return client.get('/cluster/resources');
}

/**
 * `GET /nodes/{node}/qemu?full=1` or `GET /nodes/{node}/lxc`: every guest of one family on the
 * node with its run state, in one call. `full=1` makes pveproxy ask each running VM's QMP for
 * `qmpstatus` (paused, io-error, prelaunch, suspended …); LXC has no such detail.
 */
export function getNodeGuests(client: ProxmoxClient, node: string, type: 'qemu' | 'lxc'): Promise<unknown> {
  const path = `/nodes/${encodeURIComponent(node)}/${type}`;
  return type === 'qemu' ? client.get(path, { full: 1 }) : client.get(path);
}

/** `GET /nodes/{node}/{qemu|lxc}/{vmid}/status/current`. */
export function getGuestStatus(
  client: ProxmoxClient,
  node: string,
  type: 'qemu' | 'lxc',
  vmid: number,
): Promise<unknown> {
  return client.get(`/nodes/${encodeURIComponent(node)}/${type}/${vmid}/status/current`);
}

/** `GET /nodes/{node}/{qemu|lxc}/{vmid}/config` (pending changes applied, as Proxmox returns by default). */
export function getGuestConfig(
  client: ProxmoxClient,
  node: string,
  type: 'qemu' | 'lxc',
  vmid: number,
): Promise<unknown> {
  return client.get(`/nodes/${encodeURIComponent(node)}/${type}/${vmid}/config`);
}

/**
 * `POST /nodes/{node}/qemu/{vmid}/agent/ping`. An HTTP error with a status is an answer (its
 * message says why the agent did not reply); a transport failure is returned with a null status.
 */
export async function pingGuestAgent(client: ProxmoxClient, node: string, vmid: number): Promise<AgentPingAnswer> {
  try {
    await client.post(`/nodes/${encodeURIComponent(node)}/qemu/${vmid}/agent/ping`);
    return { ok: true };
  } catch (err) {
    if (!(err instanceof ProxmoxApiError)) throw err;
    return { ok: false, status: err.status, message: err.providerMessage ?? err.message };
  }
}
