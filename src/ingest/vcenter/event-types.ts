import type { EventType } from '../../model/events.js';

/**
 * What a vCenter event class means. `subject: 'host'` events concern the HostSystem named in the
 * event's `host` argument; all others concern the VM in `vm` when there is one.
 */
export interface VcenterEventTypeInfo {
  type: EventType;
  subject: 'vm' | 'host';
  /** Failure events are stored with status class `error`. */
  failure?: true;
  /** The event argument naming the host when it is not `host` (DasHostFailedEvent: `failedHost`). */
  hostArgument?: string;
}

const vm = (type: EventType): VcenterEventTypeInfo => ({ type, subject: 'vm' });
const host = (type: EventType): VcenterEventTypeInfo => ({ type, subject: 'host' });

/**
 * vCenter event class → normalised type, explicit (PROVIDER_FORMATS.md "vCenter events"). The
 * guest-request events (VmGuestShutdownEvent …) are asks to the guest OS: the power-off event
 * follows later. Starting/stopping events open a power task; the *ed event closes it.
 */
export const VCENTER_EVENT_TYPES: Readonly<Record<string, VcenterEventTypeInfo>> = {
  VmPoweredOnEvent: vm('vm_start'),
  DrsVmPoweredOnEvent: vm('vm_start'),
  VmPoweredOffEvent: vm('vm_stop'),
  VmSuspendedEvent: vm('vm_suspend'),
  VmResettingEvent: vm('vm_reset'),
  VmStartingEvent: vm('vm_starting'),
  VmStoppingEvent: vm('vm_stopping'),
  VmSuspendingEvent: vm('vm_suspending'),
  VmResumingEvent: vm('vm_resuming'),
  VmGuestShutdownEvent: vm('vm_guest_shutdown_request'),
  VmGuestRebootEvent: vm('vm_guest_reboot_request'),
  VmGuestStandbyEvent: vm('vm_guest_standby_request'),
  VmMigratedEvent: vm('vm_migrate'),
  DrsVmMigratedEvent: vm('vm_migrate'),
  VmRelocatedEvent: vm('vm_migrate'),
  VmRemovedEvent: vm('vm_delete'),
  VmCreatedEvent: vm('vm_create'),
  VmClonedEvent: vm('vm_clone'),
  VmRenamedEvent: vm('vm_rename'),
  VmReconfiguredEvent: vm('vm_config'),
  VmDisconnectedEvent: vm('vm_disconnect'),
  VmConnectedEvent: vm('vm_connect'),
  VmFailedToPowerOnEvent: { ...vm('vm_power_on_failed'), failure: true },
  VmFailedToPowerOffEvent: { ...vm('vm_power_off_failed'), failure: true },
  VmRestartedByHAEvent: vm('vm_restarted_by_ha'),
  HostConnectedEvent: host('host_connect'),
  HostConnectionLostEvent: host('host_connection_lost'),
  HostDisconnectedEvent: host('host_disconnect'),
  HostShutdownEvent: host('host_shutdown'),
  // vSphere HA declared the host failed (a ClusterEvent: the host is in `failedHost`, `host` is unset).
  DasHostFailedEvent: { ...host('host_failure'), hostArgument: 'failedHost' },
};

/**
 * Table entry for an event class or an EventEx/ExtendedEvent type id; a type id such as
 * `com.vmware.vc.ha.VmRestartedByHAEvent` is looked up by its last segment. Unknown → null.
 */
export function vcenterEventTypeInfo(typeName: string): VcenterEventTypeInfo | null {
  const last = typeName.slice(typeName.lastIndexOf('.') + 1);
  return Object.hasOwn(VCENTER_EVENT_TYPES, last) ? VCENTER_EVENT_TYPES[last]! : null;
}
