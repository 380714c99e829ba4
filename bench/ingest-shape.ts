/**
 * The synthetic inventory of issue 18's reference measurement: 1 cluster, 2 % hosts, 80 % guests,
 * the rest services (50,000 → 1 / 1,000 / 40,000 / 8,999), ~2.16 relationships per resource:
 * host MEMBER_OF cluster; guest RUNS_ON host and DEPENDS_ON cluster; service RUNS_ON a guest,
 * DEPENDS_ON another guest and DEPENDS_ON a host (50,000 → 107,997). The same rows come as aitia
 * inventory rows and edges, and as the reference loader's items.
 */
import type { InventoryRow } from '../src/ingest/inventory-load.js';
import type { EdgeInput, ResourceInput } from '../src/model/index.js';
import type { ReferenceItem, ReferenceLabel } from './ingest-reference.js';

export interface Shape {
  rows: InventoryRow[];
  edges: EdgeInput[];
  reference: Map<ReferenceLabel, ReferenceItem[]>;
  items: number;
}

export function syntheticShape(prefix: string, resources: number): Shape {
  const hosts = Math.max(1, Math.round(resources * 0.02));
  const guests = Math.max(1, Math.round(resources * 0.8));
  const services = Math.max(0, resources - 1 - hosts - guests);
  const source = `proxmox:${prefix}`;
  const cluster = `proxmox:${prefix}/cluster`;
  const hostId = (i: number) => `proxmox:${prefix}/node/n${i}`;
  const guestId = (i: number) => `proxmox:${prefix}/qemu/${100 + i}`;
  const serviceId = (i: number) => `proxmox:${prefix}/service/s${i}`;
  const rows: InventoryRow[] = [];
  const edges: EdgeInput[] = [];
  const reference = new Map<ReferenceLabel, ReferenceItem[]>([
    ['RefCluster', []],
    ['RefHost', []],
    ['RefGuest', []],
    ['RefService', []],
  ]);
  const add = (label: ReferenceLabel, r: Omit<ResourceInput, 'provider'>, targets: Record<string, string>) => {
    rows.push({ resource: { ...r, provider: 'proxmox' }, clear: [] });
    const props = { name: r.name, state: r.state, rawState: r.rawState ?? null, ...r.attributes };
    reference.get(label)!.push({ id: r.id, props, ...targets });
  };
  const edge = (type: EdgeInput['type'], fromId: string, toId: string) =>
    edges.push({ type, fromId, toId, provenance: 'observed', source });

  add('RefCluster', { id: cluster, kind: 'cluster', name: prefix, state: 'online', rawState: 'quorate:1' }, {});
  for (let i = 0; i < hosts; i++) {
    const id = hostId(i);
    add(
      'RefHost',
      {
        id,
        kind: 'host',
        name: `n${i}`,
        state: 'online',
        rawState: 'online',
        attributes: { node: `n${i}`, maxcpu: 64 },
      },
      { cluster_id: cluster },
    );
    edge('MEMBER_OF', id, cluster);
  }
  for (let i = 0; i < guests; i++) {
    const id = guestId(i);
    const attributes = { vmid: 100 + i, tags: ['bench', `t${i % 13}`] };
    add(
      'RefGuest',
      { id, kind: 'vm', name: `vm${i}`, state: i % 7 === 0 ? 'stopped' : 'running', rawState: 'running', attributes },
      { host_id: hostId(i % hosts), cluster_id: cluster },
    );
    edge('RUNS_ON', id, hostId(i % hosts));
    edge('DEPENDS_ON', id, cluster);
  }
  for (let i = 0; i < services; i++) {
    const id = serviceId(i);
    const [on, dep, host] = [guestId(i % guests), guestId((i * 7 + 1) % guests), hostId(i % hosts)];
    add(
      'RefService',
      {
        id,
        kind: 'service',
        name: `svc${i}`,
        state: 'up',
        rawState: 'active',
        attributes: { port: 8000 + (i % 1000) },
      },
      { guest_id: on, dep_guest_id: dep, host_id: host },
    );
    edge('RUNS_ON', id, on);
    edge('DEPENDS_ON', id, dep);
    edge('DEPENDS_ON', id, host);
  }
  return { rows, edges, reference, items: rows.length + edges.length };
}
