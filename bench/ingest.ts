/**
 * bench:ingest — aitia's loader against the reference loader's statement shape (Cartography's, see
 * bench/ingest-reference.ts) and against one transaction per row, on the same Neo4j and the same
 * synthetic inventory (issue 18's: 1 cluster, 1,000 hosts, 40,000 guests, 8,999 services, ~108,000
 * relationships at the default size). Each round loads the whole inventory with aitia and with the
 * reference, alternating which goes first, each into an empty scope (wiped, untimed, after every
 * run), then a per-row slice; so background load on a shared machine affects all alike. Prints the
 * rates, ratio_vs_reference (aitia ÷ reference), the per-row ratio, each loader's CPU seconds per load
 * (Neo4j's and this process's: less swayed by a busy machine than wall time); then one aitia load per size in a
 * child process of its own (bench/ingest-rss.ts), whose peak RSS is that load's alone, at the chosen
 * size and at 50,000 and 200,000; ends with one `RESULT ingest …` line. The shape is generated as
 * the loaders iterate it (bench/ingest-shape.ts), so no process holds the inventory.
 *
 * Options: `--resources N` (or BENCH_RESOURCES; default 50,000), `--rss-at 50000,200000` (sizes
 * whose peak RSS is measured beside N; `--rss-at none` for N only); environment: BENCH_RSS_HEAP_MB
 * (the children's old-space cap, default 128, `none` for V8's sizing), BENCH_ROUNDS (default 4, even: the loader
 * that goes second in a round runs measurably faster, so each must go first equally often),
 * BENCH_BATCH_SIZE (default 1000), BENCH_PER_ROW_ITEMS (default 2,000 over all rounds);
 * NEO4J_URI to use an existing Neo4j instead of a throwaway embedded one.
 */
import { loadavg } from 'node:os';
import type { Driver } from 'neo4j-driver';
import { DEFAULT_DRIVER_BOUNDS } from '../src/graph/db/driver.js';
import { upsertEdges } from '../src/graph/edges.js';
import { LOAD_ORDER } from '../src/graph/inventory/write.js';
import { upsertResources } from '../src/graph/resources/upsert.js';
import { loadInventory } from '../src/ingest/inventory-load.js';
import { createReport, type IngestReport } from '../src/ingest/report.js';
import { isoNow } from '../src/graph/db/statements.js';
import { createReferenceConstraints, loadReference, wipeReference } from './ingest-reference.js';
import { measureInChild, type RssSample } from './ingest-rss.js';
import { type Shape, syntheticShape } from './ingest-shape.js';
import { benchNeo4j, fmt } from './support.js';

const envInt = (name: string, dflt: number) => {
  const v = Number(process.env[name] ?? dflt);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer`);
  return v;
};
const flag = (name: string) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
};
const cliInt = (name: string, v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 3) throw new Error(`${name} must be an integer ≥ 3, not ${JSON.stringify(v)}`);
  return n;
};
const BATCH = envInt('BENCH_BATCH_SIZE', 1000);
const RSS_HEAP_MB = process.env.BENCH_RSS_HEAP_MB === 'none' ? null : envInt('BENCH_RSS_HEAP_MB', 128);
const RESOURCES = flag('--resources') ? cliInt('--resources', flag('--resources')!) : envInt('BENCH_RESOURCES', 50_000);
const RSS_AT = [
  ...new Set([
    RESOURCES,
    ...(flag('--rss-at') === 'none'
      ? []
      : (flag('--rss-at') ?? '50000,200000').split(',').map((v) => cliInt('--rss-at', v.trim()))),
  ]),
].sort((a, b) => a - b);
const ROUNDS = envInt('BENCH_ROUNDS', 4);
if (ROUNDS % 2 !== 0) throw new Error('BENCH_ROUNDS must be even: each loader goes first in half the rounds');
const PER_ROW_ITEMS = envInt('BENCH_PER_ROW_ITEMS', 2_000);

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;
const rssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);
const load = () =>
  loadavg()
    .map((l) => fmt(l, 1))
    .join(' ');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function wipeScope(driver: Driver, prefix: string): Promise<void> {
  const session = driver.session();
  try {
    await session.run(
      'MATCH (n:Resource) WHERE n.id STARTS WITH $p CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS',
      { p: prefix },
    );
  } finally {
    await session.close();
  }
}

/** aitia's loader on a whole shape; checks it created everything and skipped nothing. */
async function loadAitia(driver: Driver, shape: Shape, tag: string): Promise<IngestReport> {
  const report = createReport('proxmox', 'proxmox:bench', tag);
  await loadInventory(driver, shape.rows, [], { updateTag: tag, observedAt: isoNow(), batchSize: BATCH }, report);
  return report;
}

/** One transaction per row: resources parents first, then edges. */
async function loadPerRow(driver: Driver, shape: Shape): Promise<void> {
  const rows = [...shape.rows];
  const rank = (r: (typeof rows)[number]) => LOAD_ORDER.indexOf(r.resource.kind);
  for (const r of rows.sort((a, b) => rank(a) - rank(b)))
    await upsertResources(driver, [r.resource], { updateTag: 'per-row' });
  for (const e of rows.flatMap((r) => r.edges ?? [])) await upsertEdges(driver, [e], { updateTag: 'per-row' });
}

const neo = await benchNeo4j({ ...DEFAULT_DRIVER_BOUNDS, stallMs: 60_000, probeMs: 15_000 });
// A short scope name, as real ones are (proxmox:homelab/…): the same ids for both loaders.
const run = `bi${(Date.now() % 1e8).toString(36)}`;
let exitCode = 0;
try {
  const shapeOf = (name: string, n = RESOURCES) => syntheticShape(`${run}-${name}`, n);
  const probe = shapeOf('probe');
  const total = probe.items;
  console.log(
    `\naitia bench:ingest — ${probe.resources} resources + ${probe.edges} edges per load, ${ROUNDS} rounds (Neo4j: ${neo.via}; batch size ${BATCH}; load average ${load()})\n`,
  );
  await createReferenceConstraints(neo.driver);

  // Warm the JVM (its JIT needs more than a few batches), query plans, page cache and the store
  // files, untimed, at full size: otherwise whichever loader goes first grows the files and the
  // other reuses the freed records after the wipe. Two rounds, each loader first once: after one,
  // the first timed round still ran ~1.5× slower than the later ones, for both loaders.
  for (const [k, w] of ['warm-a', 'warm-b'].entries()) {
    const warm = shapeOf(w);
    const loads = [() => loadAitia(neo.driver, warm, w), () => loadReference(neo.driver, warm.reference, BATCH, w)];
    for (const load of k % 2 === 0 ? loads : loads.reverse()) await load();
    await wipeScope(neo.driver, `proxmox:${run}-${w}`);
    await wipeReference(neo.driver);
  }
  await loadPerRow(neo.driver, shapeOf('warm-row', 30));
  await wipeScope(neo.driver, `proxmox:${run}-warm-row`);

  const aitiaS: number[] = [];
  const referenceS: number[] = [];
  // CPU seconds per loader (Neo4j's, this process's): what each load costs apart from waiting for a
  // CPU, which on a shared machine decides most of the wall time.
  const cpu = { aitia: { neo: 0, node: 0 }, reference: { neo: 0, node: 0 } };
  const cpuOf = async <T>(who: keyof typeof cpu, load: () => Promise<T>): Promise<T> => {
    const [neo0, node0] = [neo.cpuMs(), process.cpuUsage()];
    const out = await load();
    const node = process.cpuUsage(node0);
    if (neo0 !== null) cpu[who].neo += (neo.cpuMs()! - neo0) / 1000;
    cpu[who].node += (node.user + node.system) / 1e6;
    return out;
  };
  let perRowS = 0;
  let perRowItems = 0;
  let rerunS = 0;
  const perRowResources = Math.max(3, Math.round(PER_ROW_ITEMS / ROUNDS / 3.16));
  for (let k = 0; k < ROUNDS; k++) {
    const shape = shapeOf(`r${k}`);
    const runAitia = async () => {
      const t = process.hrtime.bigint();
      const report = await cpuOf('aitia', () => loadAitia(neo.driver, shape, `bench-${k}`));
      aitiaS.push(seconds(t));
      if (
        report.resources.created !== shape.resources ||
        report.edges.created !== shape.edges ||
        report.skipped.length > 0
      )
        throw new Error(
          `aitia created ${report.resources.created} resources / ${report.edges.created} edges, skipped ${report.skipped.length}`,
        );
      if (k === ROUNDS - 1) {
        // Idempotence: the same pass again creates nothing.
        const t2 = process.hrtime.bigint();
        const again = await loadAitia(neo.driver, shape, `bench-${k}-again`);
        rerunS = seconds(t2);
        if (again.resources.created !== 0 || again.edges.created !== 0)
          throw new Error('the re-run created nodes or edges: the load is not idempotent');
      }
      await wipeScope(neo.driver, `proxmox:${run}-r${k}`);
    };
    const runReference = async () => {
      const t = process.hrtime.bigint();
      const created = await cpuOf('reference', () => loadReference(neo.driver, shape.reference, BATCH, `bench-${k}`));
      referenceS.push(seconds(t));
      if (created.nodes !== shape.resources || created.relationships !== shape.edges)
        throw new Error(`reference created ${created.nodes} nodes / ${created.relationships} relationships`);
      await wipeReference(neo.driver);
    };
    if (k % 2 === 0) {
      await runAitia();
      await runReference();
    } else {
      await runReference();
      await runAitia();
    }
    const slice = shapeOf(`row${k}`, perRowResources);
    const t = process.hrtime.bigint();
    await loadPerRow(neo.driver, slice);
    perRowS += seconds(t);
    perRowItems += slice.items;
    await wipeScope(neo.driver, `proxmox:${run}-row${k}`);
    console.log(
      `round ${k + 1}: aitia ${fmt(aitiaS[k]!, 2)} s, reference ${fmt(referenceS[k]!, 2)} s (${k % 2 === 0 ? 'aitia' : 'reference'} first)`,
    );
  }

  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const aitiaRate = (total * ROUNDS) / sum(aitiaS);
  const referenceRate = (total * ROUNDS) / sum(referenceS);
  const perRowRate = perRowItems / perRowS;
  const ratioRef = aitiaRate / referenceRate;
  const ratio = aitiaRate / perRowRate;
  const rows = [
    ['aitia loadInventory, first load', total * ROUNDS, sum(aitiaS), aitiaRate],
    ['reference statement shape', total * ROUNDS, sum(referenceS), referenceRate],
    ['aitia re-run (nothing new)', total, rerunS, total / rerunS],
    ['one transaction per row (subset)', perRowItems, perRowS, perRowRate],
  ] as const;
  console.log('\nmode                                      items    seconds      items/s');
  for (const [name, n, s, rate] of rows)
    console.log(`${name.padEnd(38)} ${String(n).padStart(9)} ${fmt(s, 1).padStart(10)} ${fmt(rate, 0).padStart(12)}`);
  console.log(
    `\nmedian per load: aitia ${fmt(median(aitiaS), 2)} s, reference ${fmt(median(referenceS), 2)} s (ratio of medians ${fmt(median(referenceS) / median(aitiaS), 2)})`,
  );
  console.log(`ratio aitia / reference: ${fmt(ratioRef, 2)}× (target ≥ 1.3)`);
  const perLoad = (v: number) => fmt(v / ROUNDS, 2);
  console.log(
    `CPU per load: Neo4j ${perLoad(cpu.aitia.neo)} s for aitia, ${perLoad(cpu.reference.neo)} s for the reference; this process ${perLoad(cpu.aitia.node)} s / ${perLoad(cpu.reference.node)} s`,
  );
  console.log(`ratio aitia / per-row: ${fmt(ratio, 1)}× (target ≥ 20×)`);
  const benchRss = rssMb();
  console.log(`peak RSS of this bench process (every round, both loaders): ${benchRss} MB; load average ${load()}`);

  // One aitia load per size in a child of its own: its peak RSS is that load's.
  const samples: RssSample[] = [];
  console.log(
    `\none aitia load in a process of its own (old space ${RSS_HEAP_MB === null ? 'sized by V8' : `capped at ${RSS_HEAP_MB} MB`})`,
  );
  console.log(`${''.padEnd(38)} resources      items/s  RSS before load  peak RSS`);
  for (const n of RSS_AT) {
    const scope = `${run}-rss${n}`;
    const sample = await measureInChild(neo.env, scope, n, BATCH, RSS_HEAP_MB);
    await wipeScope(neo.driver, `proxmox:${scope}`);
    samples.push(sample);
    console.log(
      `${''.padEnd(38)} ${String(n).padStart(9)} ${fmt(sample.items / sample.seconds, 0).padStart(12)} ${`${sample.baseMb} MB`.padStart(16)} ${`${sample.peakMb} MB`.padStart(9)}`,
    );
  }
  const at = (n: number) => samples.find((s) => s.resources === n)!;
  const [small, large] = [samples[0]!, samples[samples.length - 1]!];
  const growth = (large.peakMb / small.peakMb - 1) * 100;
  console.log(
    `peak RSS at ${RESOURCES} resources: ${at(RESOURCES).peakMb} MB (target ≤ 300 MB at 50,000); ${large.resources} vs ${small.resources}: ${growth >= 0 ? '+' : ''}${fmt(growth, 1)} % (target within 10 %); load average ${load()}`,
  );
  const perSize = samples.map((s) => `peak_rss_mb_${s.resources}=${s.peakMb}`).join(' ');
  console.log(
    `RESULT ingest batched_per_s=${Math.round(aitiaRate)} reference_per_s=${Math.round(referenceRate)} per_row_per_s=${Math.round(perRowRate)} ratio=${fmt(ratio, 1)} ratio_vs_reference=${fmt(ratioRef, 2)} per_row_ratio=${fmt(ratio, 1)} peak_rss_mb=${at(RESOURCES).peakMb} resources=${RESOURCES} ${perSize} rss_growth_pct=${fmt(growth, 1)} rss_heap_cap_mb=${RSS_HEAP_MB ?? 'none'} neo4j_cpu_s_per_load=${perLoad(cpu.aitia.neo)} reference_neo4j_cpu_s_per_load=${perLoad(cpu.reference.neo)} node_cpu_s_per_load=${perLoad(cpu.aitia.node)} reference_node_cpu_s_per_load=${perLoad(cpu.reference.node)} bench_process_rss_mb=${benchRss} load_avg=${fmt(loadavg()[0]!, 1)}`,
  );
} catch (err) {
  const cause = (err as { cause?: { message?: string; code?: string } }).cause;
  console.error(
    `bench:ingest failed: ${(err as Error).message}${cause ? ` (${cause.code ?? ''} ${cause.message ?? ''})` : ''}`,
  );
  exitCode = 1;
} finally {
  try {
    await wipeScope(neo.driver, `proxmox:${run}`);
    await wipeReference(neo.driver);
  } catch (err) {
    console.error(`cleanup failed: ${(err as Error).message}`);
  }
  await neo.stop();
}
process.exit(exitCode);
