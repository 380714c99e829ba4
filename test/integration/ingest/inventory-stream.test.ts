import { describe, expect, it } from 'vitest';
import { LOAD_ORDER } from '../../../src/graph/inventory/write.js';
import { type InventoryRow, loadInventory } from '../../../src/ingest/inventory-load.js';
import { createReport, type IngestReport } from '../../../src/ingest/report.js';
import type { EdgeInput, ResourceInput } from '../../../src/model/index.js';
import { useGraph } from '../../support/graph.js';

const { driver, scope } = useGraph();
const NOW = '2026-12-01T10:00:00Z';

/**
 * A pass under `prefix`: inline edges (parents first), a deferred one (vm → vm), one to a missing
 * target (skipped), one with rule and evidence, and a cleared attribute.
 */
function pass(prefix: string): { resources: ResourceInput[]; edges: EdgeInput[] } {
  const id = (s: string) => `proxmox:${prefix}-${scope}/${s}`;
  const source = `proxmox:${prefix}-${scope}`;
  const resources: ResourceInput[] = [
    { id: id('qemu/101'), kind: 'vm', provider: 'proxmox', name: `vm101-${prefix}`, state: 'running' },
    { id: id('cluster'), kind: 'cluster', provider: 'proxmox', name: `c-${prefix}`, state: 'online' },
    {
      id: id('node/n1'),
      kind: 'host',
      provider: 'proxmox',
      name: `n1-${prefix}`,
      state: 'online',
      attributes: { node: 'n1', maxcpu: 8 },
    },
    {
      id: id('qemu/100'),
      kind: 'vm',
      provider: 'proxmox',
      name: `vm100-${prefix}`,
      state: 'stopped',
      attributes: { vmid: 100 },
    },
  ];
  const edges: EdgeInput[] = [
    { type: 'MEMBER_OF', fromId: id('node/n1'), toId: id('cluster'), provenance: 'observed', source },
    { type: 'RUNS_ON', fromId: id('qemu/100'), toId: id('node/n1'), provenance: 'observed', source },
    { type: 'RUNS_ON', fromId: id('qemu/101'), toId: id('node/n1'), provenance: 'observed', source },
    { type: 'DEPENDS_ON', fromId: id('qemu/101'), toId: id('qemu/100'), provenance: 'observed', source },
    { type: 'DEPENDS_ON', fromId: id('qemu/100'), toId: id('nowhere'), provenance: 'observed', source },
    {
      type: 'DEPENDS_ON',
      fromId: id('qemu/101'),
      toId: id('cluster'),
      provenance: 'inferred',
      source: 'resolver',
      rule: 'r1',
      confidence: 'medium',
      evidence: 'seen in the config',
    },
  ];
  return { resources, edges };
}

/** Rows made afresh on every iteration, each with its outgoing edges, as a streamed provider pass gives them. */
function streamed(prefix: string): Iterable<InventoryRow> {
  const { resources, edges } = pass(prefix);
  return {
    *[Symbol.iterator]() {
      for (const r of resources)
        yield { resource: { ...r }, clear: [], edges: edges.filter((e) => e.fromId === r.id).map((e) => ({ ...e })) };
    },
  };
}

async function load(rows: Iterable<InventoryRow>, edges: EdgeInput[] = []): Promise<IngestReport> {
  const report = createReport('proxmox', `proxmox:${scope}`, 'tag-1');
  await loadInventory(driver, rows, edges, { updateTag: 'tag-1', observedAt: NOW, batchSize: 1 }, report);
  return report;
}

/** Nodes and edges under `prefix`, the prefix taken out: comparable across prefixes. */
async function snapshot(prefix: string): Promise<unknown> {
  const strip = (v: unknown) => (typeof v === 'string' ? v.replaceAll(prefix, 'P') : v);
  const { records } = await driver.executeQuery(
    `MATCH (r:Resource) WHERE r.id STARTS WITH $p
     OPTIONAL MATCH (r)-[e]->(b:Resource)
     WITH r, e, b ORDER BY type(e), b.id
     RETURN r.id AS id, labels(r) AS labels, r.name AS name, r.state AS state, r['attr.vmid'] AS vmid,
            collect(CASE WHEN e IS NULL THEN null ELSE [type(e), b.id, e.provenance, e.source, e.rule, e.evidence] END) AS edges
     ORDER BY id`,
    { p: `proxmox:${prefix}-${scope}/` },
  );
  return records.map((rec) => ({
    ...Object.fromEntries(rec.keys.map((k) => [k, strip(rec.get(k))])),
    edges: (rec.get('edges') as unknown[][]).map((e) => e.map(strip)),
  }));
}

async function count(prefix: string): Promise<number> {
  const { records } = await driver.executeQuery('MATCH (r:Resource) WHERE r.id STARTS WITH $p RETURN count(r) AS n', {
    p: `proxmox:${prefix}-${scope}/`,
  });
  return (records[0]!.get('n') as { toNumber(): number }).toNumber();
}

describe('a streamed load pass: rows walked again, edges with their rows', () => {
  it('writes what the same pass given as arrays writes, skips the same edge, and a re-run creates nothing', async () => {
    const held = pass('held');
    const asArrays = await load(
      held.resources.map((resource) => ({ resource, clear: [] })),
      held.edges,
    );
    const asStream = await load(streamed('flow'));
    for (const r of [asArrays, asStream]) {
      expect(r.resources).toMatchObject({ created: 4, written: 4 });
      expect(r.edges).toMatchObject({ created: 5 });
      expect(r.skipped.map((s) => s.reason)).toEqual([expect.stringContaining('does not exist')]);
    }
    expect(await snapshot('flow')).toEqual(await snapshot('held'));
    expect((await snapshot('flow')) as unknown[]).toHaveLength(4);
    const again = await load(streamed('flow'));
    expect(again.resources.created).toBe(0);
    expect(again.edges.created).toBe(0);
    expect(again.resources.written).toBe(4);
  });

  it('a source that cannot be walked twice is refused before anything is written', async () => {
    const rows = [...streamed('once')];
    const oneShot = (function* () {
      yield* rows;
    })();
    await expect(load(oneShot)).rejects.toThrow(/rows: iterated again it gave 0 rows, not 4/);
    expect(await count('once')).toBe(0);
  });

  it("an edge in a row that does not start at the row's resource is refused, naming the field", async () => {
    const rows = [...streamed('wrong')];
    rows[2]!.edges = [{ ...rows[2]!.edges![0]!, fromId: rows[0]!.resource.id }];
    await expect(load(rows)).rejects.toThrow(/resources\[2\]\.edges\[0\]\.fromId/);
    expect(await count('wrong')).toBe(0);
  });
});

/** `rows` as a source that counts its walks and may give another order from its second walk on. */
function counted(rows: InventoryRow[], later: (rows: InventoryRow[]) => InventoryRow[] = (r) => r) {
  const source = {
    walks: 0,
    *[Symbol.iterator]() {
      source.walks++;
      yield* source.walks === 1 ? rows : later(rows);
    },
  };
  return source;
}

const parentsFirst = (rows: InventoryRow[]) =>
  [...rows].sort((a, b) => LOAD_ORDER.indexOf(a.resource.kind) - LOAD_ORDER.indexOf(b.resource.kind));

describe('a load pass walks rows that come parents first once to write them', () => {
  it('one write walk (index, edges, write, deferred edges) and the graph a per-kind walk writes', async () => {
    const unordered = counted([...streamed('perkind')]);
    const ordered = counted(parentsFirst([...streamed('onewalk')]));
    const [a, b] = [await load(unordered), await load(ordered)];
    // Unordered: index, edges, one walk per kind present (cluster, host, vm), deferred edges.
    expect([unordered.walks, ordered.walks]).toEqual([6, 4]);
    for (const r of [a, b]) expect([r.resources.created, r.edges.created]).toEqual([4, 5]);
    expect(await snapshot('onewalk')).toEqual(await snapshot('perkind'));
  });

  it('places the edges in the first walk when each comes after its target, skipping what a later walk skips', async () => {
    // Each edge after its target: qemu/100 before qemu/101, no missing target; vm MEMBER_OF cluster
    // is refused by its kinds, which the first walk already knows.
    const fit = (prefix: string) => {
      const rows = parentsFirst([...streamed(prefix)]).sort((a, b) =>
        a.resource.kind === 'vm' && b.resource.kind === 'vm' ? a.resource.id.localeCompare(b.resource.id) : 0,
      );
      for (const r of rows) r.edges = r.edges!.filter((e) => !e.toId.endsWith('/nowhere'));
      const vm = rows.find((r) => r.resource.id.endsWith('/qemu/101'))!;
      const cluster = rows.find((r) => r.resource.kind === 'cluster')!.resource.id;
      vm.edges!.push({ ...vm.edges![0]!, type: 'MEMBER_OF', toId: cluster });
      return rows;
    };
    const ordered = counted(fit('early'));
    // The same rows with an edge before its target (the DEPENDS_ON to qemu/100 moved first).
    const late = fit('late');
    late.unshift(
      ...late.splice(
        late.findIndex((r) => r.resource.id.endsWith('/qemu/101')),
        1,
      ),
    );
    const unordered = counted(late);
    const [a, b] = [await load(ordered), await load(unordered)];
    // Index, write, deferred edges (the vm → vm one); the other: index, edges, a walk per kind, deferred.
    expect([ordered.walks, unordered.walks]).toEqual([3, 6]);
    const strip = (r: IngestReport, prefix: string) => r.skipped.map((s) => s.id!.replaceAll(prefix, 'P') + s.reason);
    expect(strip(a, 'early')).toEqual(strip(b, 'late'));
    expect(a.skipped).toEqual([
      expect.objectContaining({
        what: 'edge',
        reason: expect.stringContaining('MEMBER_OF is not allowed from vm to cluster'),
      }),
    ]);
    for (const r of [a, b]) expect([r.resources.created, r.edges.created]).toEqual([4, 5]);
    expect(await snapshot('early')).toEqual(await snapshot('late'));
  });

  it('refuses a source whose later walk gives a parent after its children, naming the kinds', async () => {
    const rows = counted(parentsFirst([...streamed('reorder')]), (r) => [...r].reverse());
    await expect(load(rows)).rejects.toThrow(/rows: iterated again they came in another order \(a \w+ after a vm\)/);
  });

  it('a pass some of whose ids are stored merges those and creates the rest (the range probe finds them)', async () => {
    const rows = parentsFirst([...streamed('partial')]);
    await load(rows.filter((r) => r.resource.kind === 'host'));
    const report = await load(rows);
    expect([report.resources.created, report.resources.written]).toEqual([3, 4]);
    expect(await count('partial')).toBe(4);
    // A stored host given as a cluster: the probe sends its chunk to the kind check, which refuses it.
    const host = rows.find((r) => r.resource.kind === 'host')!;
    const clash = { ...host, resource: { ...host.resource, kind: 'cluster' as const, attributes: {} }, edges: [] };
    await expect(load([clash])).rejects.toThrow(/is a host, not a cluster/);
  });
});
