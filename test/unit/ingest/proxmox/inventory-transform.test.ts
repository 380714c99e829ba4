import { describe, expect, it } from 'vitest';
import { guestAgentState } from '../../../../src/ingest/proxmox/guest-agent.js';
import { normaliseMac } from '../../../../src/ingest/identity/mac.js';
import {
  parseGuestVolumes,
  parseMacAddresses,
  parseSmbiosSerial,
  parseSmbiosUuid,
} from '../../../../src/ingest/proxmox/guest-config.js';
import { parseClusterResources, parseClusterStatus } from '../../../../src/ingest/proxmox/inventory-parse.js';
import { transformProxmoxInventory, type GuestDetail } from '../../../../src/ingest/proxmox/inventory-transform.js';
import { readFixture } from '../../../support/fixtures.js';

const data = (rel: string) => (readFixture(`proxmox/cluster-lab/${rel}`) as { data: unknown }).data;

function input(details: Map<string, GuestDetail> = new Map(), listing = data('cluster-resources.json')) {
  const status = parseClusterStatus(data('cluster-status.json'));
  const resources = parseClusterResources(listing);
  if (!status.ok || !resources.ok) throw new Error('fixtures do not parse');
  return { apiUrl: 'https://pve1.lab:8006', status: status.value, resources: resources.value, details };
}

function fullDetails(): Map<string, GuestDetail> {
  const m = new Map<string, GuestDetail>();
  for (const [key, node] of [
    ['qemu/101', 'pve1'],
    ['qemu/113', 'pve2'],
    ['qemu/130', 'pve3'],
    ['lxc/200', 'pve1'],
  ] as const) {
    const [type, vmid] = key.split('/');
    m.set(key, {
      status: data(`${node}/${type}-${vmid}-status-current.json`),
      config: data(`${node}/${type}-${vmid}-config.json`),
      failed: false,
      ping: key === 'qemu/101' ? { ok: true } : null,
    });
  }
  return m;
}

describe('guest config parsing', () => {
  it('finds volumes on storages, leaving out CD-ROMs, cloud-init drives, bind mounts and pass-through', () => {
    const volumes = parseGuestVolumes({
      scsi0: 'local-lvm:vm-101-disk-0,iothread=1,size=32G',
      efidisk0: 'local-lvm:vm-101-disk-1,efitype=4m,size=4M',
      ide2: 'local:iso/debian-12.iso,media=cdrom',
      ide0: 'local-lvm:vm-101-cloudinit,media=cdrom',
      sata1: '/dev/disk/by-id/ata-WDC_WD40EFRX,size=3907018584K',
      unused0: 'ceph-rbd:vm-101-disk-2',
      mp0: '/srv/data,mp=/data',
      rootfs: 'local-zfs:subvol-200-disk-0,size=8G',
      net0: 'virtio=BC:24:11:2C:69:EC,bridge=vmbr0',
    });
    expect(volumes.map((v) => `${v.key}:${v.storage}`)).toEqual([
      'efidisk0:local-lvm',
      'rootfs:local-zfs',
      'scsi0:local-lvm',
      'unused0:ceph-rbd',
    ]);
  });

  it('reads MACs from QEMU (<model>=, macaddr=) and LXC (hwaddr=) lines in NIC order', () => {
    expect(
      parseMacAddresses({
        net1: 'model=e1000,macaddr=bc-24-11-00-00-02',
        net0: 'virtio=BC:24:11:2C:69:EC,bridge=vmbr0',
        net2: 'name=eth0,hwaddr=BC:24:11:5E:3F:01,type=veth',
      }),
    ).toEqual(['bc:24:11:2c:69:ec', 'bc:24:11:00:00:02', 'bc:24:11:5e:3f:01']);
    expect(normaliseMac('not-a-mac')).toBeNull();
  });

  it('reads the SMBIOS uuid and a base64 serial', () => {
    const cfg = data('pve3/qemu-130-config.json') as Record<string, unknown>;
    expect(parseSmbiosUuid(cfg)).toBe('4c4c4544-0031-4d10-8033-b4c04f4e3132');
    expect(parseSmbiosSerial(cfg)).toBe('PVE-ESXI-01');
    expect(parseSmbiosSerial({ smbios1: 'uuid=x,serial=ABC123' })).toBe('ABC123');
    expect(parseSmbiosUuid({ smbios1: 'manufacturer=x' })).toBeNull();
  });
});

describe('guest agent state', () => {
  const ping = (name: string) => {
    const f = readFixture(`proxmox/guest-status/${name}`) as { _http_status?: number; message?: string };
    return f._http_status
      ? { ok: false as const, status: f._http_status, message: f.message ?? null }
      : { ok: true as const };
  };
  it.each([
    [{ enabled: true, running: true, ping: ping('agent-ping-ok.json') }, 'running'],
    [{ enabled: true, running: true, ping: ping('agent-ping-not-running.http500.json') }, 'not_running'],
    [{ enabled: true, running: true, ping: ping('agent-ping-vm-stopped.http500.json') }, 'not_running'],
    [{ enabled: true, running: true, ping: ping('agent-ping-not-configured.http500.json') }, 'not_configured'],
    [{ enabled: false, running: true, ping: null }, 'not_configured'],
    [{ enabled: true, running: false, ping: null }, 'not_running'],
    [{ enabled: true, running: true, ping: { ok: false as const, status: null, message: 'timeout' } }, null],
  ])('%o → %s', (inputs, expected) => {
    expect(guestAgentState(inputs)).toBe(expected);
  });
});

describe('transformProxmoxInventory', () => {
  it('builds ids, kinds, states and edges from the lab listing', () => {
    const inv = transformProxmoxInventory(input(fullDetails()));
    expect(inv.scope).toBe('proxmox:lab');
    expect(inv.problems).toEqual([]);
    expect(inv.rows).toHaveLength(23);
    const byId = new Map(inv.rows.map((r) => [r.resource.id, r]));
    expect(byId.get('proxmox:lab/cluster')!.resource).toMatchObject({
      kind: 'cluster',
      state: 'online',
      rawState: 'quorate:1/3 of 3 nodes online',
    });
    expect(byId.get('proxmox:lab/qemu/113')!.resource).toMatchObject({
      state: 'paused_io_error',
      rawState: 'running/io-error',
    });
    expect(byId.get('proxmox:lab/qemu/101')!.resource.attributes).toMatchObject({
      qemu_guest_agent: 'running',
      smbios_uuid: '7b5c1d2e-8f3a-4b6c-9d1e-2f3a4b5c6d7e',
    });
    expect(byId.get('proxmox:lab/storage/pve2/ceph-rbd')!.resource.attributes).toMatchObject({
      shared: true,
      content: ['images', 'rootdir'],
    });
    expect(inv.edges.filter((e) => e.type === 'STORED_ON' && e.fromId === 'proxmox:lab/qemu/101')).toEqual([
      {
        type: 'STORED_ON',
        fromId: 'proxmox:lab/qemu/101',
        toId: 'proxmox:lab/storage/pve1/local-lvm',
        provenance: 'observed',
        source: 'proxmox:lab',
        evidence: 'scsi0=vm-101-disk-0',
      },
    ]);
    expect(inv.edges.every((e) => e.provenance === 'observed' && e.source === 'proxmox:lab')).toBe(true);
  });

  it('marks guests without details as coarse (state from the listing), and fetched ones as full', () => {
    const inv = transformProxmoxInventory(input(fullDetails()));
    const coarse = inv.rows
      .filter((r) => r.coarse)
      .map((r) => r.resource.id)
      .sort();
    expect(coarse).toEqual([
      'proxmox:lab/lxc/202',
      'proxmox:lab/lxc/210',
      'proxmox:lab/qemu/102',
      'proxmox:lab/qemu/103',
      'proxmox:lab/qemu/110',
      'proxmox:lab/qemu/9000',
    ]);
    // Without status/current, the listing's `running` is all there is: no qmpstatus to refine it.
    const vm110 = inv.rows.find((r) => r.resource.id === 'proxmox:lab/qemu/110')!;
    expect(vm110.resource.state).toBe('running');
    expect(vm110.clear).not.toContain('qmpstatus');
  });

  it('clears attributes their source answered without (a lock that ended) but keeps the agent state when the ping failed', () => {
    const details = fullDetails();
    details.set('qemu/101', {
      ...details.get('qemu/101')!,
      ping: { ok: false, status: null, message: 'connect ETIMEDOUT' },
    });
    const inv = transformProxmoxInventory(input(details));
    const vm101 = inv.rows.find((r) => r.resource.id === 'proxmox:lab/qemu/101')!;
    expect(vm101.resource.attributes?.qemu_guest_agent).toBeUndefined();
    expect(vm101.clear).toContain('lock');
    expect(vm101.clear).not.toContain('qemu_guest_agent');
  });

  it('guests of an offline node are unreachable (VMs) or unknown (containers), not coarse', () => {
    const listing = (data('cluster-resources.json') as Array<Record<string, unknown>>).map((e) =>
      e.node === 'pve3'
        ? {
            ...e,
            status: e.type === 'node' || e.type === 'storage' ? (e.type === 'node' ? 'offline' : 'unknown') : 'unknown',
          }
        : e,
    );
    const inv = transformProxmoxInventory(input(fullDetails(), listing));
    const row = (id: string) => inv.rows.find((r) => r.resource.id === `proxmox:lab/${id}`)!;
    expect(row('qemu/130')).toMatchObject({
      coarse: false,
      resource: { state: 'unreachable', rawState: 'unknown/node pve3 offline' },
    });
    expect(row('lxc/210').resource.state).toBe('unknown');
    expect(row('node/pve3').resource.state).toBe('offline');
    expect(row('cluster').resource.state).toBe('degraded');
    expect(row('storage/pve3/local').resource.state).toBe('unknown');
  });

  it('records a malformed listing entry as a problem and skips it, without failing the others', () => {
    const listing = [
      ...(data('cluster-resources.json') as unknown[]),
      { id: 'qemu/999', type: 'qemu', vmid: 'abc', node: 'pve1' },
      { id: 'weird' },
    ];
    const inv = transformProxmoxInventory(input(new Map(), listing));
    expect(inv.rows).toHaveLength(23);
    expect(inv.problems).toHaveLength(2);
    expect(inv.skipped.map((s) => s.id)).toEqual(['qemu/999', 'weird']);
  });

  it('names a standalone node after itself and refuses a status without any name', () => {
    const single = parseClusterStatus([{ type: 'node', id: 'node/pve', name: 'pve', local: 1, online: 1, nodeid: 0 }]);
    expect(single).toMatchObject({ ok: true, value: { name: 'pve', standalone: true } });
    expect(parseClusterStatus([]).ok).toBe(false);
    expect(parseClusterStatus({ data: [] }).ok).toBe(false);
    expect(parseClusterResources('nope').ok).toBe(false);
  });
});
