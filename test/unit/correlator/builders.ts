import { DateTime } from 'luxon';
import type { Transition } from '../../../src/model/index.js';
import { transformProxmoxTask } from '../../../src/ingest/proxmox/tasks-transform.js';
import { transformVcenterEvent } from '../../../src/ingest/vcenter/events-transform.js';
import type { EventRecord } from '../../../src/model/events.js';

/** Every scenario happens on 2026-05-14 (UTC); times are written `HH:mm:ss`. */
export const DAY = '2026-05-14';
export const OBSERVED = `${DAY}T02:08:31Z`;
export const VM = 'proxmox:lab/qemu/101';

/** `HH:mm:ss` → ISO on the scenario day. */
export const at = (hms: string): string => `${DAY}T${hms}Z`;

export interface TaskSpec {
  type: string;
  start: string;
  /** `HH:mm:ss`, or null for a task still running. */
  end?: string | null;
  vmid?: string;
  user?: string;
  node?: string;
  status?: string;
  cluster?: string;
  /** The family of a VMID the type does not name (hastart, hamigrate, vzdump): default qemu. */
  guestKind?: 'qemu' | 'lxc';
}

const hex8 = (n: number) => n.toString(16).toUpperCase().padStart(8, '0');
let nextPid = 0x2000;

/** A Proxmox task as ingest produces it: built as a UPID + list entry and run through the real transform. */
export function task(spec: TaskSpec): EventRecord {
  const {
    type,
    start,
    end = start,
    vmid = '101',
    user = 'alice@pve',
    node = 'pve1',
    status = 'OK',
    cluster = 'lab',
    guestKind = 'qemu',
  } = spec;
  const startSec = DateTime.fromISO(at(start)).toSeconds();
  const upid = `UPID:${node}:${hex8(nextPid++)}:0123ABCD:${hex8(startSec)}:${type}:${vmid}:${user}:`;
  const entry =
    end === null ? { upid, status: 'RUNNING' } : { upid, status, endtime: DateTime.fromISO(at(end)).toSeconds() };
  const r = transformProxmoxTask(entry, { cluster, guestKindOf: () => guestKind });
  if (!r.ok) throw new Error(`test task does not transform: ${r.reason}`);
  return r.event;
}

/** A vCenter event (VMOMI JSON) through the real transform. */
export function vcEvent(typeName: string, hms: string, key: number, userName = '', vm = 'vm-101'): EventRecord {
  const r = transformVcenterEvent(
    {
      _typeName: typeName,
      key,
      chainId: key,
      createdTime: at(hms),
      userName,
      host: { name: 'esx1.lan', host: { _typeName: 'ManagedObjectReference', type: 'HostSystem', value: 'host-21' } },
      vm: { name: 'web-01', vm: { _typeName: 'ManagedObjectReference', type: 'VirtualMachine', value: vm } },
    },
    { server: 'vc1' },
  );
  if (!r.ok) throw new Error(`test event does not transform: ${r.reason}`);
  return r.event;
}

/** A VM transition observed at `HH:mm:ss` (default 02:08:31). */
export function vmTransition(
  from: string,
  to: string,
  observed = '02:08:31',
  extra: Partial<Transition> = {},
): Transition {
  return { resourceId: VM, kind: 'vm', from, to, observedAt: at(observed), observer: 'poll', ...extra };
}

export const CT = 'proxmox:lab/lxc/101';

/** A container transition observed at `HH:mm:ss` (default 02:08:31). */
export function ctTransition(
  from: string,
  to: string,
  observed = '02:08:31',
  extra: Partial<Transition> = {},
): Transition {
  return { resourceId: CT, kind: 'lxc', from, to, observedAt: at(observed), observer: 'poll', ...extra };
}

export const VC_VM = 'vcenter:vc1/vm/vm-101';
export const VC_HOST = 'vcenter:vc1/host/host-21';

/** A vCenter VM transition observed at `HH:mm:ss` (default 02:08:31), on host-21 unless said otherwise. */
export function vcTransition(
  from: string,
  to: string,
  observed = '02:08:31',
  extra: Partial<Transition> = {},
): Transition {
  return { resourceId: VC_VM, kind: 'vm', from, to, observedAt: at(observed), hostId: VC_HOST, ...extra };
}
