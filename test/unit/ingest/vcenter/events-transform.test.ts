import { describe, expect, it } from 'vitest';
import { VCENTER_EVENT_TYPES, vcenterEventTypeInfo } from '../../../../src/ingest/vcenter/event-types.js';
import { transformVcenterEvent } from '../../../../src/ingest/vcenter/events-transform.js';
import { parseMoRef } from '../../../../src/ingest/vcenter/payload.js';
import { fixtureFiles, readFixture } from '../../../support/fixtures.js';

const server = 'vc1';
const ref = (type: string, value: string) => ({ _typeName: 'ManagedObjectReference', type, value });

/** A VMOMI-JSON event (govmomi's encoder, vCenter ≥ 8.0U1): `_typeName` everywhere. */
function vmomi(typeName: string, extra: Record<string, unknown> = {}) {
  return {
    _typeName: typeName,
    key: 5001,
    chainId: 4990,
    createdTime: '2026-05-14T02:08:30.123456Z',
    userName: 'VSPHERE.LOCAL\\alice',
    datacenter: { _typeName: 'DatacenterEventArgument', name: 'DC1', datacenter: ref('Datacenter', 'datacenter-2') },
    host: { _typeName: 'HostEventArgument', name: 'esx1.lan', host: ref('HostSystem', 'host-21') },
    vm: { _typeName: 'VmEventArgument', name: 'web-01', vm: ref('VirtualMachine', 'vm-101') },
    fullFormattedMessage: 'web-01 on esx1.lan in DC1 is powered off',
    ...extra,
  };
}

describe('vCenter event class → event type', () => {
  it.each([
    ['VmPoweredOnEvent', 'vm_start'],
    ['DrsVmPoweredOnEvent', 'vm_start'],
    ['VmPoweredOffEvent', 'vm_stop'],
    ['VmSuspendedEvent', 'vm_suspend'],
    ['VmResettingEvent', 'vm_reset'],
    ['VmStartingEvent', 'vm_starting'],
    ['VmStoppingEvent', 'vm_stopping'],
    ['VmGuestShutdownEvent', 'vm_guest_shutdown_request'],
    ['VmGuestRebootEvent', 'vm_guest_reboot_request'],
    ['VmGuestStandbyEvent', 'vm_guest_standby_request'],
    ['VmMigratedEvent', 'vm_migrate'],
    ['DrsVmMigratedEvent', 'vm_migrate'],
    ['VmRelocatedEvent', 'vm_migrate'],
    ['VmRemovedEvent', 'vm_delete'],
    ['VmCreatedEvent', 'vm_create'],
    ['VmRenamedEvent', 'vm_rename'],
    ['VmDisconnectedEvent', 'vm_disconnect'],
    ['VmConnectedEvent', 'vm_connect'],
    ['VmFailedToPowerOnEvent', 'vm_power_on_failed'],
    ['VmFailedToPowerOffEvent', 'vm_power_off_failed'],
    ['VmRestartedByHAEvent', 'vm_restarted_by_ha'],
    ['com.vmware.vc.ha.VmRestartedByHAEvent', 'vm_restarted_by_ha'],
    ['HostConnectionLostEvent', 'host_connection_lost'],
    ['HostDisconnectedEvent', 'host_disconnect'],
    ['HostShutdownEvent', 'host_shutdown'],
  ])('%s → %s', (cls, type) => {
    expect(vcenterEventTypeInfo(cls)?.type).toBe(type);
  });

  it('unknown classes are not in the table (the transform keeps them as other)', () => {
    expect(vcenterEventTypeInfo('TaskEvent')).toBeNull();
    expect(vcenterEventTypeInfo('constructor')).toBeNull();
    expect(Object.keys(VCENTER_EVENT_TYPES).length).toBeGreaterThan(20);
  });
});

describe('parseMoRef: three encodings', () => {
  it.each([
    [ref('VirtualMachine', 'vm-101'), { type: 'VirtualMachine', value: 'vm-101' }],
    [
      { Type: 'HostSystem', Value: 'host-21' },
      { type: 'HostSystem', value: 'host-21' },
    ],
    ['vim.VirtualMachine:vm-101', { type: 'VirtualMachine', value: 'vm-101' }],
    ['None', null],
    [null, null],
    [{ type: 'VirtualMachine' }, null],
  ])('%j', (input, expected) => {
    expect(parseMoRef(input)).toEqual(expected);
  });
});

describe('transformVcenterEvent: VMOMI JSON', () => {
  it('VmPoweredOffEvent by a user', () => {
    expect(transformVcenterEvent(vmomi('VmPoweredOffEvent'), { server })).toEqual({
      ok: true,
      event: {
        id: 'vcenter:vc1/event/5001',
        provider: 'vcenter',
        resourceId: 'vcenter:vc1/vm/vm-101',
        resourceKind: 'vm',
        objectId: 'vm-101',
        hostId: 'vcenter:vc1/host/host-21',
        node: 'esx1.lan',
        sourceNode: null,
        type: 'vm_stop',
        rawType: 'VmPoweredOffEvent',
        actor: 'VSPHERE.LOCAL\\alice',
        actorKind: 'human',
        tokenId: null,
        startedAt: '2026-05-14T02:08:30.123Z',
        endedAt: '2026-05-14T02:08:30.123Z',
        statusClass: 'ok',
        statusText: null,
        chainId: '4990',
        message: 'web-01 on esx1.lan in DC1 is powered off',
        pid: null,
        pstart: null,
      },
    });
  });

  it('an empty userName is a system action', () => {
    const r = transformVcenterEvent(vmomi('VmPoweredOffEvent', { userName: '' }), { server });
    expect(r.ok && [r.event.actor, r.event.actorKind]).toEqual([null, 'system']);
  });

  it('VmMigratedEvent: host is the destination, sourceHost the source', () => {
    const ev = vmomi('VmMigratedEvent', {
      sourceHost: { _typeName: 'HostEventArgument', name: 'esx2.lan', host: ref('HostSystem', 'host-22') },
    });
    const r = transformVcenterEvent(ev, { server });
    expect(r.ok && [r.event.type, r.event.node, r.event.sourceNode, r.event.resourceId]).toEqual([
      'vm_migrate',
      'esx1.lan',
      'esx2.lan',
      'vcenter:vc1/vm/vm-101',
    ]);
  });

  it('host events concern the host, not a VM', () => {
    const r = transformVcenterEvent(vmomi('HostConnectionLostEvent', { vm: null, userName: '' }), { server });
    expect(r.ok && [r.event.type, r.event.resourceId, r.event.resourceKind, r.event.actorKind]).toEqual([
      'host_connection_lost',
      'vcenter:vc1/host/host-21',
      'host',
      'system',
    ]);
  });

  it('failures are stored as errors', () => {
    const r = transformVcenterEvent(vmomi('VmFailedToPowerOnEvent'), { server });
    expect(r.ok && [r.event.type, r.event.statusClass]).toEqual(['vm_power_on_failed', 'error']);
  });

  it.each(['EventEx', 'ExtendedEvent'])('VmRestartedByHAEvent as %s: the HA manager acted', (cls) => {
    const r = transformVcenterEvent(
      vmomi(cls, { eventTypeId: 'com.vmware.vc.ha.VmRestartedByHAEvent', userName: '', severity: 'warning' }),
      { server },
    );
    expect(r.ok && [r.event.type, r.event.rawType, r.event.actor, r.event.actorKind, r.event.statusClass]).toEqual([
      'vm_restarted_by_ha',
      'com.vmware.vc.ha.VmRestartedByHAEvent',
      null,
      'ha_manager',
      'warning',
    ]);
  });

  it('unknown classes are kept as other with their raw type', () => {
    const r = transformVcenterEvent(vmomi('VmReconfiguredEventX'), { server });
    expect(r.ok && [r.event.type, r.event.rawType, r.event.resourceId]).toEqual([
      'other',
      'VmReconfiguredEventX',
      'vcenter:vc1/vm/vm-101',
    ]);
  });
});

describe('transformVcenterEvent: pyVmomi and govc shapes', () => {
  it('pyVmomi references and _vimtype', () => {
    const ev = {
      _vimtype: 'vim.event.VmPoweredOnEvent',
      key: 77,
      chainId: 76,
      createdTime: '2026-05-14T02:08:30Z',
      userName: 'root',
      host: { name: 'esx1.lan', host: 'vim.HostSystem:host-21' },
      vm: { name: 'web-01', vm: 'vim.VirtualMachine:vm-101' },
    };
    const r = transformVcenterEvent(ev, { server });
    expect(r.ok && [r.event.type, r.event.resourceId, r.event.hostId]).toEqual([
      'vm_start',
      'vcenter:vc1/vm/vm-101',
      'vcenter:vc1/host/host-21',
    ]);
  });

  it('a short govc events -json record has no reference: resource unknown', () => {
    const r = transformVcenterEvent(
      {
        type: 'VmPoweredOffEvent',
        createdTime: '2026-05-14T02:08:30Z',
        category: 'info',
        message: 'web-01 is powered off',
        key: 88,
      },
      { server },
    );
    expect(r.ok && [r.event.type, r.event.resourceId, r.event.message, r.event.statusClass]).toEqual([
      'vm_stop',
      null,
      'web-01 is powered off',
      'ok',
    ]);
  });
});

describe('transformVcenterEvent: rejections', () => {
  it.each([
    [vmomi('VmPoweredOffEvent', { key: undefined }), 'key'],
    [vmomi('VmPoweredOffEvent', { key: -3 }), 'key'],
    [vmomi('VmPoweredOffEvent', { createdTime: 'yesterday' }), 'createdTime'],
    [{ key: 1, createdTime: '2026-05-14T02:08:30Z' }, 'event class unknown'],
    [[1, 2], 'JSON object'],
  ])('%j → %s', (input, word) => {
    const r = transformVcenterEvent(input, { server });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toContain(word);
  });
});

describe('transformVcenterEvent: every VEBA fixture (PascalCase, with and without CloudEvent envelope)', () => {
  const expected: Record<
    string,
    { type: string; rawType: string; resourceId: string | null; actorKind: string; id: string }
  > = {
    'kn-go-echo_testdata_cloudevent.json': {
      type: 'vm_stop',
      rawType: 'VmPoweredOffEvent',
      resourceId: 'vcenter:vc1/vm/vm-56',
      actorKind: 'human',
      id: 'vcenter:vc1/event/9902',
    },
    'kn-pcli-ha-restarted-vms_test-payload.EventEx.json': {
      type: 'other',
      rawType: 'com.vmware.vc.HA.ClusterFailoverActionCompletedEvent',
      resourceId: 'vcenter:vc1/cluster/domain-c52',
      actorKind: 'system',
      id: 'vcenter:vc1/event/929015',
    },
    'kn-ps-slack_test-payload.VmPoweredOffEvent.json': {
      type: 'vm_stop',
      rawType: 'VmPoweredOffEvent',
      resourceId: 'vcenter:vc1/vm/vm-7114',
      actorKind: 'human',
      id: 'vcenter:vc1/event/607954',
    },
    'kn-ps-vsphere-inv-slack_test-payload-2.TaskEvent.json': {
      type: 'other',
      rawType: 'TaskEvent',
      resourceId: null,
      actorKind: 'human',
      id: 'vcenter:vc1/event/8480315',
    },
    'kn-py-vm-attr_testevent.DrsVmPoweredOnEvent.json': {
      type: 'vm_start',
      rawType: 'DrsVmPoweredOnEvent',
      resourceId: 'vcenter:vc1/vm/vm-596',
      actorKind: 'human',
      id: 'vcenter:vc1/event/992270',
    },
  };

  it('covers every file in the folder', () => {
    expect(fixtureFiles('vcenter/veba-verbatim')).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected))('%s', (file, want) => {
    // Bare broker payloads name their class only in the file name, as a caller would know it from the topic.
    const typeName = /\.([A-Za-z]+Event)\.json$/.exec(file)?.[1];
    const r = transformVcenterEvent(readFixture(`vcenter/veba-verbatim/${file}`), { server, typeName });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const { type, rawType, resourceId, actorKind, id } = r.event;
    expect({ type, rawType, resourceId, actorKind, id }).toEqual(want);
  });

  it('a bare PascalCase payload without a class is refused, not guessed', () => {
    const r = transformVcenterEvent(
      readFixture('vcenter/veba-verbatim/kn-ps-slack_test-payload.VmPoweredOffEvent.json'),
      { server },
    );
    expect(r.ok).toBe(false);
  });

  it('"None" arguments and times with microseconds are read', () => {
    const r = transformVcenterEvent(
      readFixture('vcenter/veba-verbatim/kn-ps-slack_test-payload.VmPoweredOffEvent.json'),
      { server, typeName: 'VmPoweredOffEvent' },
    );
    expect(r.ok && [r.event.startedAt, r.event.node, r.event.chainId]).toEqual([
      '2021-02-16T20:27:31.711Z',
      '192.168.30.5',
      '607952',
    ]);
  });
});

describe('transformVcenterEvent: a failed host and the sequences the correlator reads', () => {
  it('DasHostFailedEvent names the host in failedHost: it concerns that host', () => {
    const r = transformVcenterEvent(
      vmomi('DasHostFailedEvent', {
        userName: '',
        host: null,
        vm: null,
        failedHost: { _typeName: 'HostEventArgument', name: 'esx1.lan', host: ref('HostSystem', 'host-21') },
      }),
      { server },
    );
    expect(r.ok && [r.event.type, r.event.resourceId, r.event.hostId, r.event.node, r.event.actorKind]).toEqual([
      'host_failure',
      'vcenter:vc1/host/host-21',
      'vcenter:vc1/host/host-21',
      'esx1.lan',
      'system',
    ]);
  });

  it.each([
    [
      'sequences/host-failure-ha-restart.json',
      [
        ['host_connection_lost', 'vcenter:vc1/host/host-21', null, 'system'],
        ['host_failure', 'vcenter:vc1/host/host-21', null, 'system'],
        ['vm_restarted_by_ha', 'vcenter:vc1/vm/vm-101', null, 'ha_manager'],
      ],
    ],
    [
      'sequences/guest-shutdown.json',
      [
        ['vm_guest_shutdown_request', 'vcenter:vc1/vm/vm-101', 'VSPHERE.LOCAL\\alice', 'human'],
        ['vm_stop', 'vcenter:vc1/vm/vm-101', null, 'system'],
      ],
    ],
  ])('%s', (file, want) => {
    const doc = readFixture(`vcenter/${file}`) as { events: unknown[] };
    const got = doc.events.map((e) => {
      const r = transformVcenterEvent(e, { server });
      if (!r.ok) throw new Error(r.reason);
      return [r.event.type, r.event.resourceId, r.event.actor, r.event.actorKind];
    });
    expect(got).toEqual(want);
  });
});
