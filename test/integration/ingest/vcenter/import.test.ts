import { describe, expect, it } from 'vitest';
import { readFixture } from '../../../support/fixtures.js';
import { getResourceById, resourceFromProperties } from '../../../../src/graph/resources/read.js';
import { importVcenterInventory } from '../../../../src/ingest/vcenter/import.js';
import { useGraph } from '../../../support/graph.js';

const { driver, scope } = useGraph();
const fixture = (name: string): unknown => readFixture(`vcenter/${name}`);

async function graphOf(server: string) {
  const prefix = `vcenter:${server}/`;
  const r = await driver.executeQuery(
    'MATCH (r:Resource) WHERE r.id STARTS WITH $prefix RETURN properties(r) AS p ORDER BY r.id',
    { prefix },
  );
  const e = await driver.executeQuery(
    'MATCH (a:Resource)-[e]->(b:Resource) WHERE a.id STARTS WITH $prefix RETURN type(e) + "|" + a.id + "|" + b.id AS t ORDER BY t',
    { prefix },
  );
  const strip = (s: string) => s.replace(prefix, '');
  return {
    resources: r.records.map((x) => {
      const res = resourceFromProperties(x.get('p'));
      const attrs = Object.entries(res.attributes).sort(([k1], [k2]) => k1.localeCompare(k2));
      return `${strip(res.id)}|${res.kind}|${res.state}|${res.rawState}|${JSON.stringify(attrs)}`;
    }),
    edges: e.records.map((x) => (x.get('t') as string).split(prefix).join('')),
  };
}

describe('importVcenterInventory', () => {
  const a = `vc-${scope}-vmomi`;
  const b = `vc-${scope}-pascal`;

  it('imports the VMOMI-JSON document: 8 resources, 9 edges, idempotently', async () => {
    const first = await importVcenterInventory(driver, fixture('inventory-vmomi.json'), { server: a });
    expect(first).toMatchObject({
      fetched: 10,
      complete: false,
      errors: [],
      resources: { transformed: 8, written: 8, created: 8 },
      edges: { transformed: 9, written: 9, created: 9 },
    });
    const again = await importVcenterInventory(driver, fixture('inventory-vmomi.json'), { server: a });
    expect(again).toMatchObject({
      resources: { written: 8, created: 0 },
      edges: { written: 9, created: 0 },
      stateChanges: [],
    });
    const g = await graphOf(a);
    expect(g.resources).toHaveLength(8);
    expect(g.edges).toHaveLength(9);
    expect(await getResourceById(driver, `vcenter:${a}/host/host-12`)).toMatchObject({
      state: 'maintenance',
      attributes: { serial_number: 'PVE-ESXI-01' },
    });
  });

  it('the PascalCase document gives the same graph', async () => {
    await importVcenterInventory(driver, fixture('inventory-pascal.json'), { server: b });
    expect(await graphOf(b)).toEqual(await graphOf(a));
  });

  it('a complete import marks only unseen objects of the kinds it carried; a partial one marks nothing', async () => {
    const doc = fixture('inventory-vmomi.json') as { objects: Array<{ obj: { value: string } }> };
    const withoutVm103 = { ...doc, objects: doc.objects.filter((o) => o.obj.value !== 'vm-103') };
    const partial = await importVcenterInventory(driver, withoutVm103, { server: a });
    expect(partial.markedMissing).toBe(0);
    expect((await getResourceById(driver, `vcenter:${a}/vm/vm-103`))!.missingSince).toBeNull();

    const complete = await importVcenterInventory(driver, withoutVm103, { server: a, complete: true });
    expect(complete).toMatchObject({ complete: true, markedMissing: 1, edgesMarkedMissing: 2 });
    expect(await getResourceById(driver, `vcenter:${a}/vm/vm-103`)).toMatchObject({
      lifecycle: 'missing',
      state: 'suspended',
    });

    // Only VMs in the document: hosts, datastores and the cluster are not judged.
    const onlyVms = { objects: doc.objects.filter((o) => o.obj.value.startsWith('vm-') && o.obj.value !== 'vm-102') };
    const vmsOnly = await importVcenterInventory(driver, onlyVms, { server: a, complete: true });
    expect(vmsOnly.markedMissing).toBe(1);
    expect(await getResourceById(driver, `vcenter:${a}/host/host-11`)).toMatchObject({
      lifecycle: 'active',
      missingSince: null,
    });

    await importVcenterInventory(driver, doc, { server: a, complete: true });
    expect(await getResourceById(driver, `vcenter:${a}/vm/vm-103`)).toMatchObject({
      lifecycle: 'active',
      missingSince: null,
    });
    expect(await getResourceById(driver, `vcenter:${a}/vm/vm-102`)).toMatchObject({
      lifecycle: 'active',
      missingSince: null,
    });
  });

  it('refuses a server name that cannot be part of an id', async () => {
    await expect(importVcenterInventory(driver, [], { server: 'has space' })).rejects.toThrow(/server: must be a name/);
  });
});
