import { describe, expect, it } from 'vitest';
import { fixtureFiles, readFixture } from '../../support/fixtures.js';
import {
  mapProxmoxLxc,
  mapProxmoxNode,
  mapProxmoxStorage,
  mapProxmoxVm,
  mapVcenterDatastore,
  mapVcenterHost,
  mapVcenterVm,
} from '../../../src/model/index.js';

describe('Proxmox VM status + qmpstatus + lock', () => {
  it.each([
    [{ status: 'running', qmpstatus: 'running' }, 'running', 'running'],
    [{ status: 'running' }, 'running', 'running'],
    [{ status: 'stopped' }, 'stopped', 'stopped'],
    [{ status: 'running', qmpstatus: 'io-error' }, 'paused_io_error', 'running/io-error'],
    [{ status: 'running', qmpstatus: 'paused' }, 'paused', 'running/paused'],
    [{ status: 'stopped', lock: 'suspended' }, 'suspended', 'stopped/lock:suspended'],
    [{ status: 'running', qmpstatus: 'inmigrate' }, 'migrating', 'running/inmigrate'],
    [{ status: 'running', qmpstatus: 'postmigrate' }, 'migrating', 'running/postmigrate'],
    [{ status: 'running', qmpstatus: 'prelaunch', lock: 'backup' }, 'stopped', 'running/prelaunch/lock:backup'],
    [{ status: 'running', qmpstatus: 'suspended' }, 'suspended', 'running/suspended'],
    [{ status: 'running', qmpstatus: 'guest-panicked' }, 'crashed', 'running/guest-panicked'],
    [{ status: 'RUNNING', qmpstatus: 'Running' }, 'running', 'RUNNING/Running'],
  ])('%j → %s', (raw, state, rawState) => {
    expect(mapProxmoxVm(raw)).toEqual({ state, rawState });
  });

  it.each([
    [{ status: 'running', qmpstatus: 'colo' }, 'running/colo'],
    [{ status: 'hibernating' }, 'hibernating'],
    [{ status: 'running', qmpstatus: 'prelaunch' }, 'running/prelaunch'],
    [{}, '(none)'],
  ])('an unmapped raw state %j maps to unknown and keeps the words', (raw, rawState) => {
    expect(mapProxmoxVm(raw)).toEqual({ state: 'unknown', rawState });
  });

  it('maps every recorded guest-status fixture to a state of its kind, keeping the raw words', () => {
    const files = fixtureFiles('proxmox/guest-status').filter(
      (f) => /^(qemu|lxc)-.*\d\S*\.json$/.test(f) && !f.includes('http500'),
    );
    expect(files.length).toBeGreaterThan(5);
    const seen: Record<string, string> = {};
    for (const f of files) {
      const body = readFixture(`proxmox/guest-status/${f}`) as { data: Record<string, string> };
      const mapped = f.startsWith('lxc') ? mapProxmoxLxc(body.data) : mapProxmoxVm(body.data);
      expect(mapped.rawState).toContain(body.data.status);
      seen[f] = mapped.state;
    }
    expect(seen['qemu-113-io-error.json']).toBe('paused_io_error');
    expect(seen['qemu-107-hibernated.json']).toBe('suspended');
    expect(seen['qemu-106-paused.json']).toBe('paused');
    expect(seen['qemu-102-prelaunch-backup.json']).toBe('stopped');
    expect(seen['lxc-200-running.json']).toBe('running');
  });

  it('maps containers, nodes and storage, unknown words to unknown', () => {
    expect(mapProxmoxLxc({ status: 'running' }).state).toBe('running');
    expect(mapProxmoxLxc({ status: 'weird' })).toEqual({ state: 'unknown', rawState: 'weird' });
    expect(mapProxmoxNode('online').state).toBe('online');
    expect(mapProxmoxNode('offline').state).toBe('offline');
    expect(mapProxmoxNode('unknown')).toEqual({ state: 'unknown', rawState: 'unknown' });
    expect(mapProxmoxStorage('available').state).toBe('available');
    expect(mapProxmoxStorage(undefined)).toEqual({ state: 'unknown', rawState: '(none)' });
  });
});

describe('vCenter power and connection states', () => {
  it.each([
    [{ powerState: 'poweredOn', connectionState: 'connected' }, 'running'],
    [{ powerState: 'POWERED_ON' }, 'running'],
    [{ powerState: 'poweredOff', connectionState: 'connected' }, 'stopped'],
    [{ powerState: 'POWERED_OFF' }, 'stopped'],
    [{ powerState: 'suspended' }, 'suspended'],
    [{ powerState: 'SUSPENDED' }, 'suspended'],
    [{ powerState: 'poweredOn', connectionState: 'disconnected' }, 'unreachable'],
    [{ powerState: 'poweredOff', connectionState: 'inaccessible' }, 'unreachable'],
    [{ powerState: 'poweredOn', connectionState: 'orphaned' }, 'unknown'],
    [{ powerState: 'warpDrive' }, 'unknown'],
    [{ powerState: 'poweredOn', connectionState: 'quantum' }, 'unknown'],
  ])('VM %j → %s', (raw, state) => {
    const m = mapVcenterVm(raw);
    expect(m.state).toBe(state);
    expect(m.rawState).toContain(raw.powerState);
  });

  it.each([
    [{ powerState: 'poweredOn', connectionState: 'connected' }, 'online'],
    [{ powerState: 'poweredOn', connectionState: 'connected', inMaintenanceMode: true }, 'maintenance'],
    [{ powerState: 'poweredOn', connectionState: 'notResponding' }, 'unreachable'],
    [{ powerState: 'poweredOn', connectionState: 'disconnected' }, 'offline'],
    [{ powerState: 'standBy', connectionState: 'connected' }, 'offline'],
    [{ powerState: 'unknown', connectionState: 'connected' }, 'unknown'],
  ])('host %j → %s', (raw, state) => {
    expect(mapVcenterHost(raw).state).toBe(state);
  });

  it('maps datastores', () => {
    expect(mapVcenterDatastore(true).state).toBe('available');
    expect(mapVcenterDatastore(false).state).toBe('unavailable');
    expect(mapVcenterDatastore(null).state).toBe('unknown');
  });
});
