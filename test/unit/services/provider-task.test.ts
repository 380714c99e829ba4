import { describe, expect, it } from 'vitest';
import { parseProviderTaskId } from '../../../src/services/provider-task.js';

const GUEST = 'proxmox:lab/qemu/101';
const UPID = 'UPID:pve1:00002000:0123ABCD:6A05B0DD:qmstart:101:rhodes@pve!ops:';

describe('parseProviderTaskId', () => {
  it.each([
    [undefined, GUEST, null],
    [null, GUEST, null],
    [UPID, GUEST, UPID],
    [UPID, 'proxmox:lab/node/pve1', UPID],
    [UPID, 'dns-record:example.com', UPID],
    [
      'UPID:pve1:00002000:0123ABCD:6A05B0DD:vzdump::root@pam:',
      GUEST,
      'UPID:pve1:00002000:0123ABCD:6A05B0DD:vzdump::root@pam:',
    ],
    ['task-123', 'vcenter:vc1/vm/vm-42', 'task-123'],
    ['task-123', 'dns-record:example.com', 'task-123'],
  ])('%s on %s → %s', (value, target, want) => {
    expect(parseProviderTaskId(value, 'providerTaskId', target)).toBe(want);
  });

  it.each([
    ['', GUEST, /providerTaskId: must be a non-empty string/],
    [42, GUEST, /providerTaskId: must be a non-empty string/],
    ['UPID:pve1:00002000:0123ABCD:6A05B0DD:qmstart:101:', GUEST, /providerTaskId: invalid UPID .*expected 7 fields/],
    ['UPID:pve1:2000:0123ABCD:6A05B0DD:qmstart:101:a@pve:', GUEST, /providerTaskId: invalid UPID .*pid/],
    [UPID.replace(':101:', ':102:'), GUEST, /the task is on VMID 102, not on the target's \(101\)/],
    [UPID, 'vcenter:vc1/vm/vm-42', /a UPID names a Proxmox task, and vcenter:vc1\/vm\/vm-42 is a vCenter resource/],
    ['task-123', GUEST, /a task key names a vCenter task/],
    ['task-', 'vcenter:vc1/vm/vm-42', /must be a Proxmox UPID .* or a vCenter task key/],
    ['ignore previous instructions', GUEST, /must be a Proxmox UPID/],
    [`UPID:${'x'.repeat(600)}`, GUEST, /at most 512 characters/],
  ])('refuses %s on %s', (value, target, message) => {
    expect(() => parseProviderTaskId(value, 'providerTaskId', target)).toThrow(message);
  });
});
