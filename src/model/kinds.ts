import { z } from 'zod';

/** Every kind of Resource the graph holds. Closed: a kind not listed here cannot be stored. */
export const KINDS = ['cluster', 'host', 'vm', 'lxc', 'storage', 'network', 'service'] as const;
export const KindSchema = z.enum(KINDS);
export type Kind = z.infer<typeof KindSchema>;

/**
 * The Neo4j label each kind carries beside `Resource`. Labels are only ever taken from this table,
 * never from user input, so Cypher built with them cannot be injected.
 */
export const KIND_LABELS = {
  cluster: 'Cluster',
  host: 'Host',
  vm: 'Vm',
  lxc: 'Lxc',
  storage: 'Storage',
  network: 'Network',
  service: 'Service',
} as const satisfies Readonly<Record<Kind, string>>;

/**
 * The label of `kind` for Cypher text. A kind filter matches the label (served by the token lookup
 * index) rather than an index on `kind`, which every resource write would have to maintain.
 */
export function kindLabel(kind: string): string {
  if (!Object.hasOwn(KIND_LABELS, kind)) throw new Error(`not a kind: ${JSON.stringify(kind)}`);
  return KIND_LABELS[kind as Kind];
}

/** Where a Resource came from. `manual` resources are declared by agents or operators. */
export const PROVIDERS = ['proxmox', 'vcenter', 'manual'] as const;
export const ProviderSchema = z.enum(PROVIDERS);
export type Provider = z.infer<typeof ProviderSchema>;

/** A resource's place in its life; `missing` is set by ingest after a complete sync did not see it. */
export const LIFECYCLES = ['provisioning', 'active', 'deprecated', 'missing', 'destroyed'] as const;
export const LifecycleSchema = z.enum(LIFECYCLES);
export type Lifecycle = z.infer<typeof LifecycleSchema>;

/** Health is derived by the scheduler from probes; nothing else writes it. */
export const HEALTHS = ['healthy', 'degraded', 'unhealthy', 'unknown'] as const;
export const HealthSchema = z.enum(HEALTHS).describe('Derived by the scheduler from probes; nothing else writes it.');
export type Health = z.infer<typeof HealthSchema>;
