import { DateTime } from 'luxon';
import { afterAll, describe, expect, it } from 'vitest';
import { streamCoverages } from '../../../../src/graph/coverage.js';
import { vcenterDocumentSource } from '../../../../src/ingest/vcenter/source.js';
import { observe } from '../../../../src/pipeline/observe.js';
import { ingestVcenterEvents } from '../../../../src/services/ingest.js';
import { readFixture } from '../../../support/fixtures.js';
import { useGraph } from '../../../support/graph.js';
import { principalOf, serviceDeps } from '../../../support/services.js';

/**
 * What pushed vCenter events (CloudEvents, `ingestVcenterEvents`) claim of the event log: nothing.
 * A push carries the events a broker chose to send, not proof that every event of a window was
 * read, so it records no coverage: a change a pushed event explains is still explained (high), and
 * one no event explains is `log_not_read` (nothing was read completely), never `no_record`.
 */
const { driver, scope } = useGraph();
const server = `vc-push-${scope}`;
const deps = { driver, suppression: 'shadow' as const };
const ingester = principalOf(scope, 'ingester');
const inventory = readFixture('vcenter/inventory-vmomi.json') as any; // VMOMI JSON, edited per test

function withPower(changes: Record<string, string>) {
  const doc = structuredClone(inventory);
  for (const o of doc.objects) {
    const power = changes[o.obj.value];
    if (power) for (const p of o.propSet) if (p.name === 'runtime.powerState') p.val._value = power;
  }
  return doc;
}

afterAll(async () => {
  await driver.executeQuery('MATCH (e:Event) WHERE e.id STARTS WITH $p DETACH DELETE e', { p: `vcenter:${server}/` });
});

describe('pushed vCenter events record no log coverage', () => {
  it('a pushed power-off explains its change; the push covers nothing, and a change no event explains is log_not_read', async () => {
    await observe(deps, vcenterDocumentSource(inventory, { server }));
    const pushed = await ingestVcenterEvents(serviceDeps(driver), ingester, {
      server,
      events: [
        {
          _typeName: 'VmPoweredOffEvent',
          key: 93001,
          chainId: 93000,
          createdTime: DateTime.utc().minus({ seconds: 4 }).toISO(),
          userName: 'VSPHERE.LOCAL\\alice',
          vm: {
            _typeName: 'VmEventArgument',
            name: 'vcsa',
            vm: { _typeName: 'ManagedObjectReference', type: 'VirtualMachine', value: 'vm-101' },
          },
        },
      ],
    });
    expect(pushed.created).toBe(1);
    const streams = await streamCoverages(driver, {
      source: `vcenter:${server}`,
      since: DateTime.utc().minus({ days: 2 }).toISO()!,
      until: DateTime.utc().toISO()!,
    });
    expect(streams).toEqual([]);

    const o = await observe(
      deps,
      vcenterDocumentSource(withPower({ 'vm-101': 'poweredOff', 'vm-102': 'poweredOn' }), { server }),
    );
    const byId = new Map(o.correlation.created.map((t) => [t.resourceId, t]));
    expect(byId.get(`vcenter:${server}/vm/vm-101`)?.attribution).toMatchObject({
      confidence: 'high',
      actor: 'VSPHERE.LOCAL\\alice',
      unknownBecause: null,
    });
    const unexplained = byId.get(`vcenter:${server}/vm/vm-102`)!;
    expect(unexplained.attribution.confidence).toBe('none');
    expect(unexplained.attribution.unknownBecause).toMatchObject({ reason: 'log_not_read', gapReason: 'not_read' });
    expect(unexplained.narrative).toMatch(/Unknown: the event log for .* could not be read/);
  });
});
