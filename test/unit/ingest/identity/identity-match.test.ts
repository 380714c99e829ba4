import { describe, expect, it } from 'vitest';
import type { IdentityFacts } from '../../../../src/graph/resources/queries.js';
import { matchIdentities } from '../../../../src/ingest/identity/identity-match.js';

const fact = (id: string, over: Partial<IdentityFacts> = {}): IdentityFacts => ({
  id,
  kind: id.includes('/host/') ? 'host' : id.includes('/lxc/') ? 'lxc' : 'vm',
  provider: id.startsWith('vcenter') ? 'vcenter' : 'proxmox',
  name: id.split('/').pop()!,
  macs: [],
  smbiosUuid: null,
  serial: null,
  ...over,
});

const NESTED_UUID = '4c4c4544-0031-4d10-8033-b4c04f4e3132';

describe('matchIdentities', () => {
  it('links a vCenter host to the Proxmox VM it runs in, host → vm, high confidence, with every rule in the evidence', () => {
    const { matches } = matchIdentities([
      fact('proxmox:lab/qemu/130', {
        name: 'esxi-nested01',
        macs: ['bc:24:11:e5:a1:30', 'bc:24:11:e5:a1:31'],
        smbiosUuid: NESTED_UUID,
        serial: 'PVE-ESXI-01',
      }),
      fact('vcenter:vc/host/host-12', {
        name: 'esxi-nested01.lab.local',
        macs: ['BC:24:11:E5:A1:30'],
        smbiosUuid: NESTED_UUID.toUpperCase(),
        serial: 'PVE-ESXI-01',
      }),
      fact('proxmox:lab/qemu/101', { name: 'web01', macs: ['bc:24:11:2c:69:ec'] }),
      fact('vcenter:vc/host/host-11', {
        name: 'esxi-01',
        macs: ['e4:43:4b:a1:10:00'],
        smbiosUuid: '4c4c4544-0042-3510-8052-b7c04f333432',
      }),
    ]);
    expect(matches).toEqual([
      {
        fromId: 'vcenter:vc/host/host-12',
        toId: 'proxmox:lab/qemu/130',
        rule: 'smbios_uuid',
        confidence: 'high',
        evidence: expect.stringMatching(/^smbios_uuid=.*; mac_address=bc:24:11:e5:a1:30; serial=pve-esxi-01$/),
      },
    ]);
  });

  it('matches a UUID read in the other byte order', () => {
    const { matches } = matchIdentities([
      fact('proxmox:lab/qemu/130', { smbiosUuid: '4c4c4544-0031-4d10-8033-b4c04f4e3132' }),
      fact('vcenter:vc/host/host-12', { smbiosUuid: '44454c4c-3100-104d-8033-b4c04f4e3132' }),
    ]);
    expect(matches).toHaveLength(1);
    expect(matches[0]!.rule).toBe('smbios_uuid');
  });

  it('a name alone is low confidence, and only for resources no strong rule matched', () => {
    const { matches } = matchIdentities([
      fact('proxmox:lab/qemu/140', { name: 'esxi-02' }),
      fact('vcenter:vc/host/host-14', { name: 'ESXi-02.lab.local' }),
      fact('proxmox:lab/qemu/130', { name: 'esxi-nested01', macs: ['bc:24:11:e5:a1:30'] }),
      fact('vcenter:vc/host/host-12', { name: 'esxi-nested01', macs: ['bc:24:11:e5:a1:30'] }),
      fact('vcenter:vc/vm/vm-7', { name: 'esxi-nested01' }),
    ]);
    expect(matches.map((m) => `${m.fromId}>${m.toId}:${m.rule}:${m.confidence}`)).toEqual([
      'vcenter:vc/host/host-12>proxmox:lab/qemu/130:mac_address:high',
      'vcenter:vc/host/host-14>proxmox:lab/qemu/140:name:low',
    ]);
  });

  it('a value two resources of one provider share is ambiguous and matches nothing; placeholder serials and UUIDs are ignored', () => {
    const { matches, ambiguous } = matchIdentities(
      [
        fact('proxmox:lab/qemu/1', {
          macs: ['bc:24:11:00:00:01'],
          serial: 'To be filled by O.E.M.',
          smbiosUuid: '00000000-0000-0000-0000-000000000000',
        }),
        fact('proxmox:lab/qemu/2', { macs: ['bc:24:11:00:00:01'] }),
        fact('vcenter:vc/host/host-1', {
          macs: ['bc:24:11:00:00:01'],
          serial: 'To be filled by O.E.M.',
          smbiosUuid: '00000000-0000-0000-0000-000000000000',
        }),
      ],
      ['smbios_uuid', 'mac_address', 'serial'],
    );
    expect(matches).toEqual([]);
    expect(ambiguous).toEqual([
      {
        rule: 'mac_address',
        value: 'bc:24:11:00:00:01',
        ids: ['proxmox:lab/qemu/1', 'proxmox:lab/qemu/2', 'vcenter:vc/host/host-1'],
      },
    ]);
  });

  it('never links two resources of the same provider, nor non-machines', () => {
    const { matches } = matchIdentities([
      fact('proxmox:a/qemu/1', { macs: ['bc:24:11:00:00:09'] }),
      fact('proxmox:b/qemu/1', { macs: ['bc:24:11:00:00:09'] }),
      { ...fact('vcenter:vc/datastore/ds-1', { macs: ['bc:24:11:00:00:09'] }), kind: 'storage' },
    ]);
    expect(matches).toEqual([]);
  });

  it('a resource strongly matching two partners of one provider gets medium on both', () => {
    const { matches } = matchIdentities([
      fact('vcenter:vc/host/host-12', { macs: ['bc:24:11:00:00:0a'], smbiosUuid: NESTED_UUID }),
      fact('proxmox:lab/qemu/130', { smbiosUuid: NESTED_UUID }),
      fact('proxmox:lab/qemu/131', { macs: ['bc:24:11:00:00:0a'] }),
    ]);
    expect(matches.map((m) => `${m.toId}:${m.confidence}`)).toEqual([
      'proxmox:lab/qemu/130:medium',
      'proxmox:lab/qemu/131:medium',
    ]);
    expect(matches[0]!.evidence).toMatch(/conflict/);
  });
});
