import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFixture } from '../../../support/fixtures.js';
import { relationsOf } from '../../../../src/graph/edges.js';
import {
  MANIFESTS_AS_SOURCE,
  resolveManifestsAs,
  withdrawInferredEdges,
} from '../../../../src/ingest/identity/manifests-as.js';
import { syncProxmox } from '../../../../src/ingest/proxmox/sync.js';
import { importVcenterInventory } from '../../../../src/ingest/vcenter/import.js';
import { useGraph } from '../../../support/graph.js';
import { labRoutes, patchData, standinClient } from '../../../support/proxmox-lab.js';
import { startProxmoxStandin, type ProxmoxStandin } from '../../../support/proxmox-standin.js';

const { driver, scope } = useGraph();
const cluster = `lab-${scope}`;
const server = `vc-${scope}`;
const prefixes = [`proxmox:${cluster}/`, `vcenter:${server}/`];
const host = `vcenter:${server}/host/host-12`;
const vm = `proxmox:${cluster}/qemu/130`;

let standin: ProxmoxStandin;
beforeAll(async () => {
  standin = await startProxmoxStandin();
  standin.routes(labRoutes(cluster));
  await syncProxmox(driver, standinClient(standin));
  const doc = readFixture('vcenter/inventory-vmomi.json');
  await importVcenterInventory(driver, doc, { server });
});
afterAll(async () => {
  await standin.close();
});

async function edgeCounts() {
  const { records } = await driver.executeQuery(
    'MATCH (a:Resource)-[e]->(b:Resource) WHERE any(p IN $prefixes WHERE a.id STARTS WITH p) RETURN e.provenance AS p, count(e) AS n ORDER BY p',
    { prefixes },
  );
  return Object.fromEntries(records.map((r) => [r.get('p'), Number(r.get('n'))]));
}

describe('manifests_as resolver', () => {
  it('links the nested ESXi host (vCenter) to the Proxmox VM it runs in, as an inferred edge with rule and confidence', async () => {
    const result = await resolveManifestsAs(driver, { idPrefixes: prefixes });
    expect(result.matches.map((m) => [m.fromId, m.toId, m.rule, m.confidence])).toEqual([
      [host, vm, 'smbios_uuid', 'high'],
    ]);
    expect(result).toMatchObject({ written: 1, created: 1, withdrawn: 0 });
    const [edge] = await relationsOf(driver, host, { types: ['MANIFESTS_AS'], direction: 'OUT' });
    expect(edge).toMatchObject({
      toId: vm,
      provenance: 'inferred',
      source: MANIFESTS_AS_SOURCE,
      rule: 'smbios_uuid',
      confidence: 'high',
    });
    expect(edge!.evidence).toContain('mac_address=bc:24:11:e5:a1:30');
    expect(await edgeCounts()).toEqual({ inferred: 1, observed: 42 });
  });

  it('a second run changes nothing', async () => {
    const again = await resolveManifestsAs(driver, { idPrefixes: prefixes });
    expect(again).toMatchObject({ written: 1, created: 0, withdrawn: 0 });
  });

  it('when the strong evidence goes, the edge falls back to a low-confidence name match; withdrawing by rule removes it and leaves observed edges alone', async () => {
    const table = labRoutes(cluster);
    patchData(table, 'GET /nodes/pve3/qemu/130/config', {}, ['smbios1', 'net0', 'net1']);
    standin.routes(table);
    await syncProxmox(driver, standinClient(standin));
    const weak = await resolveManifestsAs(driver, { idPrefixes: prefixes });
    expect(weak.matches.map((m) => [m.fromId, m.toId, m.rule, m.confidence])).toEqual([[host, vm, 'name', 'low']]);
    expect(weak.created).toBe(0);

    const { withdrawn } = await withdrawInferredEdges(driver, {
      source: MANIFESTS_AS_SOURCE,
      rule: 'name',
      idPrefixes: prefixes,
    });
    expect(withdrawn).toBe(1);
    expect(await edgeCounts()).toEqual({ observed: 42 });
    // The observed edges' own sources are never withdrawn through this path.
    expect((await withdrawInferredEdges(driver, { source: `proxmox:${cluster}` })).withdrawn).toBe(0);
    expect(await edgeCounts()).toEqual({ observed: 42 });
  });

  it('a run that no longer finds a match withdraws its earlier edge', async () => {
    await resolveManifestsAs(driver, { idPrefixes: prefixes });
    expect((await edgeCounts()).inferred).toBe(1);
    await driver.executeQuery('MATCH (r:Resource {id: $id}) SET r.name = $name', { id: vm, name: `renamed-${scope}` });
    const none = await resolveManifestsAs(driver, { idPrefixes: prefixes });
    expect(none).toMatchObject({ matches: [], withdrawn: 1 });
    expect(await edgeCounts()).toEqual({ observed: 42 });
  });
});
