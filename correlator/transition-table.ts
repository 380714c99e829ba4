import type { EventType } from '../src/model/events.js';
import type { Kind } from '../src/model/kinds.js';
import { ANY_STATE, type TransitionRule, type TransitionTable } from './types.js';

const rule = (kind: Kind, from: string, to: string, events: EventType[], why: string): TransitionRule => ({
  kind,
  from,
  to,
  events,
  why,
});

const GUEST_STOP: EventType[] = ['vm_stop', 'vm_shutdown', 'vm_delete', 'bulk_stop'];
const UNREACHABLE: EventType[] = [
  'vm_migrate',
  'vm_disconnect',
  'host_disconnect',
  'host_connection_lost',
  'host_shutdown',
];

/**
 * The explicit transition table: for each kind and (from, to), the event types that can cause it.
 * Data, not learned. Rows with {@link ANY_STATE} apply to every state on that side; a lookup
 * unions every matching row. A change with no row (crashed, paused on I/O error) expects nothing:
 * any event found is at most medium. Request types (ha_*_request) are not causes here: their
 * executing task is, and the correlator credits the requester.
 */
export const TRANSITION_TABLE: TransitionTable = [
  // VMs (qemu and vCenter)
  rule(
    'vm',
    'running',
    'stopped',
    [...GUEST_STOP, 'vm_reboot', 'vm_guest_shutdown_request'],
    'qmreboot performs only the shutdown; a vCenter guest shutdown request precedes the power-off',
  ),
  rule('vm', ANY_STATE, 'stopped', ['vm_stop', 'vm_delete'], 'a hard stop works from any state'),
  rule(
    'vm',
    'stopped',
    'running',
    ['vm_start', 'vm_restarted_by_ha', 'bulk_start'],
    "a start; qmreboot's restart is a qmstart by root@pam",
  ),
  rule('vm', 'running', 'paused', ['vm_pause', 'vm_suspend'], 'qm pause; a suspend without --todisk only pauses'),
  rule(
    'vm',
    'running',
    'suspended',
    ['vm_suspend', 'vm_guest_standby_request', 'bulk_suspend'],
    'qmsuspend hibernates to disk; vCenter suspend; a guest standby request',
  ),
  rule('vm', 'paused', 'running', ['vm_resume'], 'qm resume'),
  rule(
    'vm',
    'suspended',
    'running',
    ['vm_resume', 'vm_start'],
    'a hibernated Proxmox VM resumes with qmstart; vCenter powers on from suspend',
  ),
  rule('vm', 'running', 'migrating', ['vm_migrate', 'bulk_migrate'], 'live migration in progress'),
  rule(
    'vm',
    'migrating',
    'running',
    ['vm_migrate', 'vm_start', 'vm_resume'],
    'the target side starts/resumes the guest (root@pam)',
  ),
  rule('vm', 'migrating', 'stopped', ['vm_migrate'], 'a migration ended with the guest stopped'),
  rule('vm', 'running', 'unreachable', UNREACHABLE, 'the guest moved away or its host/connection was lost'),
  rule('vm', 'unreachable', 'running', ['vm_connect', 'host_connect', 'vm_migrate'], 'the connection came back'),
  rule('vm', 'running', 'crashed', [], 'a crash has no task: nothing is expected'),
  rule('vm', 'running', 'paused_io_error', [], 'QEMU pauses itself on an I/O error: nothing is expected'),
  rule('vm', 'paused_io_error', 'running', ['vm_resume'], 'resumed after the storage came back'),

  // Containers
  rule(
    'lxc',
    'running',
    'stopped',
    [...GUEST_STOP, 'vm_migrate'],
    'restart-mode migration stops the container on the source',
  ),
  rule(
    'lxc',
    'stopped',
    'running',
    ['vm_start', 'vm_reboot', 'vm_migrate', 'bulk_start'],
    'vzreboot stops and starts in one task; restart migration starts on the target',
  ),
  rule('lxc', 'running', 'frozen', ['vm_suspend', 'bulk_suspend'], 'pct suspend freezes the cgroup'),
  rule('lxc', 'frozen', 'running', ['vm_resume'], 'pct resume thaws it'),
  rule('lxc', ANY_STATE, 'stopped', ['vm_stop', 'vm_delete'], 'a hard stop works from any state'),

  // Hosts (Proxmox nodes, ESXi hosts)
  rule('host', 'online', 'offline', ['host_shutdown', 'host_disconnect'], 'shut down or disconnected by a user'),
  rule(
    'host',
    'online',
    'unreachable',
    ['host_connection_lost', 'host_disconnect', 'host_shutdown'],
    'vCenter lost the host',
  ),
  rule('host', 'unreachable', 'online', ['host_connect'], 'reconnected'),
  rule('host', 'offline', 'online', ['host_connect'], 'reconnected'),
];

/** Event types the table expects for `kind` going `from → to`: the union of every matching row. */
export function expectedEventTypes(
  table: TransitionTable,
  kind: Kind,
  from: string,
  to: string,
): ReadonlySet<EventType> {
  const out = new Set<EventType>();
  for (const row of table) {
    if (row.kind !== kind) continue;
    if (row.from !== ANY_STATE && row.from !== from) continue;
    if (row.to !== ANY_STATE && row.to !== to) continue;
    for (const t of row.events) out.add(t);
  }
  return out;
}
