import {
  mapVcenterDatastore,
  mapVcenterHost,
  mapVcenterVm,
  type Attributes,
  type MappedState,
  type VcenterClusterKey,
  type VcenterHostKey,
  type VcenterStorageKey,
  type VcenterVmKey,
} from '../../model/index.js';
import { cleanOptionalText, PROVIDER_NAME_MAX } from '../../model/provider-text.js';
import { normaliseMac } from '../identity/mac.js';
import type { ManagedObject } from './vmomi.js';

/**
 * Attribute and state extraction per managed object type. An attribute whose source property the
 * document carried but without a value (a powered-off VM's guest IPs) is cleared; one whose source
 * was not collected at all is left as stored — an import of only `runtime` must not wipe the rest.
 */

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const bool = (v: unknown): boolean | undefined =>
  typeof v === 'boolean' ? v : v === 'true' ? true : v === 'false' ? false : undefined;
/** Arrays as given; anything else is no items. */
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** A field of an array item, camelCase or PascalCase. */
const at = (item: unknown, key: string): unknown =>
  typeof item === 'object' && item !== null
    ? ((item as Record<string, unknown>)[key] ??
      (item as Record<string, unknown>)[key.charAt(0).toUpperCase() + key.slice(1)])
    : undefined;

/**
 * Collects attributes of one object and the keys to clear. `K` is the object type's reserved keys
 * (src/model/provider-attributes.ts): a key outside them does not type-check.
 */
export class Facts<K extends string = string> {
  readonly attrs: Attributes;
  readonly clear: string[] = [];

  constructor(private readonly o: ManagedObject) {
    this.attrs = { moref: o.ref.value };
  }

  /** The first of `paths` the document carries a value for. */
  first(...paths: string[]): unknown {
    return paths.map((p) => this.o.get(p)).find((v) => v !== undefined && v !== null);
  }

  present(...paths: string[]): boolean {
    return paths.some((p) => this.o.get(p) !== undefined);
  }

  set(key: K, value: Attributes[string] | undefined, present: boolean): void {
    if (value !== undefined && !(Array.isArray(value) && value.length === 0)) this.attrs[key] = value;
    else if (present) this.clear.push(key);
  }

  // Free text (a guest's host name, a vendor string) is provider text that reaches agents: cleaned
  // and capped like names; an all-invisible value counts as none.
  string(key: K, ...paths: string[]): void {
    this.set(key, cleanOptionalText(str(this.first(...paths)), PROVIDER_NAME_MAX) || undefined, this.present(...paths));
  }

  lower(key: K, ...paths: string[]): void {
    const text = cleanOptionalText(str(this.first(...paths)), PROVIDER_NAME_MAX) || undefined;
    this.set(key, text?.toLowerCase(), this.present(...paths));
  }

  number(key: K, ...paths: string[]): void {
    this.set(key, num(this.first(...paths)), this.present(...paths));
  }

  boolean(key: K, ...paths: string[]): void {
    this.set(key, bool(this.first(...paths)), this.present(...paths));
  }

  macs(key: K, values: unknown[], present: boolean): void {
    const found = values
      .map((v) => (typeof v === 'string' ? normaliseMac(v) : null))
      .filter((m): m is string => m !== null);
    this.set(key, [...new Set(found)].sort(), present);
  }
}

/** VirtualMachine: power/connection state, SMBIOS and instance UUIDs, guest NICs. */
export function vmFacts(f: Facts<VcenterVmKey>): MappedState<string> {
  f.lower('smbios_uuid', 'config.uuid', 'summary.config.uuid');
  f.lower('instance_uuid', 'config.instanceUuid', 'summary.config.instanceUuid');
  f.boolean('template', 'config.template', 'summary.config.template');
  f.string('guest_id', 'config.guestId', 'summary.config.guestId');
  f.string('guest_hostname', 'guest.hostName', 'summary.guest.hostName');
  f.number('num_cpu', 'summary.config.numCpu', 'config.hardware.numCPU');
  f.number('memory_mb', 'summary.config.memorySizeMB', 'config.hardware.memoryMB');
  const nics = list(f.first('guest.net'));
  const devices = list(f.first('config.hardware.device'));
  f.macs(
    'mac_addresses',
    [...nics.map((n) => at(n, 'macAddress')), ...devices.map((d) => at(d, 'macAddress'))],
    f.present('guest.net', 'config.hardware.device'),
  );
  const ips = nics.flatMap((n) => list(at(n, 'ipAddress'))).filter((x): x is string => typeof x === 'string');
  const single = str(f.first('guest.ipAddress', 'summary.guest.ipAddress'));
  f.set(
    'ip_addresses',
    ips.length > 0 ? [...new Set(ips)] : single ? [single] : undefined,
    f.present('guest.net', 'guest.ipAddress', 'summary.guest.ipAddress'),
  );
  return mapVcenterVm({
    powerState: str(f.first('runtime.powerState', 'summary.runtime.powerState')),
    connectionState: str(f.first('runtime.connectionState', 'summary.runtime.connectionState')),
  });
}

/** HostSystem: connection, maintenance and power; SMBIOS UUID, serial, physical and VMkernel NIC MACs. */
export function hostFacts(f: Facts<VcenterHostKey>): MappedState<string> {
  f.lower('smbios_uuid', 'hardware.systemInfo.uuid', 'summary.hardware.uuid');
  f.string('serial_number', 'hardware.systemInfo.serialNumber');
  f.string('vendor', 'hardware.systemInfo.vendor', 'summary.hardware.vendor');
  f.string('model', 'hardware.systemInfo.model', 'summary.hardware.model');
  f.string('esxi_version', 'config.product.version', 'summary.config.product.version');
  const pnics = list(f.first('config.network.pnic')).map((p) => at(p, 'mac'));
  const vnics = list(f.first('config.network.vnic')).map((v) => at(at(v, 'spec'), 'mac'));
  f.macs('mac_addresses', [...pnics, ...vnics], f.present('config.network.pnic', 'config.network.vnic'));
  const maintenance = bool(f.first('runtime.inMaintenanceMode', 'summary.runtime.inMaintenanceMode'));
  return mapVcenterHost({
    connectionState: str(f.first('runtime.connectionState', 'summary.runtime.connectionState')),
    powerState: str(f.first('runtime.powerState', 'summary.runtime.powerState')),
    inMaintenanceMode: maintenance ?? null,
  });
}

/** ClusterComputeResource: overallStatus green → online, yellow/red → degraded, gray → unknown. */
export function clusterFacts(f: Facts<VcenterClusterKey>): MappedState<string> {
  f.string('overall_status', 'overallStatus', 'summary.overallStatus');
  f.number('num_hosts', 'summary.numHosts');
  const status = str(f.first('overallStatus', 'summary.overallStatus'));
  const s = (status ?? '').toLowerCase();
  return {
    state: s === 'green' ? 'online' : s === 'yellow' || s === 'red' ? 'degraded' : 'unknown',
    rawState: status ?? '(none)',
  };
}

/** Datastore: summary.accessible decides the state. */
export function datastoreFacts(f: Facts<VcenterStorageKey>): MappedState<string> {
  f.string('datastore_type', 'summary.type');
  f.number('capacity', 'summary.capacity');
  f.string('url', 'summary.url');
  return mapVcenterDatastore(bool(f.first('summary.accessible')) ?? null);
}
