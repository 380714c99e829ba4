import { describe, expect, it } from 'vitest';
import {
  PROXMOX_TASK_TYPES,
  guestKindOfTaskType,
  normaliseTaskType,
  taskTypeInfo,
} from '../../../../src/ingest/proxmox/task-types.js';
import { EVENT_TYPES } from '../../../../src/model/events.js';

describe('Proxmox task type → event type', () => {
  it.each([
    ['qmstop', 'vm_stop', 'qemu'],
    ['vzstop', 'vm_stop', 'lxc'],
    ['qmshutdown', 'vm_shutdown', 'qemu'],
    ['vzshutdown', 'vm_shutdown', 'lxc'],
    ['qmstart', 'vm_start', 'qemu'],
    ['vzstart', 'vm_start', 'lxc'],
    ['qmreboot', 'vm_reboot', 'qemu'],
    ['vzreboot', 'vm_reboot', 'lxc'],
    ['qmreset', 'vm_reset', 'qemu'],
    ['qmpause', 'vm_pause', 'qemu'],
    ['qmsuspend', 'vm_suspend', 'qemu'],
    ['vzsuspend', 'vm_suspend', 'lxc'],
    ['qmresume', 'vm_resume', 'qemu'],
    ['vzresume', 'vm_resume', 'lxc'],
    ['qmdestroy', 'vm_delete', 'qemu'],
    ['vzdestroy', 'vm_delete', 'lxc'],
    ['qmigrate', 'vm_migrate', 'qemu'],
    ['vzmigrate', 'vm_migrate', 'lxc'],
    ['qmclone', 'vm_clone', 'qemu'],
    ['vzclone', 'vm_clone', 'lxc'],
    ['qmcreate', 'vm_create', 'qemu'],
    ['vzcreate', 'vm_create', 'lxc'],
    ['qmrestore', 'vm_restore', 'qemu'],
    ['vzrestore', 'vm_restore', 'lxc'],
    ['qmsnapshot', 'vm_snapshot', 'qemu'],
    ['vzdelsnapshot', 'vm_snapshot_delete', 'lxc'],
    ['qmrollback', 'vm_rollback', 'qemu'],
    ['vztemplate', 'vm_template', 'lxc'],
    ['qmmove', 'vm_move_disk', 'qemu'],
    ['qmconfig', 'vm_config', 'qemu'],
    ['hastart', 'ha_start_request', null],
    ['hastop', 'ha_stop_request', null],
    ['hamigrate', 'ha_migrate_request', null],
    ['vzdump', 'vm_backup', null],
    ['startall', 'bulk_start', null],
    ['stopall', 'bulk_stop', null],
    ['suspendall', 'bulk_suspend', null],
    ['migrateall', 'bulk_migrate', null],
    ['bulk-start', 'bulk_start', null],
    ['srvreload', 'node_service_reload', null],
    ['aptupdate', 'node_apt_update', null],
  ])('%s → %s (guest kind %s)', (raw, type, kind) => {
    expect(normaliseTaskType(raw)).toBe(type);
    expect(guestKindOfTaskType(raw)).toBe(kind);
  });

  it('node-wide tasks are node scope, guest tasks guest scope', () => {
    expect(taskTypeInfo('startall').scope).toBe('node');
    expect(taskTypeInfo('qmstop').scope).toBe('guest');
    expect(taskTypeInfo('hastart').scope).toBe('guest');
  });

  it.each([
    ['vncproxy', null],
    ['qmmonitor', 'qemu'],
    ['vzmount', 'lxc'],
    ['fake-but-valid-type', null],
    ['toString', null],
  ])('unknown %s → other (family from prefix: %s)', (raw, kind) => {
    expect(taskTypeInfo(raw)).toEqual({ type: 'other', guestKind: kind, scope: 'guest' });
  });

  it('every table entry maps into the closed vocabulary', () => {
    for (const info of Object.values(PROXMOX_TASK_TYPES)) expect(EVENT_TYPES).toContain(info.type);
  });
});
