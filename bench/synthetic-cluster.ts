import { DateTime } from 'luxon';
import type { Driver } from 'neo4j-driver';
import type { ProxmoxClient } from '../src/ingest/proxmox/client.js';
import type { ProxmoxStandin } from '../src/demo/proxmox-standin.js';
import type { RecordedResponse, RouteTable, StandinRequest } from '../src/demo/proxmox-standin.js';
import { taskEntry, taskListResponder, type TaskSpec } from '../src/demo/proxmox-tasks.js';

/**
 * A Proxmox cluster of any size for benchmarks, served by the demo's stand-in: `nodes` nodes with
 * `guestsPerNode` guests each (VMs, or every `lxcEvery`-th a container), one local storage per
 * node, every answer in the shapes the recorded fixtures have: `/cluster/*`, per node the guest
 * lists (`qemu?full=1`, `lxc`) and task list, per guest status/current, config and (VMs whose config
 * enables the agent: every `agentEvery`-th) agent/ping. Guest states and the task log are mutable
 * between passes.
 */
export interface SyntheticClusterOptions {
  /** Every n-th guest is an LXC container (0: none). Default 0. */
  lxcEvery?: number;
  /** Every n-th VM has `agent: 1` in its config and an agent that answers (0: none). Default 0. */
  agentEvery?: number;
}

export interface SyntheticCluster {
  name: string;
  routes: RouteTable;
  /** VMIDs by node. */
  guests: Array<{ vmid: number; node: string; name: string; type: 'qemu' | 'lxc'; agent: boolean }>;
  /** Sets a guest's state for the next pass (`running`, `stopped`). */
  setStatus(vmid: number, status: 'running' | 'stopped'): void;
  /** Adds a finished task to its node's log. */
  addTask(spec: TaskSpec): void;
}

export function syntheticCluster(
  name: string,
  nodes: number,
  guestsPerNode: number,
  options: SyntheticClusterOptions = {},
): SyntheticCluster {
  const nodeNames = Array.from({ length: nodes }, (_, i) => `pve${i + 1}`);
  const every = (n: number | undefined, i: number) => Boolean(n && n > 0 && i % n === n - 1);
  const guests = nodeNames.flatMap((node, n) =>
    Array.from({ length: guestsPerNode }, (_, g) => {
      const vmid = 1000 + n * guestsPerNode + g;
      const type: 'qemu' | 'lxc' = every(options.lxcEvery, g) ? 'lxc' : 'qemu';
      return {
        vmid,
        node,
        name: `${type === 'qemu' ? 'vm' : 'ct'}${vmid}`,
        type,
        agent: type === 'qemu' && every(options.agentEvery, g),
      };
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
        id: `${g.type}/${g.vmid}`,
        type: g.type,
        vmid: g.vmid,
        name: g.name,
        node: g.node,
        status: status.get(g.vmid),
        template: 0,
      })),
    ]),
  );
  /** A guest's `vmstatus` entry, as a node list carries it (status/current adds `ha` and `agent`). */
  const vmstatus = (g: (typeof guests)[number], full: boolean): Record<string, unknown> => ({
    vmid: g.vmid,
    name: g.name,
    status: status.get(g.vmid),
    ...(g.type === 'qemu' && full ? { qmpstatus: status.get(g.vmid) } : {}),
    ...(g.type === 'lxc' ? { type: 'lxc' } : {}),
    cpus: 2,
    maxmem: 4294967296,
    uptime: status.get(g.vmid) === 'running' ? 86400 : 0,
  });
  for (const node of nodeNames) {
    const on = guests.filter((g) => g.node === node);
    routes.set(`GET /nodes/${node}/qemu`, (req: StandinRequest) =>
      ok(on.filter((g) => g.type === 'qemu').map((g) => vmstatus(g, req.query.get('full') === '1'))),
    );
    routes.set(`GET /nodes/${node}/lxc`, () => ok(on.filter((g) => g.type === 'lxc').map((g) => vmstatus(g, false))));
  }
  for (const g of guests) {
    const base = `/nodes/${g.node}/${g.type}/${g.vmid}`;
    routes.set(`GET ${base}/status/current`, () =>
      ok({ ...vmstatus(g, true), ha: { managed: 0 }, ...(g.agent ? { agent: 1 } : {}) }),
    );
    routes.set(
      `GET ${base}/config`,
      ok(
        g.type === 'qemu'
          ? {
              name: g.name,
              cores: 2,
              memory: '4096',
              ...(g.agent ? { agent: '1' } : {}),
              net0: `virtio=BC:24:11:${hex2(g.vmid >> 16)}:${hex2(g.vmid >> 8)}:${hex2(g.vmid)},bridge=vmbr0`,
              scsi0: `local-lvm:vm-${g.vmid}-disk-0,size=32G`,
              smbios1: `uuid=00000000-0000-4000-8000-${String(g.vmid).padStart(12, '0')}`,
            }
          : {
              hostname: g.name,
              cores: 1,
              memory: 512,
              ostype: 'debian',
              net0: `name=eth0,bridge=vmbr0,hwaddr=BC:24:12:${hex2(g.vmid >> 16)}:${hex2(g.vmid >> 8)}:${hex2(g.vmid)},type=veth`,
              rootfs: `local-lvm:subvol-${g.vmid}-disk-0,size=8G`,
            },
      ),
    );
    if (g.agent)
      routes.set(`POST ${base}/agent/ping`, () =>
        status.get(g.vmid) === 'running'
          ? ok({ result: {} })
          : {
              status: 500,
              statusMessage: `VM ${g.vmid} is not running`,
              body: { data: null, message: `VM ${g.vmid} is not running\n` },
            },
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

/**
 * Ends a benchmark on a synthetic cluster: the client and the stand-in close, what the passes wrote
 * about the cluster (resources, edges, events on its guests) is deleted, and the Neo4j stops.
 */
export async function closeSyntheticBench(parts: {
  client: ProxmoxClient;
  standin: ProxmoxStandin;
  cluster: Pick<SyntheticCluster, 'name'>;
  neo: { driver: Driver; stop(): Promise<void> };
}): Promise<void> {
  parts.client.close();
  await parts.standin.close();
  await parts.neo.driver
    .executeQuery('MATCH (n) WHERE n.id STARTS WITH $p OR n.resourceId STARTS WITH $p DETACH DELETE n', {
      p: `proxmox:${parts.cluster.name}/`,
    })
    .catch(() => {});
  await parts.neo.stop();
}
