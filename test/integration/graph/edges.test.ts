import { beforeAll, describe, expect, it } from 'vitest';
import { createRelationship, relationsOf, removeRelationship, upsertEdges } from '../../../src/graph/edges.js';
import { traverse } from '../../../src/graph/traversal.js';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { useGraph } from '../../support/graph.js';

const { driver, scope } = useGraph();
const id = {
  cluster: `proxmox:${scope}/cluster`,
  pve1: `proxmox:${scope}/node/pve1`,
  vm101: `proxmox:${scope}/qemu/101`,
  store: `proxmox:${scope}/storage/pve1/local-lvm`,
  app: `manual:service/${scope}-app`,
  web: `manual:service/${scope}-web`,
};

async function edgeCount(): Promise<number> {
  const { records } = await driver.executeQuery(
    'MATCH (a:Resource)-[e]->() WHERE a.id CONTAINS $s RETURN count(e) AS n',
    { s: scope },
  );
  return records[0]!.get('n').toNumber();
}

beforeAll(async () => {
  await upsertResources(driver, [
    { id: id.cluster, kind: 'cluster', provider: 'proxmox', name: `lab-${scope}`, state: 'online' },
    { id: id.pve1, kind: 'host', provider: 'proxmox', name: `pve1-${scope}`, state: 'online' },
    { id: id.vm101, kind: 'vm', provider: 'proxmox', name: `web01-${scope}`, state: 'running' },
    { id: id.store, kind: 'storage', provider: 'proxmox', name: `local-lvm-${scope}`, state: 'available' },
    { id: id.app, kind: 'service', provider: 'manual', name: `${scope}-app`, state: 'up' },
    { id: id.web, kind: 'service', provider: 'manual', name: `${scope}-web`, state: 'up' },
  ]);
  const res = await upsertEdges(driver, [
    { type: 'MEMBER_OF', fromId: id.pve1, toId: id.cluster, provenance: 'observed', source: `proxmox:${scope}` },
    { type: 'RUNS_ON', fromId: id.vm101, toId: id.pve1, provenance: 'observed', source: `proxmox:${scope}` },
    { type: 'STORED_ON', fromId: id.vm101, toId: id.store, provenance: 'observed', source: `proxmox:${scope}` },
    { type: 'RUNS_ON', fromId: id.app, toId: id.vm101, provenance: 'declared', source: 'agent-1' },
    {
      type: 'RUNS_ON',
      fromId: `proxmox:${scope}/qemu/999`,
      toId: id.pve1,
      provenance: 'observed',
      source: `proxmox:${scope}`,
    },
  ]);
  expect(res.written).toBe(4);
  expect(res.skipped).toEqual([
    expect.objectContaining({ reason: `source resource proxmox:${scope}/qemu/999 does not exist` }),
  ]);
});

describe('relationships', () => {
  it('creates a declared edge once; the second call says created: false', async () => {
    const edge = {
      type: 'DEPENDS_ON' as const,
      fromId: id.web,
      toId: id.app,
      provenance: 'declared' as const,
      source: 'agent-1',
      evidence: 'nginx upstream',
    };
    const a = await createRelationship(driver, edge);
    expect(a.created).toBe(true);
    expect(a.relationship).toMatchObject({
      type: 'DEPENDS_ON',
      fromId: id.web,
      toId: id.app,
      provenance: 'declared',
      source: 'agent-1',
      evidence: 'nginx upstream',
    });
    const b = await createRelationship(driver, edge);
    expect(b.created).toBe(false);
  });

  it('refuses disallowed kinds, naming the type and both kinds, and writes nothing', async () => {
    const before = await edgeCount();
    await expect(
      createRelationship(driver, {
        type: 'RUNS_ON',
        fromId: id.store,
        toId: id.cluster,
        provenance: 'declared',
        source: 'agent-1',
      }),
    ).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      message: expect.stringMatching(/RUNS_ON is not allowed from storage to cluster/),
    });
    await expect(
      createRelationship(driver, {
        type: 'DEPENDS_ON',
        fromId: id.app,
        toId: id.app,
        provenance: 'declared',
        source: 'a',
      }),
    ).rejects.toThrow(/itself/);
    await expect(
      createRelationship(driver, {
        type: 'DEPENDS_ON',
        fromId: id.app,
        toId: 'manual:service/nope',
        provenance: 'declared',
        source: 'a',
      }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
      field: 'target',
    });
    await expect(
      createRelationship(driver, {
        type: 'LOVES' as never,
        fromId: id.app,
        toId: id.web,
        provenance: 'declared',
        source: 'a',
      }),
    ).rejects.toThrow(/type: must be one of/);
    expect(await edgeCount()).toBe(before);
  });

  it('lists relations with provenance in each direction', async () => {
    const out = await relationsOf(driver, id.vm101, { direction: 'OUT' });
    expect(out.map((e) => `${e.type}->${e.toId}:${e.provenance}`).sort()).toEqual([
      `RUNS_ON->${id.pve1}:observed`,
      `STORED_ON->${id.store}:observed`,
    ]);
    const incoming = await relationsOf(driver, id.vm101, { direction: 'IN' });
    expect(incoming).toEqual([
      expect.objectContaining({ type: 'RUNS_ON', fromId: id.app, provenance: 'declared', source: 'agent-1' }),
    ]);
    expect(await relationsOf(driver, id.vm101, { types: ['STORED_ON'] })).toHaveLength(1);
  });

  it('walks dependents and dependencies with depth and one shortest path', async () => {
    const dependents = await traverse(driver, id.pve1, 'dependents', 3);
    expect(dependents.map((d) => [d.resource.id, d.depth])).toEqual([
      [id.vm101, 1],
      [id.app, 2],
      [id.web, 3],
    ]);
    expect(dependents[2]!.path.map((s) => `${s.type}:${s.id}`)).toEqual([
      `RUNS_ON:${id.vm101}`,
      `RUNS_ON:${id.app}`,
      `DEPENDS_ON:${id.web}`,
    ]);
    expect((await traverse(driver, id.pve1, 'dependents', 1)).map((d) => d.resource.id)).toEqual([id.vm101]);
    const deps = await traverse(driver, id.web, 'dependencies', 10);
    expect(deps.map((d) => d.resource.id)).toEqual(
      [id.app, id.vm101, id.pve1, id.store, id.cluster].filter((x) => deps.some((d) => d.resource.id === x)),
    );
    expect(deps).toHaveLength(5);
  });

  it("follows MANIFESTS_AS both ways: a nested ESXi host that is a Proxmox VM is in that VM's blast radius", async () => {
    const esxi = `vcenter:${scope}/host/host-7`;
    const inner = `vcenter:${scope}/vm/vm-70`;
    await upsertResources(driver, [
      { id: esxi, kind: 'host', provider: 'vcenter', name: `esxi-${scope}`, state: 'online' },
      { id: inner, kind: 'vm', provider: 'vcenter', name: `inner-${scope}`, state: 'running' },
    ]);
    await upsertEdges(driver, [
      {
        type: 'MANIFESTS_AS',
        fromId: esxi,
        toId: id.vm101,
        provenance: 'inferred',
        source: 'resolver:manifests_as',
        rule: 'smbios_uuid',
        confidence: 'high',
      },
      { type: 'RUNS_ON', fromId: inner, toId: esxi, provenance: 'observed', source: `vcenter:${scope}` },
    ]);
    const hit = await traverse(driver, id.vm101, 'dependents', 3);
    expect(hit.find((d) => d.resource.id === inner)).toMatchObject({
      depth: 2,
      path: [
        { type: 'MANIFESTS_AS', id: esxi },
        { type: 'RUNS_ON', id: inner },
      ],
    });
    const needs = await traverse(driver, inner, 'dependencies', 4);
    expect(needs.map((d) => d.resource.id)).toEqual(expect.arrayContaining([esxi, id.vm101, id.pve1, id.cluster]));
  });

  it('stale observed edges (a complete sync no longer saw them) carry no impact and are listed only on request', async () => {
    const old = `proxmox:${scope}/node/pve9`;
    await upsertResources(driver, [
      { id: old, kind: 'host', provider: 'proxmox', name: `pve9-${scope}`, state: 'online' },
    ]);
    await upsertEdges(driver, [
      { type: 'RUNS_ON', fromId: id.vm101, toId: old, provenance: 'observed', source: `proxmox:${scope}` },
    ]);
    expect((await traverse(driver, old, 'dependents', 1)).map((d) => d.resource.id)).toEqual([id.vm101]);
    await driver.executeQuery(
      'MATCH (:Resource {id: $a})-[e:RUNS_ON]->(:Resource {id: $b}) SET e.missingSince = datetime()',
      { a: id.vm101, b: old },
    );
    expect(await traverse(driver, old, 'dependents', 1)).toEqual([]);
    expect((await relationsOf(driver, id.vm101, { types: ['RUNS_ON'], direction: 'OUT' })).map((e) => e.toId)).toEqual([
      id.pve1,
    ]);
    const all = await relationsOf(driver, id.vm101, { types: ['RUNS_ON'], direction: 'OUT', includeStale: true });
    expect(all.find((e) => e.toId === old)?.missingSince).toEqual(expect.any(String));
  });

  it.each([0, 11, 2.5, -1])('refuses depth %s', async (depth) => {
    await expect(traverse(driver, id.pve1, 'dependents', depth)).rejects.toThrow(
      /maxDepth: must be an integer from 1 to 10/,
    );
  });

  it('refuses to remove observed edges and removes declared ones', async () => {
    await expect(removeRelationship(driver, { type: 'RUNS_ON', fromId: id.vm101, toId: id.pve1 })).rejects.toThrow(
      /observed edges belong to their provider/,
    );
    expect(await removeRelationship(driver, { type: 'DEPENDS_ON', fromId: id.web, toId: id.app })).toEqual({
      removed: 1,
    });
  });
});
