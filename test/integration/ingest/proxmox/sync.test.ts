import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getResourceById } from '../../../../src/graph/resources/read.js';
import { listMissingResources } from '../../../../src/graph/resources/staleness.js';
import { syncProxmox } from '../../../../src/ingest/proxmox/sync.js';
import { useGraph } from '../../../support/graph.js';
import { labRoutes, patchData, standinClient } from '../../../support/proxmox-lab.js';
import { type ProxmoxStandin, startProxmoxStandin } from '../../../support/proxmox-standin.js';

const { driver, scope } = useGraph();

let standin: ProxmoxStandin;
beforeAll(async () => {
  standin = await startProxmoxStandin();
});
afterAll(async () => {
  await standin.close();
});

/** The expected graph of the lab cluster named `c`: (id, kind, state) and (type, from, to) tuples. */
function expected(c: string) {
  const p = `proxmox:${c}`;
  const nodes = ['pve1', 'pve2', 'pve3'];
  const resources = [
    `${p}/cluster|cluster|online`,
    ...nodes.map((n) => `${p}/node/${n}|host|online`),
    ...nodes.flatMap((n) => ['local', 'local-lvm', 'ceph-rbd'].map((s) => `${p}/storage/${n}/${s}|storage|available`)),
    `${p}/qemu/101|vm|running`,
    `${p}/qemu/102|vm|stopped`,
    `${p}/qemu/9000|vm|stopped`,
    `${p}/lxc/200|lxc|running`,
    `${p}/qemu/110|vm|running`,
    `${p}/qemu/113|vm|paused_io_error`,
    `${p}/lxc/202|lxc|stopped`,
    `${p}/qemu/103|vm|stopped`,
    `${p}/qemu/130|vm|running`,
    `${p}/lxc/210|lxc|running`,
  ];
  const guests: Array<[string, string]> = [
    ['qemu/101', 'pve1'],
    ['qemu/102', 'pve1'],
    ['qemu/9000', 'pve1'],
    ['lxc/200', 'pve1'],
    ['qemu/110', 'pve2'],
    ['qemu/113', 'pve2'],
    ['lxc/202', 'pve2'],
    ['qemu/103', 'pve3'],
    ['qemu/130', 'pve3'],
    ['lxc/210', 'pve3'],
  ];
  const stored: Array<[string, string]> = [
    ['qemu/101', 'pve1/local-lvm'],
    ['qemu/102', 'pve1/local-lvm'],
    ['qemu/9000', 'pve1/local-lvm'],
    ['lxc/200', 'pve1/local-lvm'],
    ['qemu/110', 'pve2/ceph-rbd'],
    ['qemu/113', 'pve2/ceph-rbd'],
    ['qemu/113', 'pve2/local-lvm'],
    ['lxc/202', 'pve2/local-lvm'],
    ['qemu/103', 'pve3/local-lvm'],
    ['qemu/130', 'pve3/local-lvm'],
    ['lxc/210', 'pve3/local-lvm'],
  ];
  const edges = [
    ...nodes.map((n) => `MEMBER_OF|${p}/node/${n}|${p}/cluster`),
    ...nodes.flatMap((n) =>
      ['local', 'local-lvm', 'ceph-rbd'].map((s) => `MEMBER_OF|${p}/storage/${n}/${s}|${p}/cluster`),
    ),
    ...guests.map(([g, n]) => `RUNS_ON|${p}/${g}|${p}/node/${n}`),
    ...stored.map(([g, s]) => `STORED_ON|${p}/${g}|${p}/storage/${s}`),
  ];
  return { resources: resources.sort(), edges: edges.sort() };
}

async function graphOf(c: string) {
  const prefix = `proxmox:${c}/`;
  const r = await driver.executeQuery(
    'MATCH (r:Resource) WHERE r.id STARTS WITH $prefix RETURN r.id + "|" + r.kind + "|" + r.state AS t ORDER BY t',
    { prefix },
  );
  const e = await driver.executeQuery(
    'MATCH (a:Resource)-[e]->(b:Resource) WHERE a.id STARTS WITH $prefix RETURN type(e) + "|" + a.id + "|" + b.id AS t, e.missingSince IS NOT NULL AS missing ORDER BY t',
    { prefix },
  );
  return {
    resources: r.records.map((x) => x.get('t') as string),
    edges: e.records.map((x) => x.get('t') as string),
    missingEdges: e.records.filter((x) => x.get('missing')).map((x) => x.get('t') as string),
  };
}

describe('syncProxmox against the stand-in 3-node cluster', () => {
  const c = `lab-${scope}`;

  it('yields the expected resources and edges, with agent, template, lock and HA attributes', async () => {
    standin.routes(labRoutes(c));
    const report = await syncProxmox(driver, standinClient(standin), { updateTag: 'sync-1' });
    expect(report.errors).toEqual([]);
    expect(report).toMatchObject({ complete: true, scope: `proxmox:${c}`, markedMissing: 0, stateChanges: [] });
    expect(report.resources).toEqual({ transformed: 23, written: 23, created: 23 });
    expect(report.edges).toEqual({ transformed: 33, written: 33, created: 33 });
    const g = await graphOf(c);
    expect(g.resources).toEqual(expected(c).resources);
    expect(g.edges).toEqual(expected(c).edges);
    const attr = async (id: string) => (await getResourceById(driver, `proxmox:${c}/${id}`))!.attributes;
    expect(await attr('qemu/101')).toMatchObject({
      qemu_guest_agent: 'running',
      agent: true,
      tags: ['prod', 'web'],
      mac_addresses: ['bc:24:11:2c:69:ec'],
      node: 'pve1',
      vmid: 101,
    });
    expect(await attr('qemu/110')).toMatchObject({
      qemu_guest_agent: 'not_running',
      hastate: 'started',
      ha_managed: true,
    });
    expect(await attr('qemu/113')).toMatchObject({ qemu_guest_agent: 'not_running', qmpstatus: 'io-error' });
    expect(await attr('qemu/103')).toMatchObject({ qemu_guest_agent: 'not_running' });
    expect(await attr('qemu/130')).toMatchObject({
      qemu_guest_agent: 'not_configured',
      smbios_uuid: '4c4c4544-0031-4d10-8033-b4c04f4e3132',
      serial_number: 'PVE-ESXI-01',
    });
    expect(await attr('qemu/9000')).toMatchObject({ template: true });
    expect(await attr('qemu/102')).toMatchObject({ lock: 'backup', qmpstatus: 'prelaunch' });
    // Only running VMs with the agent enabled were pinged, and only pings were POSTed.
    const posts = standin.requests.filter((r) => r.method === 'POST').map((r) => r.path);
    expect(posts.sort()).toEqual(['/nodes/pve1/qemu/101/agent/ping', '/nodes/pve2/qemu/110/agent/ping']);
  });

  it('running it again changes nothing: same counts, no new nodes or edges', async () => {
    const report = await syncProxmox(driver, standinClient(standin), { updateTag: 'sync-2' });
    expect(report).toMatchObject({ complete: true, markedMissing: 0, stateChanges: [], edgesMarkedMissing: 0 });
    expect(report.resources).toEqual({ transformed: 23, written: 23, created: 0 });
    expect(report.edges).toEqual({ transformed: 33, written: 33, created: 0 });
    const g = await graphOf(c);
    expect(g.resources).toEqual(expected(c).resources);
    expect(g.edges).toEqual(expected(c).edges);
  });

  it('reports state changes and removes attributes the provider stopped reporting', async () => {
    const table = labRoutes(c, { patchListing: { 'qemu/102': { lock: undefined } } });
    patchData(table, 'GET /nodes/pve1/qemu/101/status/current', { status: 'stopped', qmpstatus: 'stopped' });
    patchData(table, 'GET /nodes/pve1/qemu/102/status/current', { status: 'stopped', qmpstatus: 'stopped' }, ['lock']);
    standin.routes(table);
    const report = await syncProxmox(driver, standinClient(standin), { updateTag: 'sync-3' });
    expect(report.complete).toBe(true);
    expect(report.stateChanges).toEqual([
      { id: `proxmox:${c}/qemu/101`, kind: 'vm', from: 'running', to: 'stopped', rawState: 'stopped' },
    ]);
    const vm101 = await getResourceById(driver, `proxmox:${c}/qemu/101`);
    expect(vm101!.attributes.qemu_guest_agent).toBe('not_running');
    const vm102 = await getResourceById(driver, `proxmox:${c}/qemu/102`);
    expect(vm102!.attributes.lock).toBeUndefined();
    expect(vm102!.rawState).toBe('stopped');
    standin.routes(labRoutes(c));
    const back = await syncProxmox(driver, standinClient(standin), { updateTag: 'sync-4' });
    expect(back.stateChanges.map((s) => `${s.id}:${s.from}->${s.to}`)).toEqual([
      `proxmox:${c}/qemu/101:stopped->running`,
    ]);
  });

  it('a complete sync that no longer sees a guest marks it missing, keeps it and its edges, and un-marks it when it returns', async () => {
    const gone = `proxmox:${c}/lxc/202`;
    standin.routes(labRoutes(c, { without: ['lxc/202'] }));
    const first = await syncProxmox(driver, standinClient(standin), { updateTag: 'sync-5' });
    expect(first).toMatchObject({ complete: true, markedMissing: 1, edgesMarkedMissing: 2 });
    const r = await getResourceById(driver, gone);
    expect(r).toMatchObject({ lifecycle: 'missing', state: 'stopped' });
    expect(r!.missingSince).toMatch(/^\d{4}-/);
    const g = await graphOf(c);
    expect(g.resources).toEqual(expected(c).resources);
    expect(g.edges).toEqual(expected(c).edges);
    expect(g.missingEdges).toEqual([
      `RUNS_ON|${gone}|proxmox:${c}/node/pve2`,
      `STORED_ON|${gone}|proxmox:${c}/storage/pve2/local-lvm`,
    ]);
    expect((await listMissingResources(driver, { scope: `proxmox:${c}` })).map((m) => m.id)).toEqual([gone]);

    const again = await syncProxmox(driver, standinClient(standin), { updateTag: 'sync-6' });
    expect(again.markedMissing).toBe(0);
    expect((await getResourceById(driver, gone))!.missingSince).toBe(r!.missingSince);

    standin.routes(labRoutes(c));
    const back = await syncProxmox(driver, standinClient(standin), { updateTag: 'sync-7' });
    expect(back.complete).toBe(true);
    expect(await getResourceById(driver, gone)).toMatchObject({ lifecycle: 'active', missingSince: null });
    expect((await graphOf(c)).missingEdges).toEqual([]);
    expect(await listMissingResources(driver, { scope: `proxmox:${c}` })).toEqual([]);
  });
});
