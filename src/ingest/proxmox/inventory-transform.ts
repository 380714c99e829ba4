import {
  mapProxmoxLxc,
  mapProxmoxVm,
  resourceId,
  type Attributes,
  type EdgeInput,
  type MappedState,
  type ProxmoxGuestKey,
} from '../../model/index.js';
import { cleanProviderText, PROVIDER_NAME_MAX } from '../../model/provider-text.js';
import type { SkippedItem } from '../report.js';
import { guestAgentState, type AgentPingAnswer } from './guest-agent.js';
import {
  parseAgentEnabled,
  parseGuestVolumes,
  parseMacAddresses,
  parseSmbiosSerial,
  parseSmbiosUuid,
} from './guest-config.js';
import { guestKey, onlineNodes } from './inventory-parse.js';
import { GuestConfigSchema, GuestStatusSchema, type GuestEntry } from './api-shapes.js';
import { validRows, type RawRow, type ResourceRow } from '../row-validation.js';
import { clusterRow, hostRows, storageRows, type ClusterListing } from './inventory-rows.js';

export type { ResourceRow } from '../row-validation.js';

/**
 * What the detail reads of one guest gave; null fields were not fetched or failed. `status` is its
 * entry in the node's guest list (or its status/current), `config` the config read this pass or
 * the one remembered from an earlier pass.
 */
export interface GuestDetail {
  status: unknown | null;
  config: unknown | null;
  /** Its status or config read failed: the guest's row is coarse (see {@link ResourceRow.coarse}). */
  failed: boolean;
  ping: AgentPingAnswer | null;
}

/** Everything the transform needs, already fetched and parsed. */
export interface ProxmoxInventoryInput extends ClusterListing {
  /** Keyed by {@link guestKey}. */
  details: ReadonlyMap<string, GuestDetail>;
}

/** Rows and edges for one cluster, plus what was left out and why. */
export interface ProxmoxInventory {
  cluster: string;
  /** `proxmox:<cluster>`: the id prefix (with `/`) and the source of every observed edge. */
  scope: string;
  rows: ResourceRow[];
  edges: EdgeInput[];
  skipped: SkippedItem[];
  /** Entries that could not be turned into rows: the scope is then not completely seen. */
  problems: string[];
}

/**
 * Attribute keys each source owns: cleared when that source answered without them. Every key a
 * guest row can carry is one of PROXMOX_GUEST_KEYS (src/model/provider-attributes.ts), which
 * reserves them from agents.
 */
const LIST_KEYS: readonly ProxmoxGuestKey[] = [
  'vmid',
  'node',
  'template',
  'hastate',
  'lock',
  'tags',
  'maxmem',
  'maxcpu',
  'maxdisk',
];
const STATUS_KEYS: readonly ProxmoxGuestKey[] = ['qmpstatus', 'ha_managed', 'hastate', 'lock'];
const CONFIG_KEYS: readonly ProxmoxGuestKey[] = ['mac_addresses', 'smbios_uuid', 'serial_number', 'ostype'];

function splitTags(tags: string | undefined): string[] | undefined {
  const list = (tags ?? '')
    .split(/[;,\s]+/)
    .map((t) => cleanProviderText(t, PROVIDER_NAME_MAX))
    .filter(Boolean);
  return list.length > 0 ? list : undefined;
}

function guestRow(
  g: GuestEntry,
  input: ProxmoxInventoryInput,
  online: Set<string>,
  edges: EdgeInput[],
  scope: string,
  problems: string[],
): RawRow {
  const cluster = input.status.name;
  const id = resourceId('proxmox', cluster, g.type, g.vmid);
  const detail = input.details.get(guestKey(g));
  const statusParse = detail?.status != null ? GuestStatusSchema.safeParse(detail.status) : null;
  const status = statusParse?.success ? statusParse.data : null;
  const configParse = detail?.config != null ? GuestConfigSchema.safeParse(detail.config) : null;
  const config = configParse?.success ? configParse.data : null;
  const nodeOnline = online.has(g.node);
  // An answer that arrived but cannot be read leaves the guest half-seen: the pass is not complete.
  if (detail && !detail.failed && (!status || !config)) {
    const what = !status
      ? `status (${statusParse?.success === false ? statusParse.error.issues[0]?.message : 'empty'})`
      : 'config (not an object)';
    problems.push(`${g.type}/${g.vmid} on ${g.node}: unreadable ${what}`);
  }
  const attrs: Partial<Record<ProxmoxGuestKey, Attributes[string]>> = {};
  const put = (k: ProxmoxGuestKey, v: Attributes[string] | undefined | null) => {
    if (v !== undefined && v !== null && v !== '') attrs[k] = v;
  };
  const managed = new Set<ProxmoxGuestKey>(LIST_KEYS);
  put('vmid', g.vmid);
  put('node', g.node);
  put('template', Boolean(g.template || status?.template));
  put('hastate', g.hastate);
  put('lock', g.lock);
  put('tags', splitTags(g.tags));
  put('maxmem', g.maxmem);
  put('maxcpu', g.maxcpu);
  put('maxdisk', g.maxdisk);

  let mapped: MappedState<string>;
  if (!nodeOnline) {
    // Proxmox lists guests of an offline node from the cluster config with status `unknown`.
    const rawState = `${g.status ?? '(none)'}/node ${g.node} offline`;
    mapped = g.type === 'qemu' ? { state: 'unreachable', rawState } : { state: 'unknown', rawState };
  } else if (status) {
    const raw = { status: status.status, qmpstatus: status.qmpstatus ?? null, lock: status.lock ?? null };
    mapped = g.type === 'qemu' ? mapProxmoxVm(raw) : mapProxmoxLxc(raw);
    for (const k of STATUS_KEYS) managed.add(k);
    // The node's list is fresher than the ~10 s old cluster listing: its lock wins. HA state is in
    // status/current's `ha` only; a node list has none, and the listing's `hastate` (set only for
    // HA-managed guests) says it.
    delete attrs.lock;
    put('lock', status.lock);
    if (status.ha) {
      delete attrs.hastate;
      put('ha_managed', status.ha.managed ?? false);
      if (status.ha.managed) put('hastate', status.ha.state ?? g.hastate);
    } else put('ha_managed', g.hastate !== undefined);
    if (g.type === 'qemu') {
      put('qmpstatus', status.qmpstatus);
      // The config says whether the agent is enabled; status/current repeats it, a node list does not.
      const enabled = config ? parseAgentEnabled(config) : status.agent;
      if (enabled !== undefined) {
        managed.add('agent');
        put('agent', enabled);
        const agentState = guestAgentState({
          enabled,
          running: mapped.state === 'running',
          ping: detail?.ping ?? null,
        });
        if (agentState) {
          managed.add('qemu_guest_agent');
          put('qemu_guest_agent', agentState);
        }
      }
    }
  } else {
    const raw = { status: g.status ?? null, lock: g.lock ?? null };
    mapped = g.type === 'qemu' ? mapProxmoxVm(raw) : mapProxmoxLxc(raw);
  }

  edges.push({
    type: 'RUNS_ON',
    fromId: id,
    toId: resourceId('proxmox', cluster, 'node', g.node),
    provenance: 'observed',
    source: scope,
  });
  if (config) {
    for (const k of CONFIG_KEYS) managed.add(k);
    const macs = parseMacAddresses(config);
    put('mac_addresses', macs.length > 0 ? macs : undefined);
    put('smbios_uuid', parseSmbiosUuid(config));
    put('serial_number', parseSmbiosSerial(config));
    put('ostype', typeof config.ostype === 'string' ? config.ostype : undefined);
    const byStorage = new Map<string, string[]>();
    for (const v of parseGuestVolumes(config))
      byStorage.set(v.storage, [...(byStorage.get(v.storage) ?? []), `${v.key}=${v.volume}`]);
    for (const [storage, volumes] of byStorage) {
      const toId = resourceId('proxmox', cluster, 'storage', g.node, storage);
      edges.push({
        type: 'STORED_ON',
        fromId: id,
        toId,
        provenance: 'observed',
        source: scope,
        evidence: volumes.join(' '),
      });
    }
  }
  // The name is whatever the guest's owner typed: data, cleaned of controls and capped (provider-text.ts).
  const given = cleanProviderText(g.name ?? status?.name ?? '', PROVIDER_NAME_MAX);
  const name = given !== '' ? given : `${g.type === 'qemu' ? 'VM' : 'CT'} ${g.vmid}`;
  return {
    row: {
      id,
      kind: g.type === 'qemu' ? 'vm' : 'lxc',
      provider: 'proxmox',
      name,
      state: mapped.state,
      rawState: mapped.rawState,
      attributes: attrs as Attributes,
    },
    clear: [...managed].filter((k) => !(k in attrs)),
    coarse: nodeOnline && (!status || !config || Boolean(detail?.failed)),
  };
}

/**
 * Pure: the cluster's listing and per-guest details → resource rows and observed edges.
 * Cluster `proxmox:<c>/cluster`, host `proxmox:<c>/node/<node>`, guests `proxmox:<c>/qemu|lxc/<vmid>`,
 * storage `proxmox:<c>/storage/<node>/<storage>`; MEMBER_OF host|storage → cluster, RUNS_ON
 * guest → host, STORED_ON guest → storage (from the config's volume lines).
 */
export function transformProxmoxInventory(input: ProxmoxInventoryInput): ProxmoxInventory {
  const cluster = input.status.name;
  const scope = `proxmox:${cluster}`;
  const online = onlineNodes(input.resources);
  const edges: EdgeInput[] = [];
  const skipped: SkippedItem[] = [];
  const problems = input.resources.problems.map((p) => `/cluster/resources entry ${p.id ?? '(no id)'}: ${p.reason}`);
  for (const p of input.resources.problems) skipped.push({ what: 'row', id: p.id, reason: p.reason });
  const raw: Array<() => RawRow | RawRow[]> = [
    () => clusterRow(input, online),
    () => hostRows(input, edges, scope),
    () => storageRows(input, edges, scope),
    ...input.resources.guests.map((g) => () => guestRow(g, input, online, edges, scope, problems)),
  ];
  const rows = validRows(raw, skipped, problems);
  return { cluster, scope, rows, edges: dedupeEdges(edges), skipped, problems };
}

function dedupeEdges(edges: EdgeInput[]): EdgeInput[] {
  const seen = new Map<string, EdgeInput>();
  for (const e of edges) seen.set(`${e.type}|${e.fromId}|${e.toId}`, seen.get(`${e.type}|${e.fromId}|${e.toId}`) ?? e);
  return [...seen.values()];
}
