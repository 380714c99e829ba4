import { DateTime } from 'luxon';
import type { RecordedResponse, RouteTable, StandinRequest } from '../src/demo/proxmox-standin.js';
import { taskEntry, taskListResponder, type TaskSpec } from '../src/demo/proxmox-tasks.js';

/**
 * A Proxmox cluster of any size for benchmarks, served by the demo's stand-in: `nodes` nodes with
 * `guestsPerNode` VMs each, one local storage per node, every answer in the shapes the recorded
 * fixtures have. Guest states and the task log are mutable between passes.
 */
export interface SyntheticCluster {
  name: string;
  routes: RouteTable;
  /** VMIDs by node. */
  guests: Array<{ vmid: number; node: string; name: string }>;
  /** Sets a guest's state for the next pass (`running`, `stopped`). */
  setStatus(vmid: number, status: 'running' | 'stopped'): void;
  /** Adds a finished task to its node's log. */
  addTask(spec: TaskSpec): void;
}

export function syntheticCluster(name: string, nodes: number, guestsPerNode: number): SyntheticCluster {
  const nodeNames = Array.from({ length: nodes }, (_, i) => `pve${i + 1}`);
  const guests = nodeNames.flatMap((node, n) =>
    Array.from({ length: guestsPerNode }, (_, g) => {
      const vmid = 1000 + n * guestsPerNode + g;
      return { vmid, node, name: `vm${vmid}` };
    }),
  );
  const status = new Map<number, 'running' | 'stopped'>(guests.map((g) => [g.vmid, 'running']));
  const tasks: Array<Record<string, unknown>> = [];
  const routes: RouteTable = new Map();
  const ok = (data: unknown): RecordedResponse => ({ body: { data } });

  routes.set(
    'GET /cluster/status',
    ok([
      { type: 'cluster', id: 'cluster', name, nodes, quorate: 1, version: 7 },
      ...nodeNames.map((node, i) => ({ type: 'node', id: `node/${node}`, name: node, nodeid: i + 1, online: 1 })),
    ]),
  );
  routes.set('GET /cluster/resources', () =>
    ok([
      ...nodeNames.map((node) => ({ id: `node/${node}`, type: 'node', node, status: 'online', maxcpu: 32 })),
      ...nodeNames.map((node) => ({
        id: `storage/${node}/local-lvm`,
        type: 'storage',
        storage: 'local-lvm',
        node,
        status: 'available',
        plugintype: 'lvmthin',
        content: 'images,rootdir',
        shared: 0,
      })),
      ...guests.map((g) => ({
        id: `qemu/${g.vmid}`,
        type: 'qemu',
        vmid: g.vmid,
        name: g.name,
        node: g.node,
        status: status.get(g.vmid),
        template: 0,
      })),
    ]),
  );
  for (const g of guests) {
    const base = `/nodes/${g.node}/qemu/${g.vmid}`;
    routes.set(`GET ${base}/status/current`, () =>
      ok({
        vmid: g.vmid,
        name: g.name,
        status: status.get(g.vmid),
        qmpstatus: status.get(g.vmid),
        ha: { managed: 0 },
        agent: 0,
      }),
    );
    routes.set(
      `GET ${base}/config`,
      ok({
        name: g.name,
        cores: 2,
        memory: '4096',
        net0: `virtio=BC:24:11:${hex2(g.vmid >> 16)}:${hex2(g.vmid >> 8)}:${hex2(g.vmid)},bridge=vmbr0`,
        scsi0: `local-lvm:vm-${g.vmid}-disk-0,size=32G`,
        smbios1: `uuid=00000000-0000-4000-8000-${String(g.vmid).padStart(12, '0')}`,
      }),
    );
  }
  const list = taskListResponder(() => tasks);
  for (const node of nodeNames) routes.set(`GET /nodes/${node}/tasks`, (req: StandinRequest) => list(req));

  return {
    name,
    routes,
    guests,
    setStatus: (vmid, s) => void status.set(vmid, s),
    addTask: (spec) => void tasks.push(taskEntry(spec)),
  };
}

const hex2 = (n: number) => (n & 0xff).toString(16).toUpperCase().padStart(2, '0');

/** Now, to the second, as Proxmox writes task times. */
export const nowSeconds = () => Math.floor(DateTime.utc().toSeconds());
