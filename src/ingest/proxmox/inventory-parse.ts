import {
  ClusterEntrySchema,
  ClusterNodeSchema,
  GuestEntrySchema,
  NodeEntrySchema,
  StorageEntrySchema,
  type ClusterNode,
  type GuestEntry,
  type NodeEntry,
  type StorageEntry,
} from './api-shapes.js';

/** What `/cluster/status` says: the cluster's name (the id scope), quorum, and its nodes. */
export interface ParsedClusterStatus {
  name: string;
  /** A single node without a cluster: it names the scope itself. */
  standalone: boolean;
  quorate: boolean | null;
  version: number | null;
  nodes: ClusterNode[];
}

/** What `/cluster/resources` lists, by type; entries that failed validation are problems. */
export interface ParsedClusterResources {
  nodes: NodeEntry[];
  guests: GuestEntry[];
  storages: StorageEntry[];
  /** Malformed entries: the listing is then not a complete picture of the scope. */
  problems: Array<{ id: string | null; reason: string }>;
  /** Entries of types inventory does not model (`sdn`, `pool`): not problems, just not ours. */
  ignored: number;
}

/** A parse that either gives the value or says why not. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

function issues(error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> }): string {
  return error.issues.map((i) => `${i.path.map(String).join('.') || '(entry)'}: ${i.message}`).join('; ');
}

/**
 * Reads `/cluster/status`. Without a cluster entry (an unclustered node) the local node's name is
 * the scope. A listing without any usable name is refused: ids cannot be built from it.
 */
export function parseClusterStatus(data: unknown): Parsed<ParsedClusterStatus> {
  if (!Array.isArray(data)) return { ok: false, reason: '/cluster/status: expected a list of entries' };
  const nodes: ClusterNode[] = [];
  let cluster: ReturnType<typeof ClusterEntrySchema.parse> | null = null;
  for (const entry of data) {
    const type = (entry as { type?: unknown } | null)?.type;
    if (type === 'cluster') {
      const parsed = ClusterEntrySchema.safeParse(entry);
      if (!parsed.success) return { ok: false, reason: `/cluster/status cluster entry: ${issues(parsed.error)}` };
      cluster = parsed.data;
    } else if (type === 'node') {
      const parsed = ClusterNodeSchema.safeParse(entry);
      if (!parsed.success) return { ok: false, reason: `/cluster/status node entry: ${issues(parsed.error)}` };
      nodes.push(parsed.data);
    }
  }
  if (cluster) {
    return {
      ok: true,
      value: {
        name: cluster.name,
        standalone: false,
        quorate: cluster.quorate ?? null,
        version: cluster.version ?? null,
        nodes,
      },
    };
  }
  const local = nodes.find((n) => n.local) ?? nodes[0];
  if (!local || /\s/.test(local.name))
    return { ok: false, reason: '/cluster/status: neither a cluster entry nor a node to name the scope' };
  return { ok: true, value: { name: local.name, standalone: true, quorate: null, version: null, nodes } };
}

/** Reads `/cluster/resources`; a malformed entry is recorded, never fatal for the others. */
export function parseClusterResources(data: unknown): Parsed<ParsedClusterResources> {
  if (!Array.isArray(data)) return { ok: false, reason: '/cluster/resources: expected a list of entries' };
  const out: ParsedClusterResources = { nodes: [], guests: [], storages: [], problems: [], ignored: 0 };
  for (const entry of data) {
    const e = (entry ?? {}) as { type?: unknown; id?: unknown };
    const id = typeof e.id === 'string' ? e.id : null;
    const schema =
      e.type === 'node'
        ? NodeEntrySchema
        : e.type === 'qemu' || e.type === 'lxc'
          ? GuestEntrySchema
          : e.type === 'storage'
            ? StorageEntrySchema
            : null;
    if (!schema) {
      if (typeof e.type === 'string') out.ignored++;
      else out.problems.push({ id, reason: 'entry without a type' });
      continue;
    }
    const parsed = schema.safeParse(entry);
    if (!parsed.success) {
      out.problems.push({ id, reason: issues(parsed.error) });
      continue;
    }
    const v = parsed.data;
    if (v.type === 'node') out.nodes.push(v);
    else if (v.type === 'storage') out.storages.push(v);
    else out.guests.push(v);
  }
  return { ok: true, value: out };
}

/** `qemu/101`: the key a guest's detail fetches are filed under. */
export function guestKey(g: Pick<GuestEntry, 'type' | 'vmid'>): string {
  return `${g.type}/${g.vmid}`;
}

/** Names of nodes `/cluster/resources` reports online: only their guests' details are asked for. */
export function onlineNodes(resources: ParsedClusterResources): Set<string> {
  return new Set(resources.nodes.filter((n) => n.status === 'online').map((n) => n.node));
}
