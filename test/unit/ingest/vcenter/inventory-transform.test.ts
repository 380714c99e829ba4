import { describe, expect, it } from 'vitest';
import { readFixture } from '../../../support/fixtures.js';
import { transformVcenterInventory } from '../../../../src/ingest/vcenter/inventory-transform.js';
import { parseMoRef, readManagedObjects, unbox } from '../../../../src/ingest/vcenter/vmomi.js';

const fixture = (name: string): unknown => readFixture(`vcenter/${name}`);
const VMOMI = fixture('inventory-vmomi.json');
const PASCAL = fixture('inventory-pascal.json');

describe('vmomi reader', () => {
  it('parses references in all three encodings', () => {
    expect(parseMoRef({ _typeName: 'ManagedObjectReference', type: 'VirtualMachine', value: 'vm-101' })).toEqual({
      type: 'VirtualMachine',
      value: 'vm-101',
    });
    expect(parseMoRef({ Type: 'HostSystem', Value: 'host-11', ServerGUID: '' })).toEqual({
      type: 'HostSystem',
      value: 'host-11',
    });
    expect(parseMoRef('vim.Datastore:datastore-21')).toEqual({ type: 'Datastore', value: 'datastore-21' });
    expect(parseMoRef('None')).toBeNull();
  });

  it('unboxes VMOMI values and Go ArrayOf wrappers', () => {
    expect(
      unbox({
        _typeName: 'ArrayOfManagedObjectReference',
        _value: [{ _typeName: 'ManagedObjectReference', type: 'Datastore', value: 'd' }],
      }),
    ).toEqual([{ _typeName: 'ManagedObjectReference', type: 'Datastore', value: 'd' }]);
    expect(unbox({ ManagedObjectReference: [{ Type: 'Datastore', Value: 'd' }] })).toEqual([
      { Type: 'Datastore', Value: 'd' },
    ]);
  });

  it('reads property paths whether the collector returned the leaf or a parent object', () => {
    const doc = [
      {
        obj: { type: 'HostSystem', value: 'host-1' },
        propSet: [
          { name: 'hardware.systemInfo', val: { _typeName: 'HostSystemInfo', uuid: 'U' } },
          { name: 'runtime.powerState', val: 'poweredOn' },
        ],
      },
      { Self: { Type: 'VirtualMachine', Value: 'vm-1' }, Runtime: { PowerState: 'poweredOff' } },
    ];
    const { objects } = readManagedObjects(doc);
    expect(objects[0]!.get('hardware.systemInfo.uuid')).toBe('U');
    expect(objects[0]!.get('runtime.powerState')).toBe('poweredOn');
    expect(objects[1]!.get('runtime.powerState')).toBe('poweredOff');
  });
});

describe('transformVcenterInventory', () => {
  const summary = (doc: unknown) => {
    const inv = transformVcenterInventory(doc, 'vc01');
    return {
      rows: inv.rows.map((r) => `${r.resource.id}|${r.resource.kind}|${r.resource.state}|${r.resource.name}`).sort(),
      attrs: Object.fromEntries(inv.rows.map((r) => [r.resource.id, r.resource.attributes])),
      edges: inv.edges.map((e) => `${e.type}|${e.fromId}|${e.toId}`).sort(),
      kinds: inv.kinds,
      ignored: inv.ignored,
      problems: inv.problems,
    };
  };

  it('maps VMs, hosts, the cluster and datastores with their edges', () => {
    const s = summary(VMOMI);
    expect(s.rows).toEqual([
      'vcenter:vc01/cluster/domain-c8|cluster|online|lab-cluster',
      'vcenter:vc01/datastore/datastore-21|storage|available|datastore1',
      'vcenter:vc01/datastore/datastore-22|storage|unavailable|nfs-iso',
      'vcenter:vc01/host/host-11|host|online|esxi-01.lab.local',
      'vcenter:vc01/host/host-12|host|maintenance|esxi-nested01.lab.local',
      'vcenter:vc01/vm/vm-101|vm|running|vcsa',
      'vcenter:vc01/vm/vm-102|vm|stopped|win-build',
      'vcenter:vc01/vm/vm-103|vm|suspended|app-old',
    ]);
    expect(s.edges).toEqual([
      'MEMBER_OF|vcenter:vc01/host/host-11|vcenter:vc01/cluster/domain-c8',
      'MEMBER_OF|vcenter:vc01/host/host-12|vcenter:vc01/cluster/domain-c8',
      'RUNS_ON|vcenter:vc01/vm/vm-101|vcenter:vc01/host/host-11',
      'RUNS_ON|vcenter:vc01/vm/vm-102|vcenter:vc01/host/host-12',
      'RUNS_ON|vcenter:vc01/vm/vm-103|vcenter:vc01/host/host-12',
      'STORED_ON|vcenter:vc01/vm/vm-101|vcenter:vc01/datastore/datastore-21',
      'STORED_ON|vcenter:vc01/vm/vm-102|vcenter:vc01/datastore/datastore-21',
      'STORED_ON|vcenter:vc01/vm/vm-102|vcenter:vc01/datastore/datastore-22',
      'STORED_ON|vcenter:vc01/vm/vm-103|vcenter:vc01/datastore/datastore-21',
    ]);
    expect(s.kinds).toEqual(['cluster', 'host', 'storage', 'vm']);
    expect(s.ignored).toBe(2);
    expect(s.problems).toEqual([]);
    expect(s.attrs['vcenter:vc01/host/host-12']).toMatchObject({
      smbios_uuid: '4c4c4544-0031-4d10-8033-b4c04f4e3132',
      serial_number: 'PVE-ESXI-01',
      mac_addresses: ['bc:24:11:e5:a1:30', 'bc:24:11:e5:a1:31'],
      moref: 'host-12',
    });
    expect(s.attrs['vcenter:vc01/vm/vm-101']).toMatchObject({
      ip_addresses: ['10.20.2.10', 'fe80::250:56ff:fea1:b2c3'],
      mac_addresses: ['00:50:56:a1:b2:c3'],
      num_cpu: 4,
    });
  });

  it('gives the same rows, attributes and edges from the PascalCase encoding', () => {
    expect(summary(PASCAL)).toEqual(summary(VMOMI));
  });

  it('clears what the document carried empty but not what it did not collect', () => {
    const inv = transformVcenterInventory(VMOMI, 'vc01');
    expect(inv.rows.find((r) => r.resource.id.endsWith('vm-102'))!.clear).toEqual(
      expect.arrayContaining(['mac_addresses', 'ip_addresses']),
    );
    const partial = transformVcenterInventory(
      [{ obj: { type: 'VirtualMachine', value: 'vm-9' }, propSet: [{ name: 'runtime.powerState', val: 'poweredOn' }] }],
      'vc01',
    );
    expect(partial.rows[0]!.clear).toEqual([]);
    expect(partial.rows[0]!.resource).toMatchObject({ name: 'vm-9', state: 'running' });
  });

  it('records unreadable entries as problems', () => {
    const inv = transformVcenterInventory([{ foo: 1 }, 42], 'vc01');
    expect(inv.rows).toEqual([]);
    expect(inv.problems).toEqual(['2 entries are neither ObjectContent nor managed objects']);
  });
});
