import { describe, expect, it } from 'vitest';
import { writeKindBatch } from '../../../../src/graph/inventory/write.js';
import { clearAttributes, updateAttributes } from '../../../../src/graph/resources/attributes.js';
import { declareManualResource } from '../../../../src/graph/resources/declared.js';
import { getResourceById } from '../../../../src/graph/resources/read.js';
import { upsertResources } from '../../../../src/graph/resources/upsert.js';
import { attributeOwners, type ResourceInput } from '../../../../src/model/index.js';
import { useGraph } from '../../../support/graph.js';

/*
 * Who wrote each attribute, on the real graph: a principal's write records its writer beside the
 * key in the same write (attrBy.<key>), a null write takes the record away, a provider's write of
 * the key (either ingest path) or a declaration makes the key theirs again.
 */
const { driver, scope } = useGraph();
const T1 = '2026-12-03T09:00:00.000Z';
const T2 = '2026-12-03T09:05:00.000Z';
const agent = { name: `rhodes-${scope}`, role: 'agent' as const, at: T1 };
const operator = { name: `alice-${scope}`, role: 'operator' as const, at: T2 };

const vm = (n: number, attributes: Record<string, string | boolean> = {}): ResourceInput => ({
  id: `proxmox:${scope}/qemu/${n}`,
  kind: 'vm',
  provider: 'proxmox',
  name: `vm${n}-${scope}`,
  state: 'running',
  attributes,
});

async function owners(id: string) {
  const r = await getResourceById(driver, id);
  return attributeOwners(r!);
}

async function writerProps(id: string): Promise<string[]> {
  const { records } = await driver.executeQuery('MATCH (r:Resource {id: $id}) RETURN keys(r) AS k', { id });
  return (records[0]!.get('k') as string[]).filter((k) => k.startsWith('attrBy.')).sort();
}

describe('attribute writers', () => {
  it('records an agent’s and an operator’s keys with name, role and time; a provider key stays the provider’s', async () => {
    const r = vm(1, { qemu_guest_agent: true });
    await upsertResources(driver, [r]);
    await updateAttributes(driver, r.id, { owner_team: 'web' }, undefined, agent);
    const { resource } = await updateAttributes(driver, r.id, { entity_type: 'docker-container' }, undefined, operator);
    expect(attributeOwners(resource)).toEqual([
      { key: 'entity_type', owner: 'operator', principal: operator.name, at: T2 },
      { key: 'owner_team', owner: 'agent', principal: agent.name, at: T1 },
      { key: 'qemu_guest_agent', owner: 'provider', principal: 'proxmox', at: null },
    ]);
    // What the write returned is what a later read decodes.
    expect(await owners(r.id)).toEqual(attributeOwners(resource));
    expect(await writerProps(r.id)).toEqual(['attrBy.entity_type', 'attrBy.owner_team']);
  });

  it('a later writer takes the key over; a null write removes the key and its writer', async () => {
    const r = vm(2);
    await upsertResources(driver, [r]);
    await updateAttributes(driver, r.id, { owner_team: 'web', role: 'frontend' }, undefined, agent);
    await updateAttributes(driver, r.id, { owner_team: 'ops' }, undefined, operator);
    await updateAttributes(driver, r.id, { role: null }, undefined, agent);
    expect(await owners(r.id)).toEqual([{ key: 'owner_team', owner: 'operator', principal: operator.name, at: T2 }]);
    expect(await writerProps(r.id)).toEqual(['attrBy.owner_team']);
  });

  it('a provider overwriting a key makes it the provider’s again (upsert and the load pass alike)', async () => {
    const [a, b] = [vm(3), vm(4)];
    await upsertResources(driver, [a, b]);
    for (const r of [a, b]) {
      await updateAttributes(driver, r.id, { owner_team: 'web', note: 'kept' }, undefined, agent);
      await updateAttributes(driver, r.id, { entity_type: 'docker-container' }, undefined, operator);
    }
    await upsertResources(driver, [{ ...a, attributes: { owner_team: 'platform', entity_type: 'vm' } }]);
    await writeKindBatch(
      driver,
      'vm',
      [{ resource: { ...b, attributes: { owner_team: 'platform', entity_type: 'vm' } }, edges: [] }],
      { now: T2, tag: `tag-${scope}` },
      'merge',
    );
    for (const r of [a, b]) {
      expect(await owners(r.id)).toEqual([
        { key: 'entity_type', owner: 'provider', principal: 'proxmox', at: null },
        { key: 'note', owner: 'agent', principal: agent.name, at: T1 },
        { key: 'owner_team', owner: 'provider', principal: 'proxmox', at: null },
      ]);
      expect(await writerProps(r.id)).toEqual(['attrBy.note']);
    }
  });

  it('a key the provider stops reporting goes with any writer record', async () => {
    const r = vm(5, { lock: 'backup' });
    await upsertResources(driver, [r]);
    await driver.executeQuery("MATCH (r:Resource {id: $id}) SET r.`attrBy.lock` = ['agent', 'x', $at]", {
      id: r.id,
      at: T1,
    });
    await clearAttributes(driver, [{ id: r.id, keys: ['lock'] }]);
    expect(await owners(r.id)).toEqual([]);
    expect(await writerProps(r.id)).toEqual([]);
  });

  it('a declared resource’s attributes are its declarer’s; declaring again takes them back', async () => {
    const id = `manual:service/pg-${scope}`;
    const declare = (at: string) =>
      declareManualResource(driver, id, {
        kind: 'service',
        name: `pg-${scope}`,
        runsOnId: null,
        attributes: { port: 5432 },
        declaredBy: agent.name,
        evidence: 'listening on :5432',
        at,
      });
    await declare(T1);
    expect(await owners(id)).toEqual([{ key: 'port', owner: 'declared', principal: agent.name, at: T1 }]);
    await updateAttributes(driver, id, { port: 5433, unit: 'pg.service' }, undefined, operator);
    expect(await owners(id)).toEqual([
      { key: 'port', owner: 'operator', principal: operator.name, at: T2 },
      { key: 'unit', owner: 'operator', principal: operator.name, at: T2 },
    ]);
    await declare(T2);
    expect((await owners(id))[0]).toEqual({ key: 'port', owner: 'declared', principal: agent.name, at: T2 });
  });

  it('a key written before writers were recorded reads as declared, by the declarer when there is one', async () => {
    const id = `manual:service/old-${scope}`;
    await upsertResources(driver, [{ id, kind: 'service', provider: 'manual', name: `old-${scope}`, state: 'up' }]);
    await driver.executeQuery(
      "MATCH (r:Resource {id: $id}) SET r.`attr.owner_team` = 'x', r.provenance = 'declared', r.declaredBy = $by",
      { id, by: agent.name },
    );
    expect(await owners(id)).toEqual([{ key: 'owner_team', owner: 'declared', principal: agent.name, at: null }]);
  });
});
