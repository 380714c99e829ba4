/**
 * bench:ingest — loading a synthetic inventory of 50,000 resources and 150,000 edges through the
 * ingest loader (UNWIND batches, idempotent MERGE) beside one transaction per row on the same
 * Neo4j. Per-row runs on a 2,000-item subset with the same resource/edge mix and its rate is
 * extrapolated (a full per-row run would take many minutes); the two are measured interleaved in
 * rounds so background load on a shared machine affects both alike. Prints both rates, their ratio and the
 * peak RSS of this Node process; ends with one `RESULT ingest …` line.
 *
 * Options (environment): BENCH_BATCH_SIZE (default 1000), BENCH_RESOURCES, BENCH_EDGES,
 * BENCH_PER_ROW_ITEMS; NEO4J_URI to use an existing Neo4j instead of a throwaway embedded one.
 */
import { upsertEdges } from '../src/graph/edges.js';
import { upsertResources } from '../src/graph/resources.js';
import { type InventoryRow, loadInventory } from '../src/ingest/inventory-load.js';
import { createReport } from '../src/ingest/report.js';
import type { EdgeInput, ResourceInput } from '../src/model/index.js';
import { isoNow } from '../src/graph/statements.js';
import { benchNeo4j, fmt } from './support.js';

const envInt = (name: string, dflt: number) => {
  const v = Number(process.env[name] ?? dflt);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer`);
  return v;
};
const BATCH = envInt('BENCH_BATCH_SIZE', 1000);
const RESOURCES = envInt('BENCH_RESOURCES', 50_000);
const EDGES = envInt('BENCH_EDGES', 150_000);
const PER_ROW_ITEMS = envInt('BENCH_PER_ROW_ITEMS', 2_000);

/**
 * A cluster-shaped inventory: 1 cluster, hosts (2 %), storages (8 %), the rest VMs; MEMBER_OF
 * host/storage → cluster, RUNS_ON vm → host, STORED_ON vm → storage for the remaining edges.
 */
function synthetic(prefix: string, resources: number, edges: number): { rows: InventoryRow[]; edges: EdgeInput[] } {
  const hosts = Math.max(1, Math.floor(resources * 0.02));
  const storages = Math.max(1, Math.floor(resources * 0.08));
  const vms = resources - 1 - hosts - storages;
  const row = (r: Omit<ResourceInput, 'provider'>): InventoryRow => ({
    resource: { ...r, provider: 'proxmox' } as ResourceInput,
    clear: [],
  });
  const cluster = `proxmox:${prefix}/cluster`;
  const hostId = (i: number) => `proxmox:${prefix}/node/n${i}`;
  const storageId = (i: number) => `proxmox:${prefix}/storage/n${i % hosts}/s${i}`;
  const vmId = (i: number) => `proxmox:${prefix}/qemu/${100 + i}`;
  const rows: InventoryRow[] = [
    row({ id: cluster, kind: 'cluster', name: prefix, state: 'online', rawState: 'quorate:1' }),
  ];
  for (let i = 0; i < hosts; i++)
    rows.push(
      row({
        id: hostId(i),
        kind: 'host',
        name: `n${i}`,
        state: 'online',
        rawState: 'online',
        attributes: { node: `n${i}`, maxcpu: 64 },
      }),
    );
  for (let i = 0; i < storages; i++)
    rows.push(
      row({
        id: storageId(i),
        kind: 'storage',
        name: `s${i}`,
        state: 'available',
        rawState: 'available',
        attributes: { plugintype: 'lvmthin' },
      }),
    );
  for (let i = 0; i < vms; i++) {
    rows.push(
      row({
        id: vmId(i),
        kind: 'vm',
        name: `vm${i}`,
        state: i % 7 === 0 ? 'stopped' : 'running',
        rawState: 'running',
        attributes: { vmid: 100 + i, tags: ['bench', `t${i % 13}`] },
      }),
    );
  }
  const out: EdgeInput[] = [];
  const e = (type: EdgeInput['type'], fromId: string, toId: string) =>
    out.push({ type, fromId, toId, provenance: 'observed', source: `proxmox:${prefix}` });
  for (let i = 0; i < hosts && out.length < edges; i++) e('MEMBER_OF', hostId(i), cluster);
  for (let i = 0; i < storages && out.length < edges; i++) e('MEMBER_OF', storageId(i), cluster);
  for (let i = 0; i < vms && out.length < edges; i++) e('RUNS_ON', vmId(i), hostId(i % hosts));
  // Disks: each VM on distinct storages, round after round, until the edge count is reached.
  for (let round = 0; out.length < edges && round < storages; round++) {
    for (let i = 0; i < vms && out.length < edges; i++) e('STORED_ON', vmId(i), storageId((i + round * 7) % storages));
  }
  return { rows, edges: out };
}

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;
const rssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);

const neo = await benchNeo4j();
const run = `bench-ingest-${Date.now()}`;
let exitCode = 0;
try {
  const full = synthetic(`${run}-batched`, RESOURCES, EDGES);
  if (full.edges.length !== EDGES) throw new Error(`generated ${full.edges.length} edges, wanted ${EDGES}`);
  const total = full.rows.length + full.edges.length;
  console.log(
    `\naitia bench:ingest — ${full.rows.length} resources + ${full.edges.length} edges (Neo4j: ${neo.via}; batch size ${BATCH})\n`,
  );

  // Warm the JVM, page cache and query plans so neither mode pays for compilation.
  const warm = synthetic(`${run}-warm`, 2_000, 6_000);
  await loadInventory(
    neo.driver,
    warm.rows,
    warm.edges,
    { updateTag: 'warm', observedAt: isoNow(), batchSize: BATCH },
    createReport('proxmox', 'warm', 'warm'),
  );
  for (const r of warm.rows.slice(0, 100)) await upsertResources(neo.driver, [r.resource], { updateTag: 'warm-row' });
  for (const e of warm.edges.slice(0, 100)) await upsertEdges(neo.driver, [e], { updateTag: 'warm-row' });

  // Batched and per-row are measured interleaved, in ten rounds (resources first, then edges), so
  // both see the same background load on a shared machine; per-row uses the same 1 : 3 mix.
  const subsetResources = Math.round(PER_ROW_ITEMS / 4);
  const subset = synthetic(`${run}-per-row`, subsetResources, PER_ROW_ITEMS - subsetResources);
  const report = createReport('proxmox', `proxmox:${run}`, 'bench');
  const ROUNDS = 10;
  const part = <T>(items: T[], k: number) =>
    items.slice(Math.floor((items.length * k) / ROUNDS), Math.floor((items.length * (k + 1)) / ROUNDS));
  let batchedS = 0;
  let perRowS = 0;
  const observedAt = isoNow();
  for (const phase of ['resources', 'edges'] as const) {
    for (let k = 0; k < ROUNDS; k++) {
      let t = process.hrtime.bigint();
      const rows = phase === 'resources' ? part(full.rows, k) : [];
      const edges = phase === 'edges' ? part(full.edges, k) : [];
      await loadInventory(neo.driver, rows, edges, { updateTag: 'bench-1', observedAt, batchSize: BATCH }, report);
      batchedS += seconds(t);
      t = process.hrtime.bigint();
      if (phase === 'resources')
        for (const r of part(subset.rows, k)) await upsertResources(neo.driver, [r.resource], { updateTag: 'per-row' });
      else for (const e of part(subset.edges, k)) await upsertEdges(neo.driver, [e], { updateTag: 'per-row' });
      perRowS += seconds(t);
    }
  }
  if (
    report.resources.created !== full.rows.length ||
    report.edges.created !== full.edges.length ||
    report.skipped.length > 0
  ) {
    throw new Error(
      `batched load wrote ${report.resources.created} resources / ${report.edges.created} edges, skipped ${report.skipped.length}`,
    );
  }
  const perRowItems = subset.rows.length + subset.edges.length;

  const rerun = createReport('proxmox', `proxmox:${run}`, 'bench');
  const t = process.hrtime.bigint();
  await loadInventory(
    neo.driver,
    full.rows,
    full.edges,
    { updateTag: 'bench-2', observedAt: isoNow(), batchSize: BATCH },
    rerun,
  );
  const rerunS = seconds(t);
  if (rerun.resources.created !== 0 || rerun.edges.created !== 0)
    throw new Error('the re-run created nodes or edges: the load is not idempotent');

  const batchedRate = total / batchedS;
  const rerunRate = total / rerunS;
  const perRowRate = perRowItems / perRowS;
  const ratio = batchedRate / perRowRate;
  const rows = [
    ['batched (UNWIND + MERGE), first load', total, batchedS, batchedRate],
    ['batched re-run (nothing new)', total, rerunS, rerunRate],
    [`one transaction per row (subset)`, perRowItems, perRowS, perRowRate],
  ] as const;
  console.log('mode                                      items    seconds      items/s');
  for (const [name, n, s, rate] of rows)
    console.log(`${name.padEnd(38)} ${String(n).padStart(9)} ${fmt(s, 1).padStart(10)} ${fmt(rate, 0).padStart(12)}`);
  console.log(
    `\nper-row extrapolated to all ${total} items: ~${fmt(total / perRowRate / 60, 1)} min (measured on ${perRowItems} items)`,
  );
  console.log(`ratio batched / per-row: ${fmt(ratio, 1)}× (target ≥ 20×)`);
  console.log(`peak RSS of this Node process: ${rssMb()} MB`);
  console.log(
    `RESULT ingest batched_per_s=${Math.round(batchedRate)} per_row_per_s=${Math.round(perRowRate)} ratio=${fmt(ratio, 1)} peak_rss_mb=${rssMb()}`,
  );
} catch (err) {
  console.error(`bench:ingest failed: ${(err as Error).message}`);
  exitCode = 1;
} finally {
  // Auto-commit session: CALL … IN TRANSACTIONS deletes the 200,000 items in bounded chunks.
  const session = neo.driver.session();
  try {
    await session.run(
      'MATCH (n:Resource) WHERE n.id STARTS WITH $p CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS',
      { p: `proxmox:${run}` },
    );
  } catch (err) {
    console.error(`cleanup failed: ${(err as Error).message}`);
  } finally {
    await session.close();
  }
  await neo.stop();
}
process.exit(exitCode);
