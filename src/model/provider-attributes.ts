import type { Kind, Provider } from './kinds.js';

/*
 * The attribute keys each provider's transform can report, per kind: the one catalogue the
 * transforms are typed against (src/ingest/proxmox/, src/ingest/vcenter/) and attribute ownership
 * reads. A key listed here is an observation: agents never write it, whether or not the
 * provider's last pass reported it (see planAttributeUpdate).
 */

/** Proxmox cluster (inventory-rows.ts clusterRow, adapter-condition.ts placeholder). */
export const PROXMOX_CLUSTER_KEYS = [
  'api_url',
  'standalone',
  'quorate',
  'node_count',
  'config_version',
  'placeholder',
] as const;
/** Proxmox node (inventory-rows.ts hostRows). */
export const PROXMOX_HOST_KEYS = ['node', 'nodeid', 'ip', 'maxcpu', 'maxmem', 'maxdisk', 'subscription_level'] as const;
/** Proxmox storage (inventory-rows.ts storageRows). */
export const PROXMOX_STORAGE_KEYS = ['storage', 'node', 'plugintype', 'content', 'shared', 'maxdisk'] as const;
/** Proxmox guests, qemu and lxc alike (inventory-transform.ts guestRow). */
export const PROXMOX_GUEST_KEYS = [
  'vmid',
  'node',
  'template',
  'hastate',
  'lock',
  'tags',
  'maxmem',
  'maxcpu',
  'maxdisk',
  'qmpstatus',
  'ha_managed',
  'agent',
  'qemu_guest_agent',
  'mac_addresses',
  'smbios_uuid',
  'serial_number',
  'ostype',
] as const;

/** vCenter VirtualMachine (inventory-facts.ts vmFacts; `moref` on every object). */
export const VCENTER_VM_KEYS = [
  'moref',
  'smbios_uuid',
  'instance_uuid',
  'template',
  'guest_id',
  'guest_hostname',
  'num_cpu',
  'memory_mb',
  'mac_addresses',
  'ip_addresses',
] as const;
/** vCenter HostSystem (inventory-facts.ts hostFacts). */
export const VCENTER_HOST_KEYS = [
  'moref',
  'smbios_uuid',
  'serial_number',
  'vendor',
  'model',
  'esxi_version',
  'mac_addresses',
] as const;
/** vCenter ClusterComputeResource (inventory-facts.ts clusterFacts). */
export const VCENTER_CLUSTER_KEYS = ['moref', 'overall_status', 'num_hosts'] as const;
/** vCenter Datastore (inventory-facts.ts datastoreFacts). */
export const VCENTER_STORAGE_KEYS = ['moref', 'datastore_type', 'capacity', 'url'] as const;
/** The vCenter server itself (adapter-condition.ts). */
export const VCENTER_SERVICE_KEYS = ['api_url', 'product', 'version', 'api_version', 'placeholder'] as const;

export type ProxmoxClusterKey = (typeof PROXMOX_CLUSTER_KEYS)[number];
export type ProxmoxHostKey = (typeof PROXMOX_HOST_KEYS)[number];
export type ProxmoxStorageKey = (typeof PROXMOX_STORAGE_KEYS)[number];
export type ProxmoxGuestKey = (typeof PROXMOX_GUEST_KEYS)[number];
export type VcenterVmKey = (typeof VCENTER_VM_KEYS)[number];
export type VcenterHostKey = (typeof VCENTER_HOST_KEYS)[number];
export type VcenterClusterKey = (typeof VCENTER_CLUSTER_KEYS)[number];
export type VcenterStorageKey = (typeof VCENTER_STORAGE_KEYS)[number];
export type VcenterServiceKey = (typeof VCENTER_SERVICE_KEYS)[number];

/** Providers whose ingest writes observations (a `manual:` resource has none). */
export type ObservingProvider = Exclude<Provider, 'manual'>;

/** Per provider and kind, every attribute key its ingest can report. */
export const PROVIDER_ATTRIBUTE_KEYS: Readonly<
  Record<ObservingProvider, Readonly<Partial<Record<Kind, readonly string[]>>>>
> = {
  proxmox: {
    cluster: PROXMOX_CLUSTER_KEYS,
    host: PROXMOX_HOST_KEYS,
    storage: PROXMOX_STORAGE_KEYS,
    vm: PROXMOX_GUEST_KEYS,
    lxc: PROXMOX_GUEST_KEYS,
  },
  vcenter: {
    cluster: VCENTER_CLUSTER_KEYS,
    host: VCENTER_HOST_KEYS,
    storage: VCENTER_STORAGE_KEYS,
    vm: VCENTER_VM_KEYS,
    service: VCENTER_SERVICE_KEYS,
  },
};

/** The keys `provider`'s ingest can report for a `kind` (none for `manual`). */
export function providerAttributeKeysOf(provider: Provider, kind: Kind): readonly string[] {
  return provider === 'manual' ? [] : (PROVIDER_ATTRIBUTE_KEYS[provider][kind] ?? []);
}

/**
 * Why an agent may not write `key` on a `provider` resource of `kind`, or null. Reserved: every key
 * any provider can report for the kind, so `qemu_guest_agent` stays Proxmox's observation on a
 * vCenter VM too (a reader cannot tell whose semantics a value has). `manual:` resources have no
 * observations: nothing is reserved on them.
 */
export function reservedAttributeReason(provider: Provider, kind: Kind, key: string): string | null {
  if (provider === 'manual') return null;
  const reporters = (Object.keys(PROVIDER_ATTRIBUTE_KEYS) as ObservingProvider[]).filter((p) =>
    providerAttributeKeysOf(p, kind).includes(key),
  );
  if (reporters.length === 0) return null;
  if (reporters.includes(provider as ObservingProvider)) {
    return `${key} is an observation the ${provider} provider reports for a ${kind} (reserved whether or not its last pass reported it); an agent cannot write it`;
  }
  return `${key} is an observation the ${reporters.join(' and ')} provider reports for a ${kind}; an agent cannot write it, on a ${provider} ${kind} either`;
}

/** A resource's attribute values a provider wrote (its ingest), never a principal's. */
export function observedAttributes<V>(resource: {
  attributes: Readonly<Record<string, V>>;
  providerAttributeKeys: readonly string[];
}): Record<string, V> {
  const out: Record<string, V> = {};
  for (const key of resource.providerAttributeKeys) {
    if (Object.hasOwn(resource.attributes, key)) out[key] = resource.attributes[key]!;
  }
  return out;
}
