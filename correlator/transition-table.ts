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

/** A row whose change can also be seen half-way through events that end elsewhere (see TransitionRule.midway). */
const ruleWithMidway = (
  kind: Kind,
  from: string,
  to: string,
  events: EventType[],
  midway: EventType[],
  why: string,
): TransitionRule => ({ kind, from, to, events, midway, why });

const GUEST_STOP: EventType[] = ['vm_stop', 'vm_shutdown', 'vm_delete', 'bulk_stop'];
const UNREACHABLE: EventType[] = [
  'vm_migrate',
  'vm_disconnect',
  'host_disconnect',
  'host_connection_lost',
  'host_shutdown',
];
/** What vCenter records on a host (not on its VMs) when it loses it: the host's event is the guests' cause. */
const HOST_LOST: EventType[] = ['host_connection_lost', 'host_disconnect', 'host_shutdown', 'host_failure'];

/**
 * The explicit transition table: for each kind and (from, to), the event types that can cause it.
 * Data, not learned. Rows with {@link ANY_STATE} apply to every state on that side; a lookup
 * unions every matching row. A change with no row (crashed, paused on I/O error) expects nothing:
 * any event found is at most medium. Request types (ha_*_request) are not causes here: their
 * executing task is, and the correlator credits the requester. `host_*` types are events on the
 * resource's host, not on the resource: they count as causes only where explain() says so
 * (AttributeOptions.hostCauses). `midway` events rank below `events` (see TransitionRule).
 */
export const TRANSITION_TABLE: TransitionTable = [
  // VMs (qemu and vCenter)
  ruleWithMidway(
    'vm',
    'running',
    'stopped',
    [...GUEST_STOP, 'vm_guest_shutdown_request'],
    ['vm_reboot'],
    'a stop or shutdown ends stopped; a vCenter guest shutdown request precedes the power-off; qmreboot performs only the shutdown (its restart is a separate qmstart), so a poll can see it half-way',
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
  rule(
    'vm',
    ANY_STATE,
    'unreachable',
    HOST_LOST,
    "vCenter cannot know the power state of a VM on a host it lost (connection lost, disconnected, shut down, failed per vSphere HA): whatever its state, the VM goes unreachable, and the host's event is the cause",
  ),
  rule(
    'vm',
    'unreachable',
    'running',
    ['vm_connect', 'host_connect', 'vm_migrate', 'vm_restarted_by_ha'],
    'the connection came back, or vSphere HA restarted the VM on another host (VmRestartedByHAEvent, an EventEx)',
  ),
  rule('vm', 'running', 'crashed', [], 'a crash has no task: nothing is expected'),
  rule('vm', 'running', 'paused_io_error', [], 'QEMU pauses itself on an I/O error: nothing is expected'),
  rule('vm', 'paused_io_error', 'running', ['vm_resume'], 'resumed after the storage came back'),

  // Containers
  ruleWithMidway(
    'lxc',
    'running',
    'stopped',
    GUEST_STOP,
    ['vm_migrate', 'vm_reboot'],
    'a stop or shutdown ends stopped; a restart-mode migration stops the container on the source and vzreboot shuts it down before starting it again in the same task, so a poll can see either half-way',
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
  rule('host', 'online', 'unreachable', HOST_LOST, 'vCenter lost the host, or vSphere HA declared it failed'),
  rule('host', 'unreachable', 'online', ['host_connect'], 'reconnected'),
  rule('host', 'offline', 'online', ['host_connect'], 'reconnected'),
];

function matchingRows(table: TransitionTable, kind: Kind, from: string, to: string): TransitionRule[] {
  return table.filter(
    (row) =>
      row.kind === kind && (row.from === ANY_STATE || row.from === from) && (row.to === ANY_STATE || row.to === to),
  );
}

/** Event types the table expects for `kind` going `from → to`: the union of every matching row, midway included. */
export function expectedEventTypes(
  table: TransitionTable,
  kind: Kind,
  from: string,
  to: string,
): ReadonlySet<EventType> {
  return new Set(causeRanks(table, kind, from, to).keys());
}

/** Rank of an expected type: its outcome is the change. */
export const OUTCOME_RANK = 0;
/** Rank of an expected type: the change is seen half-way through it. */
export const MIDWAY_RANK = 1;

/**
 * How well each expected type explains `from → to`: {@link OUTCOME_RANK} when some matching row
 * lists it in `events`, else {@link MIDWAY_RANK}. Types not in the map are not expected.
 */
export function causeRanks(
  table: TransitionTable,
  kind: Kind,
  from: string,
  to: string,
): ReadonlyMap<EventType, number> {
  const out = new Map<EventType, number>();
  for (const row of matchingRows(table, kind, from, to)) {
    for (const t of row.midway ?? []) if (!out.has(t)) out.set(t, MIDWAY_RANK);
    for (const t of row.events) out.set(t, OUTCOME_RANK);
  }
  return out;
}
