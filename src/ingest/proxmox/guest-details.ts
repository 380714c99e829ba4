import { mapProxmoxVm, resourceId } from '../../model/index.js';
import { mapLimit } from '../map-limit.js';
import type { ScopeError, SkippedItem } from '../report.js';
import type { ProxmoxClient } from './client.js';
import { ProxmoxApiError } from './client-error.js';
import { parseAgentEnabled } from './guest-config.js';
import { getGuestConfig, getGuestStatus, getNodeGuests, pingGuestAgent } from './inventory-get.js';
import { guestKey } from './inventory-parse.js';
import { GuestConfigSchema, GuestStatusSchema, type GuestEntry } from './api-shapes.js';
import type { GuestDetail } from './inventory-transform.js';
import {
  agentPingDue,
  CONFIG_READ_REASONS,
  configReadReason,
  nextDue,
  type ConfigReadReason,
  type ProxmoxPollState,
} from './poll-state.js';

/** The detail calls' answers per guest, with what failed. */
export interface GuestDetailsResult {
  details: Map<string, GuestDetail>;
  /** Calls answered. */
  fetched: number;
  /** Failed list, status/current or config calls, filed under the node's scope: each makes the pass partial. */
  errors: ScopeError[];
  /** Agent pings that gave no usable answer: reported, but they do not make the pass partial. */
  skipped: SkippedItem[];
  /** Config reads this pass, by reason. */
  configReads: Record<ConfigReadReason, number>;
  /** Guests whose node list did not include them, asked on their own (status/current). */
  statusFallbacks: number;
  agentPings: number;
  /** What each node's guest list answered, by `node|qemu` / `node|lxc`: the guest keys it listed. */
  nodeLists: Map<string, ReadonlySet<string>>;
}

/** How the detail stage decides what to read. */
export interface GuestDetailsOptions {
  /** Nodes read at once, and guests worked on at once (the client bounds requests in flight). */
  concurrency: number;
  agentPing: boolean;
  /**
   * Nodes whose two guest lists are asked even when the listing places no guest of a family there
   * (the nodes `/cluster/status` reports online): what they answer is checked against the listing.
   */
  nodes?: readonly string[];
  /** What earlier passes read; updated in place. */
  state: ProxmoxPollState;
  now: number;
  /** Every config is re-read within this period (AITIA_PROXMOX_CONFIG_REFRESH_SECONDS). */
  configRefreshMs: number;
  /** Agent cadence per running VM (AITIA_PROXMOX_AGENT_SECONDS). */
  agentPeriodMs: number;
}

/** The node itself did not answer (as opposed to answering with an error about one guest). */
function nodeSilent(e: ProxmoxApiError): boolean {
  return e.kind === 'timeout' || e.kind === 'network' || (e.kind === 'http' && (e.status === 595 || e.status === 596));
}

/** True when a list entry (or status/current) shows a VM QEMU really runs. */
function isRunning(status: unknown): boolean {
  const parsed = GuestStatusSchema.safeParse(status);
  if (!parsed.success) return false;
  const s = parsed.data;
  return mapProxmoxVm({ status: s.status, qmpstatus: s.qmpstatus ?? null, lock: s.lock ?? null }).state === 'running';
}

/**
 * Reads guest state per node, not per guest: `GET /nodes/{node}/qemu?full=1` and `…/lxc` (only the
 * families the cluster listing places on the node) carry every guest's status, qmpstatus and lock.
 * status/current is asked only for a guest the listing places on a node whose list lacks it (it
 * moved or appeared between the two reads). A config is read only when it can have changed (see
 * {@link configReadReason}); otherwise the remembered one is used, so no attribute or edge is dropped
 * because a read was skipped. Agent pings go to running VMs whose config enables the agent, on their
 * own cadence. A node that failed in a way retries could not fix (timeout, connection, 595/596) is
 * not asked again in this pass: one dead node costs one timeout, not one per guest.
 */
export async function fetchGuestDetails(
  client: ProxmoxClient,
  cluster: string,
  guests: readonly GuestEntry[],
  options: GuestDetailsOptions,
): Promise<GuestDetailsResult> {
  const out: GuestDetailsResult = {
    details: new Map(),
    fetched: 0,
    errors: [],
    skipped: [],
    configReads: Object.fromEntries(CONFIG_READ_REASONS.map((r) => [r, 0])) as Record<ConfigReadReason, number>,
    statusFallbacks: 0,
    agentPings: 0,
    nodeLists: new Map(),
  };
  const { state, now } = options;
  const silent = new Map<string, string>();
  const nodeScope = (node: string) => `proxmox:${cluster}/node/${node}`;
  const fail = (node: string, path: string, err: unknown) => {
    const e = err instanceof ProxmoxApiError ? err : null;
    if (e && nodeSilent(e) && !silent.has(node)) silent.set(node, e.message);
    out.errors.push({ scope: nodeScope(node), path, status: e?.status ?? null, message: e?.message ?? String(err) });
  };
  /** One call; `ok: false` when it failed or was not asked (a JSON `null` answer is still an answer). */
  const call = async (
    node: string,
    path: string,
    fn: () => Promise<unknown>,
  ): Promise<{ ok: boolean; data: unknown }> => {
    const down = silent.get(node);
    if (down !== undefined) {
      out.errors.push({
        scope: nodeScope(node),
        path,
        status: null,
        message: `not asked: node ${node} did not answer (${down})`,
      });
      return { ok: false, data: null };
    }
    try {
      const data = await fn();
      out.fetched++;
      return { ok: true, data };
    } catch (err) {
      fail(node, path, err);
      return { ok: false, data: null };
    }
  };

  // 1. One list per node and guest family: `qemu/101` → its entry, for the families each node answered.
  const byNode = new Map<string, Set<'qemu' | 'lxc'>>();
  for (const g of guests) byNode.set(g.node, (byNode.get(g.node) ?? new Set()).add(g.type));
  for (const node of options.nodes ?? []) byNode.set(node, new Set(['qemu', 'lxc']));
  const listed = new Map<string, Map<string, unknown>>();
  await mapLimit([...byNode.keys()].sort(), options.concurrency, async (node) => {
    for (const type of ['qemu', 'lxc'] as const) {
      if (!byNode.get(node)!.has(type)) continue;
      const path = `/nodes/${node}/${type}`;
      const r = await call(node, path, () => getNodeGuests(client, node, type));
      if (!r.ok) continue;
      if (!Array.isArray(r.data)) {
        out.errors.push({ scope: nodeScope(node), path, status: null, message: `${path}: expected a list of guests` });
        continue;
      }
      const entries = new Map<string, unknown>();
      for (const entry of r.data) {
        const vmid = Number((entry as { vmid?: unknown } | null)?.vmid);
        if (Number.isInteger(vmid) && vmid > 0) entries.set(`${type}/${vmid}`, entry);
      }
      listed.set(`${node}|${type}`, entries);
      out.nodeLists.set(`${node}|${type}`, new Set(entries.keys()));
    }
  });

  // 2. Per guest: its status from the list (status/current when the list lacks it), config when due, agent when due.
  await mapLimit(guests, options.concurrency, async (g) => {
    const id = resourceId('proxmox', cluster, g.type, g.vmid);
    const base = `/nodes/${g.node}/${g.type}/${g.vmid}`;
    const record = state.guests.get(id);
    const list = listed.get(`${g.node}|${g.type}`);
    let status: { ok: boolean; data: unknown };
    if (!list) status = { ok: false, data: null };
    else if (list.has(guestKey(g))) status = { ok: true, data: list.get(guestKey(g)) };
    else {
      out.statusFallbacks++;
      status = await call(g.node, `${base}/status/current`, () => getGuestStatus(client, g.node, g.type, g.vmid));
    }

    const reason = configReadReason({ record, node: g.node, pending: state.pendingConfig.has(id), now });
    let config: unknown = record?.config ?? null;
    let configOk = reason === null && record !== undefined;
    if (reason !== null && list) {
      const read = await call(g.node, `${base}/config`, () => getGuestConfig(client, g.node, g.type, g.vmid));
      out.configReads[reason]++;
      const parsed = read.ok ? GuestConfigSchema.safeParse(read.data) : null;
      if (read.ok) config = read.data;
      configOk = read.ok;
      if (parsed?.success) {
        state.guests.set(id, {
          node: g.node,
          config: parsed.data,
          configReadAt: now,
          nextConfigAt: nextDue(id, now, options.configRefreshMs, reason === 'first'),
          agentPingAt: record?.agentPingAt ?? null,
          nextPingAt: record?.nextPingAt ?? now,
          running: record?.running ?? false,
        });
        state.pendingConfig.delete(id);
      }
    } else if (reason !== null) {
      // The node's list failed: its guests' configs wait for a pass where the node answers.
      out.errors.push({
        scope: nodeScope(g.node),
        path: `${base}/config`,
        status: null,
        message: `not asked: the ${g.type} list of node ${g.node} did not answer`,
      });
      configOk = false;
    }

    const detail: GuestDetail = { status: status.data, config, failed: !status.ok || !configOk, ping: null };
    const running = g.type === 'qemu' && status.ok && isRunning(status.data);
    const current = state.guests.get(id);
    const cfg = config !== null ? GuestConfigSchema.safeParse(config) : null;
    const enabled = cfg?.success ? parseAgentEnabled(cfg.data) : false;
    if (
      g.type === 'qemu' &&
      options.agentPing &&
      status.ok &&
      !silent.has(g.node) &&
      agentPingDue({ enabled, running, record: current, now })
    ) {
      detail.ping = await pingGuestAgent(client, g.node, g.vmid);
      out.agentPings++;
      if (current) {
        current.nextPingAt = nextDue(id, now, options.agentPeriodMs, current.agentPingAt === null);
        current.agentPingAt = now;
      }
      if (detail.ping.ok || detail.ping.status === 500) out.fetched++;
      else
        out.skipped.push({
          what: 'call',
          id: `${base}/agent/ping`,
          reason: `agent ping gave no answer (${detail.ping.message ?? 'no message'}): qemu_guest_agent left as it was`,
        });
    }
    if (current && status.ok) current.running = running;
    out.details.set(guestKey(g), detail);
  });
  return out;
}
