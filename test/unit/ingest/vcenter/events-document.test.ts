import { describe, expect, it } from 'vitest';
import { eventsOfDocument } from '../../../../src/ingest/vcenter/events-import.js';
import { transformVcenterEvent } from '../../../../src/ingest/vcenter/events-transform.js';
import { fixtureFiles, readFixture } from '../../../support/fixtures.js';

const a = { _typeName: 'VmPoweredOffEvent', key: 1 };
const b = { Key: 2 };

describe('eventsOfDocument: the shapes an event export comes in', () => {
  it.each([
    ['a JSON array', [a, b], [a, b]],
    ['an object holding events', { events: [a] }, [a]],
    ['PascalCase Events', { Events: [b] }, [b]],
    ['an API answer (value)', { value: [a, b] }, [a, b]],
    ['one event', a, [a]],
    ['one CloudEvent envelope', { specversion: '1.0', data: b }, [{ specversion: '1.0', data: b }]],
    ['JSON text', JSON.stringify([a]), [a]],
    ['JSON lines (govc events -json)', `${JSON.stringify(a)}\n${JSON.stringify(b)}\n`, [a, b]],
    ['an empty list', [], []],
  ] as const)('%s', (_name, doc, events) => {
    expect(eventsOfDocument(doc)).toEqual(events);
  });

  it.each([
    ['a number', 42],
    ['null', null],
    ['text that is neither JSON nor JSON lines', '{"a": 1}\nnot json'],
  ])('refuses %s, naming the field', (_name, doc) => {
    expect(() => eventsOfDocument(doc)).toThrow(/^events: /);
  });

  it('every verbatim event-broker payload reads as one event, and the typed ones transform', () => {
    const results = fixtureFiles('vcenter/veba-verbatim').map((f) => {
      const items = eventsOfDocument(readFixture(`vcenter/veba-verbatim/${f}`));
      expect(items).toHaveLength(1);
      const r = transformVcenterEvent(items[0], { server: 'vc1' });
      return [f, r.ok ? r.event.rawType : 'rejected'];
    });
    // Bare PascalCase payloads name no class: the import reports them instead of guessing.
    expect(Object.fromEntries(results)).toEqual({
      'kn-go-echo_testdata_cloudevent.json': 'VmPoweredOffEvent',
      'kn-pcli-ha-restarted-vms_test-payload.EventEx.json': 'com.vmware.vc.HA.ClusterFailoverActionCompletedEvent',
      'kn-ps-slack_test-payload.VmPoweredOffEvent.json': 'rejected',
      'kn-ps-vsphere-inv-slack_test-payload-2.TaskEvent.json': 'TaskEvent',
      'kn-py-vm-attr_testevent.DrsVmPoweredOnEvent.json': 'DrsVmPoweredOnEvent',
    });
  });
});
