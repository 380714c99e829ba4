import { describe, expect, it } from 'vitest';
import { soapFault } from '../../../../src/ingest/vcenter/client-error.js';
import { transformVcenterInventory } from '../../../../src/ingest/vcenter/inventory-transform.js';
import { transformVcenterEvent } from '../../../../src/ingest/vcenter/events-transform.js';
import { decodeAll, decodeElement } from '../../../../src/ingest/vcenter/soap-decode.js';
import { child, parseXml, XmlError } from '../../../../src/ingest/vcenter/xml.js';

const NS =
  'xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"';
const envelope = (body: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<soapenv:Envelope ${NS}><soapenv:Body>${body}</soapenv:Body></soapenv:Envelope>`;

describe('the XML reader', () => {
  it('reads elements, attributes, entities, CDATA and comments, dropping namespace prefixes', () => {
    const root = parseXml(
      `<a:root xmlns:a="x" k='v&amp;w'><!-- c --><b>1 &lt; 2 &#x41;&#66;</b><c/><d><![CDATA[<raw>]]></d></a:root>`,
    );
    expect(root.name).toBe('root');
    expect(root.attrs).toMatchObject({ k: 'v&w' });
    expect(child(root, 'b')!.text).toBe('1 < 2 AB');
    expect(child(root, 'c')!.children).toEqual([]);
    expect(child(root, 'd')!.text).toBe('<raw>');
  });

  it.each([
    ['<a><b></a>', /does not match/],
    ['<a>', /never closed/],
    ['<!DOCTYPE x [<!ENTITY e "boom">]><a>&e;</a>', /DOCTYPE/],
    ['<a>&e;</a>', /unknown entity/],
    ['', /no root/],
    ['<a/><b/>', /second root/],
  ])('refuses %s', (text, message) => {
    expect(() => parseXml(text)).toThrow(XmlError);
    expect(() => parseXml(text)).toThrow(message);
  });
});

describe('vim25 answers as VMOMI JSON', () => {
  const retrieve = parseXml(
    envelope(
      `<RetrievePropertiesExResponse xmlns="urn:vim25"><returnval>` +
        `<objects><obj type="VirtualMachine">vm-42</obj>` +
        `<propSet><name>name</name><val xsi:type="xsd:string">web01</val></propSet>` +
        `<propSet><name>runtime.powerState</name><val xsi:type="VirtualMachinePowerState">poweredOff</val></propSet>` +
        `<propSet><name>runtime.host</name><val type="HostSystem" xsi:type="ManagedObjectReference">host-7</val></propSet>` +
        `<propSet><name>datastore</name><val xsi:type="ArrayOfManagedObjectReference"><ManagedObjectReference type="Datastore" xsi:type="ManagedObjectReference">datastore-3</ManagedObjectReference></val></propSet>` +
        `<propSet><name>summary.config.numCpu</name><val xsi:type="xsd:int">2</val></propSet>` +
        `<propSet><name>guest.net</name><val xsi:type="ArrayOfGuestNicInfo"><GuestNicInfo xsi:type="GuestNicInfo"><macAddress>00:50:56:AA:BB:CC</macAddress><ipAddress>10.0.0.5</ipAddress></GuestNicInfo></val></propSet>` +
        `</objects><token>tok-1</token></returnval></RetrievePropertiesExResponse>`,
    ),
  );
  const result = child(child(child(retrieve, 'Body')!, 'RetrievePropertiesExResponse')!, 'returnval')!;

  it('decodes references, typed scalars and one-item arrays so the inventory transform reads them', () => {
    const objects = decodeAll(result, 'objects');
    const inv = transformVcenterInventory(objects, 'vc1');
    expect(inv.problems).toEqual([]);
    expect(inv.rows[0]!.resource).toMatchObject({
      id: 'vcenter:vc1/vm/vm-42',
      name: 'web01',
      state: 'stopped',
      attributes: expect.objectContaining({
        num_cpu: 2,
        mac_addresses: ['00:50:56:aa:bb:cc'],
        ip_addresses: ['10.0.0.5'],
      }),
    });
    expect(inv.edges.map((e) => `${e.type} ${e.toId}`).sort()).toEqual([
      'RUNS_ON vcenter:vc1/host/host-7',
      'STORED_ON vcenter:vc1/datastore/datastore-3',
    ]);
    expect(child(result, 'token')!.text).toBe('tok-1');
  });

  it('decodes an event with its arguments as single objects, its key as a number', () => {
    const ev = parseXml(
      `<returnval xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="VmPoweredOffEvent"><key>17</key><chainId>16</chainId>` +
        `<createdTime>2026-05-14T02:08:30.123Z</createdTime><userName>alice</userName>` +
        `<host><name>esx1</name><host type="HostSystem">host-7</host></host>` +
        `<vm><name>web01</name><vm type="VirtualMachine">vm-42</vm></vm></returnval>`,
    );
    const json = decodeElement(ev);
    expect(json).toMatchObject({ _typeName: 'VmPoweredOffEvent', key: 17, chainId: 16 });
    const r = transformVcenterEvent(json, { server: 'vc1' });
    expect(r.ok && r.event).toMatchObject({
      id: 'vcenter:vc1/event/17',
      type: 'vm_stop',
      actor: 'alice',
      resourceId: 'vcenter:vc1/vm/vm-42',
      hostId: 'vcenter:vc1/host/host-7',
    });
  });
});

describe('SOAP faults', () => {
  const fault = (type: string) =>
    child(
      parseXml(
        envelope(
          `<soapenv:Fault><faultcode>ServerFaultCode</faultcode><faultstring>The session is not authenticated.</faultstring>` +
            `<detail><${type}Fault xsi:type="${type}"><object type="SessionManager">SessionManager</object></${type}Fault></detail></soapenv:Fault>`,
        ),
      ),
      'Body',
    );

  it('NotAuthenticated and InvalidLogin are auth errors; others keep their vim25 type', () => {
    expect(soapFault(fault('NotAuthenticated'), 'RetrievePropertiesEx', 500)).toMatchObject({
      kind: 'auth',
      faultType: 'NotAuthenticated',
      status: 500,
    });
    expect(soapFault(fault('InvalidLogin'), 'Login', 500)).toMatchObject({ kind: 'auth' });
    const other = soapFault(fault('InvalidProperty'), 'RetrievePropertiesEx', 500)!;
    expect(other).toMatchObject({ kind: 'fault', faultType: 'InvalidProperty' });
    expect(other.message).toBe(
      'vSphere RetrievePropertiesEx: HTTP 500: InvalidProperty: The session is not authenticated.',
    );
  });

  it('a body without a fault is none', () => {
    expect(soapFault(parseXml(envelope('<x/>')), 'X', 200)).toBeNull();
  });
});
