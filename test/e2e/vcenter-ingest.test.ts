import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFixture } from '../support/fixtures.js';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';

const { driver, scope } = useGraph();
let srv: TestServer;
const server = `vc-${scope}`;
const inventory = readFixture('vcenter/inventory-vmomi.json') as any;

/** The fixture with one VM's runtime.powerState changed, as the next property-collector dump says. */
function withPower(changes: Record<string, string>) {
  const doc = structuredClone(inventory);
  for (const o of doc.objects) {
    const power = changes[o.obj.value];
    if (power) for (const p of o.propSet) if (p.name === 'runtime.powerState') p.val._value = power;
  }
  return doc;
}

const push = (doc: unknown, token = srv.tokens.ingester) =>
  srv.gql(
    token,
    `mutation($s: String!, $d: JSON!) { ingestVcenterInventory(server: $s, document: $d) {
    scope complete fetched resources { written created } edges { written } errors
    transitions { resourceId from to attribution { confidence actor actorKind } narrative } } }`,
    { s: server, d: doc },
  );

beforeAll(async () => {
  srv = await startTestServer(driver);
});
afterAll(async () => {
  await driver.executeQuery('MATCH (e:Event) WHERE e.id STARTS WITH $p DETACH DELETE e', { p: `vcenter:${server}/` });
  await srv?.close();
});

describe('vCenter pushed by an ingester over GraphQL', () => {
  it('imports the inventory; a first sighting is not a transition; agents may not push', async () => {
    const { body } = await push(inventory);
    expect(body.errors).toBeUndefined();
    expect(body.data.ingestVcenterInventory).toMatchObject({
      scope: `vcenter:${server}`,
      resources: { written: 8, created: 8 },
      transitions: [],
    });
    const denied = await push(inventory, srv.tokens.agent);
    expect(denied.body.errors[0]).toMatchObject({ extensions: { code: 'FORBIDDEN', permission: 'inventory:ingest' } });
  });

  it('a power-off seen by the next import is attributed from the pushed vCenter event', async () => {
    const at = DateTime.utc().minus({ seconds: 4 }).toISO();
    const event = {
      _typeName: 'VmPoweredOffEvent',
      key: 91001,
      chainId: 91000,
      createdTime: at,
      userName: 'VSPHERE.LOCAL\\alice',
      vm: {
        _typeName: 'VmEventArgument',
        name: 'vcsa',
        vm: { _typeName: 'ManagedObjectReference', type: 'VirtualMachine', value: 'vm-101' },
      },
      fullFormattedMessage: 'vcsa on esxi-01 in Lab-DC is powered off',
    };
    const ev = await srv.gql(
      srv.tokens.ingester,
      'mutation($s: String!, $e: JSON!) { ingestVcenterEvents(server: $s, events: $e) { created skipped { reason } } }',
      { s: server, e: [event] },
    );
    expect(ev.body.data.ingestVcenterEvents).toEqual({ created: 1, skipped: [] });
    const { body } = await push(withPower({ 'vm-101': 'poweredOff' }));
    expect(body.errors).toBeUndefined();
    const [t] = body.data.ingestVcenterInventory.transitions;
    expect(body.data.ingestVcenterInventory.transitions).toHaveLength(1);
    expect(t).toMatchObject({
      resourceId: `vcenter:${server}/vm/vm-101`,
      from: 'running',
      to: 'stopped',
      attribution: { confidence: 'high', actor: 'VSPHERE.LOCAL\\alice', actorKind: 'human' },
    });
    expect(t.narrative).toMatch(/VmPoweredOffEvent|powered off/i);
  });

  it('a change with no event says the cause is unknown', async () => {
    const { body } = await push(withPower({ 'vm-101': 'poweredOff', 'vm-102': 'poweredOn' }));
    const [t] = body.data.ingestVcenterInventory.transitions;
    expect(body.data.ingestVcenterInventory.transitions).toHaveLength(1);
    expect(t).toMatchObject({
      resourceId: `vcenter:${server}/vm/vm-102`,
      from: 'stopped',
      to: 'running',
      attribution: { confidence: 'none', actor: null },
    });
    expect(t.narrative).toMatch(/the cause is unknown/);
  });
});
