import { mapProxmoxVm } from '../../model/index.js';
import { mapLimit } from '../map-limit.js';
import type { ScopeError, SkippedItem } from '../report.js';
import type { ProxmoxClient } from './client.js';
import { ProxmoxApiError } from './client-error.js';
import { shouldPingAgent } from './guest-agent.js';
import { getGuestConfig, getGuestStatus, pingGuestAgent } from './inventory-get.js';
import { guestKey } from './inventory-parse.js';
import { GuestStatusSchema, type GuestEntry } from './api-shapes.js';
import type { GuestDetail } from './inventory-transform.js';

/** The detail calls' answers per guest, with what failed. */
export interface GuestDetailsResult {
  details: Map<string, GuestDetail>;
  /** Calls answered. */
  fetched: number;
  /** Failed status/current or config calls, filed under the node's scope: each makes the pass partial. */
  errors: ScopeError[];
  /** Agent pings that gave no usable answer: reported, but they do not make the pass partial. */
  skipped: SkippedItem[];
}

/** The node itself did not answer (as opposed to answering with an error about one guest). */
function nodeSilent(e: ProxmoxApiError): boolean {
  return e.kind === 'timeout' || e.kind === 'network' || (e.kind === 'http' && (e.status === 595 || e.status === 596));
}

/** True when status/current shows a running VM with the agent enabled in its config. */
function wantsPing(status: unknown): boolean {
  const parsed = GuestStatusSchema.safeParse(status);
  if (!parsed.success) return false;
  const s = parsed.data;
  const running =
    mapProxmoxVm({ status: s.status, qmpstatus: s.qmpstatus ?? null, lock: s.lock ?? null }).state === 'running';
  return shouldPingAgent({ enabled: Boolean(s.agent), running });
}

/**
 * Fetches status/current and config of each guest (and pings the agent of running VMs that have
 * it enabled), `concurrency` calls at a time. A node whose call failed in a way retries could not
 * fix (timeout, connection, 595/596) is treated as not answering: its remaining guests are not
 * asked again in this pass, so one dead node costs one timeout, not one per guest.
 */
export async function fetchGuestDetails(
  client: ProxmoxClient,
  cluster: string,
  guests: readonly GuestEntry[],
  options: { concurrency: number; agentPing: boolean },
): Promise<GuestDetailsResult> {
  const out: GuestDetailsResult = { details: new Map(), fetched: 0, errors: [], skipped: [] };
  const silent = new Map<string, string>();
  const fail = (g: GuestEntry, path: string, err: unknown) => {
    const e = err instanceof ProxmoxApiError ? err : null;
    if (e && nodeSilent(e) && !silent.has(g.node)) silent.set(g.node, e.message);
    out.errors.push({
      scope: `proxmox:${cluster}/node/${g.node}`,
      path,
      status: e?.status ?? null,
      message: e?.message ?? String(err),
    });
  };
  /** One detail call; `ok: false` when it failed or was not asked (a JSON `null` answer is still an answer). */
  const call = async (
    g: GuestEntry,
    path: string,
    fn: () => Promise<unknown>,
  ): Promise<{ ok: boolean; data: unknown }> => {
    const down = silent.get(g.node);
    if (down !== undefined) {
      out.errors.push({
        scope: `proxmox:${cluster}/node/${g.node}`,
        path,
        status: null,
        message: `not asked: node ${g.node} did not answer (${down})`,
      });
      return { ok: false, data: null };
    }
    try {
      const data = await fn();
      out.fetched++;
      return { ok: true, data };
    } catch (err) {
      fail(g, path, err);
      return { ok: false, data: null };
    }
  };
  await mapLimit(guests, options.concurrency, async (g) => {
    const base = `/nodes/${g.node}/${g.type}/${g.vmid}`;
    const status = await call(g, `${base}/status/current`, () => getGuestStatus(client, g.node, g.type, g.vmid));
    const config = await call(g, `${base}/config`, () => getGuestConfig(client, g.node, g.type, g.vmid));
    const detail: GuestDetail = {
      status: status.data,
      config: config.data,
      failed: !status.ok || !config.ok,
      ping: null,
    };
    if (g.type === 'qemu' && options.agentPing && status.ok && wantsPing(status.data) && !silent.has(g.node)) {
      detail.ping = await pingGuestAgent(client, g.node, g.vmid);
      if (detail.ping.ok || detail.ping.status === 500) out.fetched++;
      else
        out.skipped.push({
          what: 'call',
          id: `${base}/agent/ping`,
          reason: `agent ping gave no answer (${detail.ping.message ?? 'no message'}): qemu_guest_agent left as it was`,
        });
    }
    out.details.set(guestKey(g), detail);
  });
  return out;
}
