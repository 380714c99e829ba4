import type { EventType } from '../../model/events.js';

/** Which guest family a task acts on; `null` when the type alone does not say (ha*, vzdump). */
export type GuestKind = 'qemu' | 'lxc';

/**
 * What a raw task type means. `scope: 'guest'` tasks carry a VMID in the UPID id field;
 * `scope: 'node'` tasks act on the node or on many guests (their id is empty or not a guest).
 */
export interface TaskTypeInfo {
  type: EventType;
  guestKind: GuestKind | null;
  scope: 'guest' | 'node';
  /**
   * Set when the node runs this task itself as root@pam: then it is the system's, not a person's
   * (pve-guests.service runs `startall` at boot and `stopall` at shutdown through pvesh).
   */
  runByNode?: 'node start-up' | 'node shutdown';
}

const qm = (type: EventType): TaskTypeInfo => ({ type, guestKind: 'qemu', scope: 'guest' });
const vz = (type: EventType): TaskTypeInfo => ({ type, guestKind: 'lxc', scope: 'guest' });
// HA requests and single-guest backups name a VMID but not whether it is a VM or a container.
const either = (type: EventType): TaskTypeInfo => ({ type, guestKind: null, scope: 'guest' });
const node = (type: EventType, runByNode?: TaskTypeInfo['runByNode']): TaskTypeInfo => ({
  type,
  guestKind: null,
  scope: 'node',
  ...(runByNode ? { runByNode } : {}),
});

/**
 * Raw Proxmox task type → normalised event type, explicit (PROVIDER_FORMATS.md "task types that
 * act on guests"). Note qmsuspend is hibernate-to-disk; qmreboot only performs the shutdown (the
 * restart is a separate qmstart by root@pam), while vzreboot does both in one task.
 */
export const PROXMOX_TASK_TYPES: Readonly<Record<string, TaskTypeInfo>> = {
  qmstart: qm('vm_start'),
  qmstop: qm('vm_stop'),
  qmshutdown: qm('vm_shutdown'),
  qmreboot: qm('vm_reboot'),
  qmreset: qm('vm_reset'),
  qmpause: qm('vm_pause'),
  qmsuspend: qm('vm_suspend'),
  qmresume: qm('vm_resume'),
  qmdestroy: qm('vm_delete'),
  qmigrate: qm('vm_migrate'),
  qmclone: qm('vm_clone'),
  qmcreate: qm('vm_create'),
  qmrestore: qm('vm_restore'),
  qmsnapshot: qm('vm_snapshot'),
  qmdelsnapshot: qm('vm_snapshot_delete'),
  qmrollback: qm('vm_rollback'),
  qmtemplate: qm('vm_template'),
  qmmove: qm('vm_move_disk'),
  qmconfig: qm('vm_config'),

  vzstart: vz('vm_start'),
  vzstop: vz('vm_stop'),
  vzshutdown: vz('vm_shutdown'),
  vzreboot: vz('vm_reboot'),
  vzsuspend: vz('vm_suspend'),
  vzresume: vz('vm_resume'),
  vzdestroy: vz('vm_delete'),
  vzmigrate: vz('vm_migrate'),
  vzcreate: vz('vm_create'),
  vzrestore: vz('vm_restore'),
  vzclone: vz('vm_clone'),
  vzsnapshot: vz('vm_snapshot'),
  vzdelsnapshot: vz('vm_snapshot_delete'),
  vzrollback: vz('vm_rollback'),
  vztemplate: vz('vm_template'),

  hastart: either('ha_start_request'),
  hastop: either('ha_stop_request'),
  hamigrate: either('ha_migrate_request'),
  // vzdump is node-wide tooling for both guest families; with a VMID in its id it concerns that guest.
  vzdump: either('vm_backup'),

  // pve-guests.service: ExecStart `pvesh --nooutput create /nodes/localhost/startall`, ExecStop
  // `… /stopall`, as root@pam. Nothing in Proxmox runs suspendall/migrateall (or bulk-*) on its own.
  startall: node('bulk_start', 'node start-up'),
  stopall: node('bulk_stop', 'node shutdown'),
  suspendall: node('bulk_suspend'),
  migrateall: node('bulk_migrate'),
  'bulk-start': node('bulk_start'),
  'bulk-stop': node('bulk_stop'),
  'bulk-suspend': node('bulk_suspend'),
  'bulk-migrate': node('bulk_migrate'),
  srvreload: node('node_service_reload'),
  aptupdate: node('node_apt_update'),
};

/**
 * The table entry for a raw type. Unknown types become `other`, kept at guest scope so an unknown
 * task whose id is a VMID still lands on that guest; the family is guessed only from the qm/vz prefix.
 */
export function taskTypeInfo(rawType: string): TaskTypeInfo {
  if (Object.hasOwn(PROXMOX_TASK_TYPES, rawType)) return PROXMOX_TASK_TYPES[rawType]!;
  const guestKind = rawType.startsWith('qm') ? 'qemu' : rawType.startsWith('vz') ? 'lxc' : null;
  return { type: 'other', guestKind, scope: 'guest' };
}

/** Normalised event type of a raw Proxmox task type. */
export function normaliseTaskType(rawType: string): EventType {
  return taskTypeInfo(rawType).type;
}

/** Guest kind implied by the raw type alone: qm* → qemu, vz* → lxc, otherwise (ha*, vzdump, node tasks) null. */
export function guestKindOfTaskType(rawType: string): GuestKind | null {
  return taskTypeInfo(rawType).guestKind;
}

/**
 * Event types of tasks that can change a guest's configuration or placement: what its config says
 * (disks and their storages, NICs and MACs, SMBIOS identity, the agent flag) or which node holds it.
 * A finished one makes the poller re-read that guest's config on its next pass. Snapshots, backups
 * and power actions leave the config as it was (a backup's lock is in the node list).
 */
export const CONFIG_CHANGING_EVENT_TYPES: ReadonlySet<EventType> = new Set<EventType>([
  'vm_create',
  'vm_clone',
  'vm_restore',
  'vm_config',
  'vm_move_disk',
  'vm_migrate',
  'vm_rollback',
  'vm_template',
]);

/**
 * Raw task types the table above does not name (they map to `other`) that still change a config:
 * `resize` (a disk of a VM or a container grew; qemu-server and pve-container both fork it under
 * that name) and `move_volume` (a container volume moved to another storage).
 */
const CONFIG_CHANGING_RAW_TYPES: ReadonlySet<string> = new Set(['resize', 'move_volume']);

/** True when a task of this (normalised, raw) type can have changed its guest's config or placement. */
export function changesGuestConfig(type: EventType, rawType: string): boolean {
  return CONFIG_CHANGING_EVENT_TYPES.has(type) || CONFIG_CHANGING_RAW_TYPES.has(rawType);
}
