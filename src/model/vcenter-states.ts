import type { StateOf } from './states.js';
import type { MappedState } from './proxmox-states.js';

/** vCenter VM power and connection states, SOAP (`poweredOn`) or REST (`POWERED_ON`) spelling. */
export interface VcenterVmRaw {
  powerState?: string | null;
  connectionState?: string | null;
}

export interface VcenterHostRaw {
  powerState?: string | null;
  connectionState?: string | null;
  inMaintenanceMode?: boolean | null;
}

/** REST words and SOAP words normalised to one lower-case, underscore-free key. */
function key(word: string | null | undefined): string {
  return (word ?? '').replace(/_/g, '').toLowerCase();
}

function raw(parts: Array<string | null | undefined>): string {
  const words = parts.filter((p): p is string => Boolean(p));
  return words.length > 0 ? words.join('/') : '(none)';
}

const VM_POWER: Readonly<Record<string, StateOf<'vm'>>> = {
  poweredon: 'running',
  poweredoff: 'stopped',
  suspended: 'suspended',
};

/** A VM whose host vCenter cannot talk to has an unknowable power state: unreachable, not "stopped". */
const VM_CONNECTION: Readonly<Record<string, StateOf<'vm'> | null>> = {
  connected: null,
  disconnected: 'unreachable',
  notresponding: 'unreachable',
  inaccessible: 'unreachable',
  orphaned: 'unknown',
  invalid: 'unknown',
};

/** Maps runtime.powerState + runtime.connectionState. */
export function mapVcenterVm(input: VcenterVmRaw): MappedState<StateOf<'vm'>> {
  const rawState = raw([input.powerState, input.connectionState]);
  const conn = key(input.connectionState);
  if (conn !== '') {
    const byConn = VM_CONNECTION[conn];
    if (byConn === undefined) return { state: 'unknown', rawState };
    if (byConn !== null) return { state: byConn, rawState };
  }
  return { state: VM_POWER[key(input.powerState)] ?? 'unknown', rawState };
}

/** Maps a HostSystem's runtime: connection first, then maintenance, then power. */
export function mapVcenterHost(input: VcenterHostRaw): MappedState<StateOf<'host'>> {
  const rawState = raw([input.powerState, input.connectionState, input.inMaintenanceMode ? 'maintenance' : null]);
  const conn = key(input.connectionState);
  if (conn === 'notresponding') return { state: 'unreachable', rawState };
  if (conn === 'disconnected') return { state: 'offline', rawState };
  if (conn !== '' && conn !== 'connected') return { state: 'unknown', rawState };
  if (input.inMaintenanceMode) return { state: 'maintenance', rawState };
  const power = key(input.powerState);
  if (power === 'poweredon') return { state: 'online', rawState };
  if (power === 'poweredoff' || power === 'standby') return { state: 'offline', rawState };
  return { state: conn === 'connected' && power === '' ? 'online' : 'unknown', rawState };
}

/** Datastore `summary.accessible`. */
export function mapVcenterDatastore(accessible: boolean | null | undefined): MappedState<StateOf<'storage'>> {
  if (accessible === true) return { state: 'available', rawState: 'accessible' };
  if (accessible === false) return { state: 'unavailable', rawState: 'inaccessible' };
  return { state: 'unknown', rawState: '(none)' };
}
