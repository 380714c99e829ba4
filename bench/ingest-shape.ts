/**
 * The synthetic inventory of issue 18's reference measurement: 1 cluster, 2 % hosts, 80 % guests,
 * the rest services (50,000 → 1 / 1,000 / 40,000 / 8,999), ~2.16 relationships per resource:
 * host MEMBER_OF cluster; guest RUNS_ON host and DEPENDS_ON cluster; service RUNS_ON a guest,
 * DEPENDS_ON another guest and DEPENDS_ON a host (50,000 → 107,997). The same rows come as aitia
 * inventory rows (each with its outgoing edges) and as the reference loader's items.
 *
 * Generated, never held: `rows` and each label of `reference` make the rows afresh on every
 * iteration, so the bench measures the loaders' memory and not a 200,000-row array of its own.
 */
import type { InventoryRow } from '../src/ingest/inventory-load.js';
import type { EdgeInput, ResourceInput } from '../src/model/index.js';
import type { ReferenceItem, ReferenceLabel } from './ingest-reference.js';

export interface Shape {
  rows: Iterable<InventoryRow>;
  reference: ReadonlyMap<ReferenceLabel, Iterable<ReferenceItem>>;
  resources: number;
  edges: number;
  items: number;
}

interface Item {
  label: ReferenceLabel;
  resource: ResourceInput;
  edges: EdgeInput[];
  targets: Record<string, string>;
}

const reiterable = <T>(gen: () => Generator<T>): Iterable<T> => ({ [Symbol.iterator]: gen });

export function syntheticShape(prefix: string, resources: number): Shape {
  const hosts = Math.max(1, Math.round(resources * 0.02));
  const guests = Math.max(1, Math.round(resources * 0.8));
  const services = Math.max(0, resources - 1 - hosts - guests);
  const source = `proxmox:${prefix}`;
  const cluster = `proxmox:${prefix}/cluster`;
  const hostId = (i: number) => `proxmox:${prefix}/node/n${i}`;
  const guestId = (i: number) => `proxmox:${prefix}/qemu/${100 + i}`;
  const serviceId = (i: number) => `proxmox:${prefix}/service/s${i}`;
  const edge = (type: EdgeInput['type'], fromId: string, toId: string): EdgeInput => ({
    type,
    fromId,
    toId,
    provenance: 'observed',
    source,
  });
  const item = (
    label: ReferenceLabel,
    r: Omit<ResourceInput, 'provider'>,
    targets: Record<string, string>,
    edges: EdgeInput[],
  ): Item => ({ label, resource: { ...r, provider: 'proxmox' }, edges, targets });

  function* items(only?: ReferenceLabel): Generator<Item> {
    if (!only || only === 'RefCluster')
      yield item(
        'RefCluster',
        { id: cluster, kind: 'cluster', name: prefix, state: 'online', rawState: 'quorate:1' },
        {},
        [],
      );
    if (!only || only === 'RefHost')
      for (let i = 0; i < hosts; i++) {
        const id = hostId(i);
        const attributes = { node: `n${i}`, maxcpu: 64 };
        const r = { id, kind: 'host', name: `n${i}`, state: 'online', rawState: 'online', attributes } as const;
        yield item('RefHost', r, { cluster_id: cluster }, [edge('MEMBER_OF', id, cluster)]);
      }
    if (!only || only === 'RefGuest')
      for (let i = 0; i < guests; i++) {
        const id = guestId(i);
        const attributes = { vmid: 100 + i, tags: ['bench', `t${i % 13}`] };
        const state = i % 7 === 0 ? 'stopped' : 'running';
        const r = { id, kind: 'vm', name: `vm${i}`, state, rawState: 'running', attributes } as const;
        const host = hostId(i % hosts);
        yield item('RefGuest', r, { host_id: host, cluster_id: cluster }, [
          edge('RUNS_ON', id, host),
          edge('DEPENDS_ON', id, cluster),
        ]);
      }
    if (!only || only === 'RefService')
      for (let i = 0; i < services; i++) {
        const id = serviceId(i);
        const [on, dep, host] = [guestId(i % guests), guestId((i * 7 + 1) % guests), hostId(i % hosts)];
        const attributes = { port: 8000 + (i % 1000) };
        const r = { id, kind: 'service', name: `svc${i}`, state: 'up', rawState: 'active', attributes } as const;
        yield item('RefService', r, { guest_id: on, dep_guest_id: dep, host_id: host }, [
          edge('RUNS_ON', id, on),
          edge('DEPENDS_ON', id, dep),
          edge('DEPENDS_ON', id, host),
        ]);
      }
  }

  const rows = reiterable(function* () {
    for (const it of items()) yield { resource: it.resource, clear: [], edges: it.edges };
  });
  const referenceOf = (label: ReferenceLabel) =>
    reiterable(function* () {
      for (const { resource: r, targets } of items(label)) {
        const props = { name: r.name, state: r.state, rawState: r.rawState ?? null, ...r.attributes };
        yield { id: r.id, props, ...targets } as ReferenceItem;
      }
    });
  const labels: ReferenceLabel[] = ['RefCluster', 'RefHost', 'RefGuest', 'RefService'];
  const count = 1 + hosts + guests + services;
  const edges = hosts + 2 * guests + 3 * services;
  return {
    rows,
    reference: new Map(labels.map((l) => [l, referenceOf(l)])),
    resources: count,
    edges,
    items: count + edges,
  };
}
