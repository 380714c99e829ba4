import { describe, expect, it } from 'vitest';
import { upsertEdges } from '../../../src/graph/edges.js';
import { writeKindBatch } from '../../../src/graph/inventory/write.js';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { type InventoryRow, loadInventory } from '../../../src/ingest/inventory-load.js';
import { createReport, type IngestReport } from '../../../src/ingest/report.js';
import type { EdgeInput, ResourceInput } from '../../../src/model/index.js';
import { useGraph } from '../../support/graph.js';

const { driver, scope } = useGraph();
const NOW = '2026-12-01T10:00:00Z';

/** A small pass under `prefix`: every field a loader writes, compact and full-form edges. */
function pass(prefix: string): { rows: InventoryRow[]; edges: EdgeInput[] } {
  const id = (s: string) => `proxmox:${prefix}-${scope}/${s}`;
  const resources: ResourceInput[] = [
    { id: id('cluster'), kind: 'cluster', provider: 'proxmox', name: `c-${prefix}`, state: 'online' },
    {
      id: id('node/n1'),
      kind: 'host',
      provider: 'proxmox',
      name: `n1-${prefix}`,
      state: 'online',
      rawState: 'online',
      attributes: { node: 'n1', maxcpu: 8, tags: ['a', 'b'] },
    },
    {
      id: id('qemu/100'),
      kind: 'vm',
      provider: 'proxmox',
      name: `vm100-${prefix}`,
      state: 'stopped',
      rawState: 'stopped',
      lifecycle: 'deprecated',
      attributes: { vmid: 100 },
    },
    { id: id('qemu/101'), kind: 'vm', provider: 'proxmox', name: `vm101-${prefix}`, state: 'running' },
  ];
  const source = `proxmox:${prefix}-${scope}`;
  const edges: EdgeInput[] = [
    { type: 'MEMBER_OF', fromId: id('node/n1'), toId: id('cluster'), provenance: 'observed', source },
    { type: 'RUNS_ON', fromId: id('qemu/100'), toId: id('node/n1'), provenance: 'observed', source },
    { type: 'RUNS_ON', fromId: id('qemu/101'), toId: id('node/n1'), provenance: 'observed', source },
    {
      type: 'DEPENDS_ON',
      fromId: id('qemu/101'),
      toId: id('qemu/100'),
      provenance: 'inferred',
      source: 'resolver',
      rule: 'r1',
      confidence: 'medium',
      evidence: 'seen in the config',
    },
  ];
  return { rows: resources.map((resource) => ({ resource, clear: [] })), edges };
}

async function load(rows: InventoryRow[], edges: EdgeInput[], options = {}): Promise<IngestReport> {
  const report = createReport('proxmox', `proxmox:${scope}`, 'tag-1');
  await loadInventory(driver, rows, edges, { updateTag: 'tag-1', observedAt: NOW, ...options }, report);
  return report;
}

/** Every node and edge under `prefix`, the prefix taken out of ids and names: comparable across prefixes. */
async function snapshot(prefix: string): Promise<unknown> {
  const strip = (v: unknown): unknown =>
    typeof v === 'string' ? v.replaceAll(`${prefix}-${scope}`, 'P').replaceAll(prefix, 'P') : v;
  const clean = (props: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(props)
        .map(([k, v]) => [k, Array.isArray(v) ? v.map(strip) : v && typeof v === 'object' ? String(v) : strip(v)])
        .sort(([a], [b]) => String(a).localeCompare(String(b))),
    );
  const { records } = await driver.executeQuery(
    `MATCH (r:Resource) WHERE r.id STARTS WITH $p
     OPTIONAL MATCH (r)-[e]->(b:Resource)
     WITH r, e, b ORDER BY type(e), b.id
     RETURN r.id AS id, labels(r) AS labels, properties(r) AS props,
            collect(CASE WHEN e IS NULL THEN null ELSE [type(e), b.id, properties(e)] END) AS edges
     ORDER BY id`,
    { p: `proxmox:${prefix}-${scope}/` },
  );
  return records.map((rec) => ({
    id: strip(rec.get('id')),
    labels: [...(rec.get('labels') as string[])].sort(),
    props: clean(rec.get('props') as Record<string, unknown>),
    edges: (rec.get('edges') as Array<[string, string, Record<string, unknown>]>).map(([t, b, p]) => [
      t,
      strip(b),
      clean(p),
    ]),
  }));
}

describe('the load pass: new resources created outright, known ones merged', () => {
  it('a first load writes exactly what the merge path writes for the same rows', async () => {
    const created = pass('create');
    const report = await load(created.rows, created.edges);
    expect(report.resources).toMatchObject({ created: 4, written: 4 });
    expect(report.edges).toMatchObject({ created: 4 });
    const merged = pass('merge');
    await upsertResources(
      driver,
      merged.rows.map((r) => r.resource),
      { observedAt: NOW, updateTag: 'tag-1' },
    );
    await upsertEdges(driver, merged.edges, { observedAt: NOW, updateTag: 'tag-1' });
    const a = await snapshot('create');
    expect(a).toEqual(await snapshot('merge'));
    // And seen again through the merge path, nothing but what was already there.
    const again = await load(created.rows, created.edges);
    expect(again.resources.created).toBe(0);
    expect(again.edges.created).toBe(0);
    expect(again.stateChanges).toEqual([]);
    expect(await snapshot('create')).toEqual(a);
  });

  it('a batch whose ids another writer created meanwhile is merged instead: no error, no duplicate', async () => {
    const { rows } = pass('race');
    await load(rows.slice(0, 3), []);
    // A 'create' batch for ids that exist now (the pass read them as absent a moment before).
    const batch = [
      { resource: { ...rows[2]!.resource, state: 'running' as const }, edges: [] },
      { resource: rows[3]!.resource, edges: [] },
    ];
    const res = await writeKindBatch(driver, 'vm', batch, { now: NOW, tag: 'tag-2' }, 'create');
    expect(res).toMatchObject({ written: 2, created: 1 });
    expect(res.changes).toEqual([
      expect.objectContaining({ id: rows[2]!.resource.id, from: 'stopped', to: 'running' }),
    ]);
    const { records } = await driver.executeQuery('MATCH (r:Resource {id: $id}) RETURN count(r) AS n', {
      id: rows[2]!.resource.id,
    });
    expect(Number(records[0]!.get('n'))).toBe(1);
  });

  it('batches in parallel give the report in input order; a repeated id applies its rows in order', async () => {
    const { rows, edges } = pass('par');
    const vms = Array.from({ length: 9 }, (_, i) => ({
      resource: { ...rows[3]!.resource, id: `${rows[3]!.resource.id}${i}`, name: `v${i}-${scope}` },
      clear: [],
    }));
    await load([...rows, ...vms], edges, { batchSize: 2, concurrency: 2 });
    const flipped = vms.map((r) => ({ ...r, resource: { ...r.resource, state: 'stopped' as const } }));
    const report = await load([...rows, ...flipped], edges, { batchSize: 2, concurrency: 2 });
    expect(report.stateChanges.map((c) => c.id)).toEqual(vms.map((r) => r.resource.id));
    // One id twice in a pass (and in different batches): the later row wins, written once.
    const twice = await load(
      [...rows, vms[0]!, ...vms.slice(1, 4), { ...vms[0]!, resource: { ...vms[0]!.resource, state: 'paused' } }],
      edges,
      {
        batchSize: 2,
        concurrency: 2,
      },
    );
    expect(twice.resources.created).toBe(0);
    const { records } = await driver.executeQuery('MATCH (r:Resource {id: $id}) RETURN r.state AS s, count(*) AS n', {
      id: vms[0]!.resource.id,
    });
    expect([records[0]!.get('s'), Number(records[0]!.get('n'))]).toEqual(['paused', 1]);
  });

  it('a new id given twice in one pass is created once, its edges once', async () => {
    const { rows, edges } = pass('dup');
    const report = await load([...rows, rows[3]!], [...edges], { batchSize: 1 });
    expect(report.resources.created).toBe(4);
    expect(report.edges.created).toBe(4);
  });
});
