import { parseUpid } from '../ingest/proxmox/upid.js';
import { badInput, isVcenterTaskKey } from '../model/index.js';

/*
 * The provider task an executor names when it redeems a grant or reports an action taken: a
 * Proxmox UPID (the task's identity, and the id its event is stored under, so the change it causes
 * is matched exactly) or a vCenter task key (`task-123`, kept on the record). It must fit the
 * target: a UPID for a Proxmox resource (and, for a guest, a task on its VMID), a task key for a
 * vCenter one; an entity aitia holds no resource for takes either.
 */

const MAX = 512;
const PROXMOX_GUEST = /^proxmox:[^/]+\/(?:qemu|lxc)\/(\d+)$/;

/** The validated task reference, or null when none was given; a bad one is BAD_INPUT naming `field`. */
export function parseProviderTaskId(value: unknown, field: string, targetId: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.trim() === '') throw badInput(field, 'must be a non-empty string when given');
  if (value.length > MAX) throw badInput(field, `at most ${MAX} characters`);
  const proxmox = targetId.startsWith('proxmox:');
  const vcenter = targetId.startsWith('vcenter:');
  if (value.startsWith('UPID:')) {
    const parsed = parseUpid(value);
    if (!parsed.ok) throw badInput(field, parsed.reason);
    if (vcenter) throw badInput(field, `a UPID names a Proxmox task, and ${targetId} is a vCenter resource`);
    const vmid = PROXMOX_GUEST.exec(targetId)?.[1];
    if (vmid !== undefined && /^\d+$/.test(parsed.upid.id) && parsed.upid.id !== vmid)
      throw badInput(field, `the task is on VMID ${parsed.upid.id}, not on the target's (${vmid})`);
    return value;
  }
  if (isVcenterTaskKey(value)) {
    if (proxmox) throw badInput(field, `a task key names a vCenter task, and ${targetId} is a Proxmox resource`);
    return value;
  }
  throw badInput(field, 'must be a Proxmox UPID (UPID:<node>:…:<user>:) or a vCenter task key (task-123)');
}
