import { beforeAll, describe, expect, it } from 'vitest';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { traverseFrom, type TraverseView } from '../../../src/graph/traversal.js';
import { useGraph } from '../../support/graph.js';

const { driver, scope } = useGraph();

/** A small deterministic PRNG (mulberry32), so a failing graph can be rebuilt from its seed. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TYPES = ['DEPENDS_ON', 'RUNS_ON', 'STORED_ON', 'MEMBER_OF', 'MANIFESTS_AS'] as const;

/**
 * A random graph of `n` resources and `m` edges (cycles, parallel edges, some stale), with
 * MANIFESTS_AS edges at `twins` of the edges: the walk semantics hold for any shape, so the edges
 * are written as they are, not through the relationship rules.
 */
async function randomGraph(name: string, seed: number, n: number, m: number, twins: number): Promise<string[]> {
  const next = rng(seed);
  const ids = Array.from({ length: n }, (_, i) => `manual:service/${scope}-${name}-${i}`);
  await upsertResources(
    driver,
    ids.map((id, i) => ({ id, kind: 'service', provider: 'manual', name: `${name}-${i}-${scope}`, state: 'up' })),
  );
  const edges = Array.from({ length: m }, () => ({
    from: ids[Math.floor(next() * n)]!,
    to: ids[Math.floor(next() * n)]!,
    type: next() < twins ? 'MANIFESTS_AS' : TYPES[Math.floor(next() * 4)]!,
    stale: next() < 0.1,
  })).filter((e) => e.from !== e.to);
  for (const type of TYPES) {
    await driver.executeQuery(
      `UNWIND $rows AS e MATCH (a:Resource {id: e.from}), (b:Resource {id: e.to})
       CREATE (a)-[r:${type}]->(b) SET r.missingSince = CASE WHEN e.stale THEN datetime() END`,
      { rows: edges.filter((e) => e.type === type) },
    );
  }
  return ids;
}

/** [id, depth] of each resource reached, in the walk's order. */
async function reached(start: string, direction: 'dependents' | 'dependencies', depth: number, view: TraverseView) {
  const walk = await traverseFrom(driver, start, direction, depth, view);
  return walk.reached.map((r) => `${r.resource.id}@${r.depth}`);
}

describe('walks without paths reach what the shortest-path walk reaches, at the same depths', () => {
  const graphs: Array<[string, number, number, number, number]> = [
    ['plain', 7, 30, 60, 0],
    ['sparse', 11, 40, 70, 0.05],
    ['twins', 23, 40, 80, 0.2],
  ];
  const built = new Map<string, string[]>();
  beforeAll(async () => {
    for (const [name, ...rest] of graphs) built.set(name, await randomGraph(name, ...rest));
  });

  it.each(graphs.map((g) => g[0]))('%s graph: every start, both directions, depths 1–4', async (name) => {
    const ids = built.get(name)!;
    let nonEmpty = 0;
    for (const direction of ['dependents', 'dependencies'] as const) {
      for (const depth of [1, 2, 3, 4]) {
        const asks = ids.map(async (start) => {
          const [withPath, identity, full] = await Promise.all([
            reached(start, direction, depth, { resources: 'identity', path: true }),
            reached(start, direction, depth, { resources: 'identity', path: false }),
            reached(start, direction, depth, { resources: 'full', path: false }),
          ]);
          expect({ start, direction, depth, reached: identity }).toEqual({
            start,
            direction,
            depth,
            reached: withPath,
          });
          expect(full).toEqual(withPath);
          if (withPath.length > 0) nonEmpty++;
        });
        await Promise.all(asks);
      }
    }
    // The walks reached something: the comparison was not of empty lists.
    expect(nonEmpty).toBeGreaterThan(ids.length);
  });

  it('a MANIFESTS_AS edge at the depth limit leads nowhere; one short of it is followed either way', async () => {
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((x) => `manual:service/${scope}-edge-${x}`) as [
      string,
      string,
      string,
      string,
    ];
    await upsertResources(
      driver,
      [a, b, c, d].map((id) => ({ id, kind: 'service', provider: 'manual', name: id.slice(-6), state: 'up' })),
    );
    // b depends on a; b is c (MANIFESTS_AS stored c → b); d depends on c.
    await driver.executeQuery(
      `MATCH (a:Resource {id: $a}), (b:Resource {id: $b}), (c:Resource {id: $c}), (d:Resource {id: $d})
       CREATE (b)-[:DEPENDS_ON]->(a), (c)-[:MANIFESTS_AS]->(b), (d)-[:DEPENDS_ON]->(c)`,
      { a, b, c, d },
    );
    const view = { resources: 'identity', path: false } as const;
    expect(await reached(a, 'dependents', 1, view)).toEqual([`${b}@1`]);
    expect(await reached(a, 'dependents', 2, view)).toEqual([`${b}@1`, `${c}@2`]);
    expect(await reached(a, 'dependents', 3, view)).toEqual([`${b}@1`, `${c}@2`, `${d}@3`]);
    expect(await reached(d, 'dependencies', 3, view)).toEqual([`${c}@1`, `${b}@2`, `${a}@3`]);
  });
});

describe('walks read only what the caller selects, and read it right', () => {
  it('identity rows carry the id, kind, name and provider the full read has: names with spaces, quotes, non-ASCII', async () => {
    const host = `proxmox:${scope}/node/names`;
    const names = ['web 01  (prod) ', 'o\'brien "db"', 'datenbank-ü 😀', ' leading', 'x'];
    const vms = names.map((_, i) => `proxmox:${scope}/qemu/${900 + i}`);
    const esxi = `vcenter:${scope}/host-names`;
    await upsertResources(driver, [
      { id: host, kind: 'host', provider: 'proxmox', name: `names-${scope}`, state: 'online' },
      ...vms.map((id, i) => ({
        id,
        kind: 'vm' as const,
        provider: 'proxmox' as const,
        name: names[i]!,
        state: 'running',
      })),
      { id: esxi, kind: 'host', provider: 'vcenter', name: `esxi names ${scope}`, state: 'online' },
    ]);
    await driver.executeQuery(
      `MATCH (h:Resource {id: $host}) UNWIND $vms AS vm MATCH (v:Resource {id: vm}) CREATE (v)-[:RUNS_ON]->(h)`,
      { host, vms },
    );
    const identity = (r: Awaited<ReturnType<typeof traverseFrom>>) =>
      r.reached.map(({ resource: { id, kind, name, provider }, depth }) => ({ id, kind, name, provider, depth }));
    const full = identity(await traverseFrom(driver, host, 'dependents', 2, { resources: 'full', path: false }));
    expect(full.map((r) => r.name).sort()).toEqual([...names].sort());
    // The breadth-first walk, then the shortest-path one (a MANIFESTS_AS edge at the start sends it there).
    for (const twin of [false, true]) {
      if (twin)
        await driver.executeQuery(
          'MATCH (h:Resource {id: $host}), (e:Resource {id: $esxi}) CREATE (e)-[:MANIFESTS_AS]->(h)',
          { host, esxi },
        );
      const expected = twin
        ? [...full, { id: esxi, kind: 'host', name: `esxi names ${scope}`, provider: 'vcenter', depth: 1 }]
        : full;
      const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1);
      for (const path of [false, true]) {
        const walk = await traverseFrom(driver, host, 'dependents', 2, { resources: 'identity', path });
        expect(identity(walk).sort(byId)).toEqual([...expected].sort(byId));
      }
    }
  });
});
