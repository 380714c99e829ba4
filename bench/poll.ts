/**
 * bench:poll — Proxmox API requests of one observation pass (task stage + inventory stage) on a
 * stand-in cluster of 3 nodes × 1,000 guests (every 10th a container, every 2nd VM with the guest
 * agent enabled): the first pass (every config read, every agent pinged), a steady-state pass with
 * no change 30 s later (its rolling config refresh and agent cadence counted apart), and a pass after
 * one config-changing task. The steady state must cost per node, not per guest: at most
 * 2 + 3 × nodes requests (`/cluster/status`, `/cluster/resources`, per node its task list and its
 * two guest lists). The per-guest design this replaced is shown by its formula for comparison.
 *
 * Options (environment): NEO4J_URI to use an existing Neo4j instead of a throwaway embedded one.
 */
import { createProxmoxClient } from '../src/ingest/proxmox/client.js';
import type { RequestCounts } from '../src/ingest/proxmox/request-stats.js';
import { startProxmoxStandin } from '../src/demo/proxmox-standin.js';
import { observe } from '../src/pipeline/observe.js';
import { proxmoxSource } from '../src/ingest/proxmox/source.js';
import { benchNeo4j, fmt } from './support.js';
import { closeSyntheticBench, nowSeconds, syntheticCluster } from './synthetic-cluster.js';

const NODES = 3;
const GUESTS_PER_NODE = 1000;
const POLL_SECONDS = 30;
const CONFIG_REFRESH_SECONDS = 3600;
const AGENT_SECONDS = 300;
const MAX_CONCURRENT = 8;

const neo = await benchNeo4j();
const cluster = syntheticCluster(`bench-poll-${Date.now()}`, NODES, GUESTS_PER_NODE, { lxcEvery: 10, agentEvery: 2 });
const standin = await startProxmoxStandin({ routes: cluster.routes });
const client = createProxmoxClient({
  baseUrl: standin.url,
  token: standin.token,
  timeoutMs: 60_000,
  maxConcurrent: MAX_CONCURRENT,
});
// The poller's clock, moved by hand: a pass "30 s later" without waiting 30 s.
let clock = Date.now();
const source = proxmoxSource(client, {
  inventory: {
    now: () => clock,
    configRefreshSeconds: CONFIG_REFRESH_SECONDS,
    agentSeconds: AGENT_SECONDS,
  },
});
const deps = { driver: neo.driver, suppression: 'shadow' as const };

interface PassCost {
  total: number;
  /** Cluster calls, task lists, guest lists, status fallbacks, task re-reads: what every pass costs. */
  core: number;
  configs: { first: number; task: number; placement: number; refresh: number };
  agentPings: number;
  ms: number;
  complete: boolean;
  requests: RequestCounts;
}

async function pass(): Promise<PassCost> {
  const started = performance.now();
  const o = await observe(deps, source);
  const ms = performance.now() - started;
  if (!o.report.complete) throw new Error(`pass incomplete: ${JSON.stringify(o.report.errors.slice(0, 3))}`);
  const r = o.extra.requests;
  const configs = o.extra.reads.configs;
  const configReads = r.byCategory.guest_config;
  const agentPings = r.byCategory.agent_ping;
  return {
    total: r.total,
    core: r.total - configReads - agentPings,
    configs,
    agentPings,
    ms,
    complete: o.report.complete,
    requests: r,
  };
}

try {
  const guests = cluster.guests.length;
  console.log(
    `\naitia bench:poll — Proxmox API requests per pass, ${guests} guests on ${NODES} nodes (Neo4j: ${neo.via}; ` +
      `${MAX_CONCURRENT} requests in flight at most, config refresh ${CONFIG_REFRESH_SECONDS} s, agent every ${AGENT_SECONDS} s)\n`,
  );
  const first = await pass();
  clock += POLL_SECONDS * 1000;
  const steady = await pass();
  // One VM reconfigured through the API (a qmconfig task) before the next poll.
  const target = cluster.guests.find((g) => g.type === 'qemu')!;
  const now = nowSeconds();
  cluster.addTask({
    node: target.node,
    type: 'qmconfig',
    id: String(target.vmid),
    user: 'alice@pve',
    start: now - 2,
    end: now - 1,
  });
  clock += POLL_SECONDS * 1000;
  const afterTask = await pass();

  const runningAgents = cluster.guests.filter((g) => g.agent).length;
  // The per-guest design this replaced: /cluster/status twice, /cluster/resources, a task list per
  // node, status/current and config per guest, a ping per running agent VM — every pass.
  const perGuest = 2 + 1 + NODES + 2 * guests + runningAgents;
  const budget = 2 + 3 * NODES;

  const row = (name: string, p: PassCost | null, total: number, core: string, configs: string, pings: string) =>
    console.log(
      `${name.padEnd(42)} ${String(total).padStart(8)} ${core.padStart(6)} ${configs.padStart(8)} ${pings.padStart(7)} ${(p ? fmt(p.ms, 0) : '—').padStart(8)}`,
    );
  const sumConfigs = (p: PassCost) => p.configs.first + p.configs.task + p.configs.placement + p.configs.refresh;
  console.log(
    `${'pass'.padEnd(42)} ${'requests'.padStart(8)} ${'core'.padStart(6)} ${'configs'.padStart(8)} ${'pings'.padStart(7)} ${'wall ms'.padStart(8)}`,
  );
  row(
    'per-guest design, every pass (formula)',
    null,
    perGuest,
    String(perGuest - guests - runningAgents),
    String(guests),
    String(runningAgents),
  );
  row(
    'first pass (every config, every agent)',
    first,
    first.total,
    String(first.core),
    String(sumConfigs(first)),
    String(first.agentPings),
  );
  row(
    `steady pass, no change (+${POLL_SECONDS} s)`,
    steady,
    steady.total,
    String(steady.core),
    String(sumConfigs(steady)),
    String(steady.agentPings),
  );
  row(
    'pass after one qmconfig task',
    afterTask,
    afterTask.total,
    String(afterTask.core),
    String(sumConfigs(afterTask)),
    String(afterTask.agentPings),
  );
  console.log(
    `\nsteady pass: core ${steady.core} requests (budget 2 + 3 × ${NODES} nodes = ${budget}: ` +
      `${JSON.stringify(Object.fromEntries(Object.entries(steady.requests.byCategory).filter(([, n]) => n > 0)))}); ` +
      `apart from it the rolling refresh read ${steady.configs.refresh} configs (≈ ${guests} × ${POLL_SECONDS} / ${CONFIG_REFRESH_SECONDS} = ` +
      `${fmt((guests * POLL_SECONDS) / CONFIG_REFRESH_SECONDS, 1)}) and the agent cadence sent ${steady.agentPings} pings ` +
      `(≈ ${runningAgents} × ${POLL_SECONDS} / ${AGENT_SECONDS} = ${fmt((runningAgents * POLL_SECONDS) / AGENT_SECONDS, 1)})`,
  );
  console.log(
    `after the qmconfig task: config reads by reason ${JSON.stringify(afterTask.configs)} (the task's guest, plus the refresh due)`,
  );
  if (steady.core > budget) throw new Error(`steady state costs ${steady.core} requests, over the budget of ${budget}`);
  if (afterTask.configs.task !== 1)
    throw new Error(`expected 1 task-triggered config read, got ${afterTask.configs.task}`);
  console.log(
    `RESULT poll guests=${guests} first_requests=${first.total} steady_requests=${steady.core} steady_per_guest=${(steady.core / guests).toFixed(4)}`,
  );
} finally {
  await closeSyntheticBench({ client, standin, cluster, neo });
}
