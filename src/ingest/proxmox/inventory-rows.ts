import {
  mapProxmoxNode,
  mapProxmoxStorage,
  resourceId,
  type Attributes,
  type EdgeInput,
  type ProxmoxClusterKey,
  type ProxmoxHostKey,
  type ProxmoxStorageKey,
} from '../../model/index.js';
import type { RawRow } from '../row-validation.js';
import type { ParsedClusterResources, ParsedClusterStatus } from './inventory-parse.js';

/** What the cluster, host and storage rows are built from: the two cluster-wide listings. */
export interface ClusterListing {
  /** The configured API base; recorded on the cluster resource to find it when the API is down. */
  apiUrl: string;
  status: ParsedClusterStatus;
  resources: ParsedClusterResources;
}

/** Attributes of one row; `K` is the kind's reserved keys (src/model/provider-attributes.ts), so no other key can be emitted. */
function attributes<K extends string>(
  entries: Record<K, Attributes[string] | undefined | null>,
): {
  attrs: Attributes;
  clear: string[];
} {
  const attrs: Attributes = {};
  const clear: string[] = [];
  for (const [k, v] of Object.entries<Attributes[string] | undefined | null>(entries)) {
    if (v === undefined || v === null || v === '') clear.push(k);
    else attrs[k] = v;
  }
  return { attrs, clear };
}

/** The cluster resource: online when quorate with every node online, degraded otherwise. */
export function clusterRow(input: ClusterListing, online: Set<string>): RawRow {
  const s = input.status;
  const total = Math.max(s.nodes.length, input.resources.nodes.length);
  // A node /cluster/resources does not list at all but /cluster/status reports online counts as up:
  // the listing is short (the pass is partial, see node-completeness.ts), the cluster is not degraded.
  const listed = new Set(input.resources.nodes.map((n) => n.node));
  const up = online.size + s.nodes.filter((n) => n.online === true && !listed.has(n.name)).length;
  const quorate = s.standalone ? true : s.quorate;
  const state = quorate === false || up < total ? 'degraded' : up === 0 ? 'unknown' : 'online';
  const rawState = `${s.standalone ? 'standalone' : `quorate:${quorate === null ? '?' : quorate ? 1 : 0}`}/${up} of ${total} nodes online`;
  const { attrs, clear } = attributes<ProxmoxClusterKey>({
    api_url: input.apiUrl,
    standalone: s.standalone,
    quorate: quorate ?? undefined,
    node_count: total,
    config_version: s.version ?? undefined,
    // Set on a cluster first recorded while unreachable; the real listing clears it.
    placeholder: undefined,
  });
  return {
    row: {
      id: resourceId('proxmox', s.name, 'cluster'),
      kind: 'cluster',
      provider: 'proxmox',
      name: s.name,
      state,
      rawState,
      attributes: attrs,
    },
    clear,
    coarse: false,
  };
}

/** One host per node, named in either listing; MEMBER_OF its cluster. */
export function hostRows(input: ClusterListing, edges: EdgeInput[], scope: string): RawRow[] {
  const cluster = input.status.name;
  const clusterId = resourceId('proxmox', cluster, 'cluster');
  const names = [
    ...new Set([...input.status.nodes.map((n) => n.name), ...input.resources.nodes.map((n) => n.node)]),
  ].sort();
  return names.map((name) => {
    const listed = input.resources.nodes.find((n) => n.node === name);
    const member = input.status.nodes.find((n) => n.name === name);
    const status = listed?.status ?? (member?.online === undefined ? undefined : member.online ? 'online' : 'offline');
    const mapped = mapProxmoxNode(status);
    const id = resourceId('proxmox', cluster, 'node', name);
    edges.push({ type: 'MEMBER_OF', fromId: id, toId: clusterId, provenance: 'observed', source: scope });
    const { attrs, clear } = attributes<ProxmoxHostKey>({
      node: name,
      nodeid: member?.nodeid,
      ip: member?.ip,
      maxcpu: listed?.maxcpu,
      maxmem: listed?.maxmem,
      maxdisk: listed?.maxdisk,
      subscription_level: listed?.level ?? member?.level,
    });
    return {
      row: {
        id,
        kind: 'host',
        provider: 'proxmox',
        name,
        state: mapped.state,
        rawState: mapped.rawState,
        attributes: attrs,
      },
      clear,
      coarse: false,
    };
  });
}

/** One storage per (node, storage) as /cluster/resources lists it; MEMBER_OF the cluster. */
export function storageRows(input: ClusterListing, edges: EdgeInput[], scope: string): RawRow[] {
  const cluster = input.status.name;
  const clusterId = resourceId('proxmox', cluster, 'cluster');
  return input.resources.storages.map((s) => {
    const id = resourceId('proxmox', cluster, 'storage', s.node, s.storage);
    const mapped = mapProxmoxStorage(s.status);
    edges.push({ type: 'MEMBER_OF', fromId: id, toId: clusterId, provenance: 'observed', source: scope });
    const content = (s.content ?? '').split(',').filter(Boolean);
    const { attrs, clear } = attributes<ProxmoxStorageKey>({
      storage: s.storage,
      node: s.node,
      plugintype: s.plugintype,
      content: content.length > 0 ? content.sort() : undefined,
      shared: s.shared,
      maxdisk: s.maxdisk,
    });
    return {
      row: {
        id,
        kind: 'storage',
        provider: 'proxmox',
        name: s.storage,
        state: mapped.state,
        rawState: mapped.rawState,
        attributes: attrs,
      },
      clear,
      coarse: false,
    };
  });
}
