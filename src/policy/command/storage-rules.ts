/**
 * Storage and Proxmox tools judged by their subcommand (`zpool status`, `qm rollback`, `ceph osd
 * pool delete`): which views only read, and which operations lose data for good (destructive).
 */
import type { SubcommandRule } from './subcommand-rule.js';

const FORCE = ['--force', '-force'];

export const STORAGE_TOOLS: Readonly<Record<string, SubcommandRule>> = {
  zpool: {
    read: ['status', 'list', 'iostat', 'get', 'history', 'events'],
    destructive: ['destroy', 'labelclear', 'create'],
    mutatingFlags: {
      events: { '-c': 'clears the event log' },
      status: { '-c': 'runs scripts' },
      iostat: { '-c': 'runs scripts' },
    },
  },
  zfs: { read: ['list', 'get', 'holds', 'userspace', 'groupspace', 'version'], destructive: ['destroy', 'rollback'] },
  // A rollback or a deleted snapshot loses data for good, as `zfs rollback` does; `--force` deletes
  // an unlinked disk's volume, and a forced restore overwrites the guest that is there.
  qm: {
    read: ['list', 'status', 'config', 'pending', 'showcmd', 'listsnapshot', 'help'],
    destructive: ['destroy', 'rollback', 'delsnapshot'],
    destructiveFlags: { unlink: FORCE },
    nested: { disk: { read: [], destructiveFlags: { unlink: FORCE } } },
  },
  pct: {
    read: ['list', 'status', 'config', 'pending', 'listsnapshot', 'df', 'help'],
    destructive: ['destroy', 'rollback', 'delsnapshot'],
    destructiveFlags: { restore: FORCE },
  },
  pvesh: { read: ['get', 'ls', 'usage', 'help'], destructive: ['delete'] },
  pvecm: { read: ['status', 'nodes', 'help'], destructive: ['delnode'] },
  // ceph: the status views read; pools, OSDs and filesystems removed are data lost.
  ceph: {
    read: ['status', 'health', 'df', 'versions', 'version', 'quorum_status', 'features', 'time-sync-status'],
    bareReadFlags: ['-s', '--status', '-w', '--watch', '-v', '--version'],
    valueFlags: ['-c', '--conf', '--id', '--user', '-n', '--name', '--cluster', '-k', '--keyring', '-f', '--format'],
    mutatingGlobal: {
      '-o': 'writes its output to a file',
      '--out-file': 'writes its output to a file',
      '-i': 'sends a file as input',
      '--in-file': 'sends a file as input',
      '--admin-daemon': 'sends a command to a daemon socket',
    },
    nested: {
      osd: {
        read: ['tree', 'df', 'stat', 'ls', 'dump', 'perf', 'utilization', 'find', 'metadata', 'versions', 'status'],
        destructive: ['purge', 'destroy', 'lost'],
        nested: { pool: { read: ['ls', 'stats', 'get', 'autoscale-status'], destructive: ['delete', 'rm'] } },
      },
      pg: { read: ['stat', 'dump', 'ls', 'dump_stuck', 'query'] },
      mon: { read: ['stat', 'dump'] },
      mgr: { read: ['stat', 'dump', 'services'] },
      mds: { read: ['stat'], destructive: ['rmfailed'] },
      fs: {
        read: ['ls', 'status', 'dump', 'get'],
        destructive: ['rm'],
        nested: { volume: { read: ['ls', 'info'], destructive: ['rm'] } },
      },
    },
  },
  pvesm: { read: ['status', 'list', 'path', 'help'], destructive: ['free', 'prune-backups'] },
  'ha-manager': { read: ['status', 'config', 'help'] },
  cryptsetup: {
    read: ['status', 'luksDump', 'isLuks', 'tcryptDump', 'luksUUID'],
    // Removing a key slot can lock the data away for good (the last one erases access).
    destructive: ['luksFormat', 'erase', 'luksErase', 'luksKillSlot', 'luksRemoveKey'],
    mutatingFlags: { luksUUID: { '--uuid': 'sets the UUID' } },
  },
};
