/**
 * bench:pipeline — Neo4j round trips (Cypher statements) of one observation pass through the one
 * pipeline (task ingest → inventory load → correlation read → pure ladder and gate → one write),
 * for a pass where 1 guest changed state and for a pass where 500 did, on the same synthetic
 * 2-node cluster of 1,000 VMs served by the Proxmox stand-in. The correlation step is counted on its
 * own too. The two counts should be equal (or nearly): the read side of the correlator is one
 * statement and the write one transaction, whatever the number of changes.
 *
 * Options (environment): NEO4J_URI to use an existing Neo4j instead of a throwaway embedded one.
 */
import { countingDriver } from '../src/graph/db/driver.js';
import { createProxmoxClient } from '../src/ingest/proxmox/client.js';
import { startProxmoxStandin } from '../src/demo/proxmox-standin.js';
import { correlateChanges, type ObservedChange } from '../src/pipeline/correlate.js';
import { observe } from '../src/pipeline/observe.js';
import { proxmoxSource } from '../src/ingest/proxmox/source.js';
import { benchNeo4j, fmt, percentile } from './support.js';
import { closeSyntheticBench, nowSeconds, syntheticCluster } from './synthetic-cluster.js';

const GUESTS_PER_NODE = 500;
const ROUNDS = 5;
const neo = await benchNeo4j();
const cluster = syntheticCluster(`bench-pipeline-${Date.now()}`, 2, GUESTS_PER_NODE);
const standin = await startProxmoxStandin({ routes: cluster.routes });
const client = createProxmoxClient({ baseUrl: standin.url, token: standin.token, timeoutMs: 30_000 });
const counted = countingDriver(neo.driver);
const deps = { driver: counted.driver, suppression: 'shadow' as const };
const source = proxmoxSource(client, { inventory: { agentPing: false, concurrency: 8 } });

/** Stops `n` guests with an operator's qmstop each, then observes one pass; counts its statements. */
async function passWithChanges(n: number, offset: number) {
  const now = nowSeconds();
  for (const g of cluster.guests.slice(offset, offset + n)) {
    cluster.addTask({
      node: g.node,
      type: 'qmstop',
      id: String(g.vmid),
      user: 'alice@pve',
      start: now - 3,
      end: now - 2,
    });
    cluster.setStatus(g.vmid, 'stopped');
  }
  counted.reset();
  const started = performance.now();
  const o = await observe(deps, source);
  const ms = performance.now() - started;
  if (o.correlation.created.length !== n || o.correlation.errors.length > 0)
    throw new Error(
      `expected ${n} transitions, got ${o.correlation.created.length} (${JSON.stringify(o.correlation.errors[0])})`,
    );
  const high = o.correlation.created.filter((t) => t.attribution.confidence === 'high').length;
  return { roundtrips: counted.count(), ms, high };
}

/** The correlation step alone for `n` changes that are not stored yet (fresh observation times). */
async function correlationOnly(changes: ObservedChange[], observedAt: string) {
  counted.reset();
  const started = performance.now();
  const r = await correlateChanges(deps, changes, { observedAt, observer: 'bench' });
  return { roundtrips: counted.count(), ms: performance.now() - started, created: r.created.length };
}

try {
  console.log(
    `\naitia bench:pipeline — one observation pass over ${cluster.guests.length} VMs on 2 nodes (Neo4j: ${neo.via})\n`,
  );
  const baseline = await observe(deps, source);
  if (!baseline.report.complete)
    throw new Error(`baseline pass incomplete: ${JSON.stringify(baseline.report.errors[0])}`);
  const one = await passWithChanges(1, 0);
  const many = await passWithChanges(500, 1);
  const scope = baseline.report.scope;
  const back = (from: number, n: number): ObservedChange[] =>
    cluster.guests
      .slice(from, from + n)
      .map((g) => ({ id: `${scope}/qemu/${g.vmid}`, kind: 'vm', from: 'stopped', to: 'running' }));
  // The correlation step alone, in alternating rounds (1 change, 500 changes) at fresh observation
  // times so nothing is stored yet; the median wall time of each, round trips of the last.
  const c1s: Array<Awaited<ReturnType<typeof correlationOnly>>> = [];
  const c500s: typeof c1s = [];
  for (let round = 1; round <= ROUNDS; round++) {
    c1s.push(await correlationOnly(back(0, 1), new Date(Date.now() + round * 60_000).toISOString()));
    c500s.push(await correlationOnly(back(1, 500), new Date(Date.now() + round * 60_000 + 1).toISOString()));
  }
  const median = (xs: typeof c1s) => ({
    ...xs.at(-1)!,
    ms: percentile(
      xs.map((x) => x.ms),
      50,
    ),
  });
  const [c1, c500] = [median(c1s), median(c500s)];

  console.log('pass                               changes  round trips   wall ms   high');
  console.log(
    `whole pass (tasks, inventory, …)         1  ${String(one.roundtrips).padStart(11)}  ${fmt(one.ms, 0).padStart(8)}  ${String(one.high).padStart(5)}`,
  );
  console.log(
    `whole pass (tasks, inventory, …)       500  ${String(many.roundtrips).padStart(11)}  ${fmt(many.ms, 0).padStart(8)}  ${String(many.high).padStart(5)}`,
  );
  console.log(
    `correlation step (median of 5)          1  ${String(c1.roundtrips).padStart(11)}  ${fmt(c1.ms, 0).padStart(8)}`,
  );
  console.log(
    `correlation step (median of 5)        500  ${String(c500.roundtrips).padStart(11)}  ${fmt(c500.ms, 0).padStart(8)}`,
  );
  console.log(
    `\nround trips grow by ${many.roundtrips - one.roundtrips} from 1 to 500 changes (the per-change path made ~6–9 per change: ~${6 * 500}–${9 * 500})`,
  );
  console.log(
    `RESULT pipeline roundtrips_1=${one.roundtrips} roundtrips_500=${many.roundtrips} correlate_roundtrips_1=${c1.roundtrips} correlate_roundtrips_500=${c500.roundtrips} pass_ms_1=${fmt(one.ms, 0)} pass_ms_500=${fmt(many.ms, 0)}`,
  );
} finally {
  await closeSyntheticBench({ client, standin, cluster, neo });
}
