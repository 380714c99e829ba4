/**
 * bench:load — N concurrent simulated agents (default 50) against the real HTTP server for a bounded
 * time, speaking GraphQL over loopback like agents do. The read mix: resource by slug, dependents
 * to depth 3, transitions of a resource. The mixed phase adds what writes: classifyAction (a
 * recorded decision and an audit line per question) and an idempotent createRelationship (audited).
 * Five phases in one run: reads, reads again (memory must stay flat across the two), the reads on
 * a second server whose reads go without the shared statement of coalesced reads (what sharing one
 * statement across texts saves; src/graph/db/coalesced-read.ts), the reads on a third that runs
 * every operation on graphql-js (what compiled operations save), then the mix — compared side by
 * side: throughput, p50/p99 per operation, errors, Neo4j statements and CPU per request (aitia,
 * the agents, Neo4j), and the service's RSS before and after each phase and its live heap after it
 * (a full GC first). The agents run in a process of their own (bench/load-agents.ts), so their HTTP
 * client work does not share the service's event loop, and speak HTTP/1.1 keep-alive through
 * node:http (fetch costs the shared cores ~2× as much per request).
 *
 * `--phase mixed` runs only the mix (after the same warm-up), 30 s by default, and prints per
 * operation its statements per request alone, its writes' rows per commit and driver retries
 * (src/graph/db/group-commit.ts), and lock waits as Neo4j reports them (SHOW TRANSACTIONS sampled,
 * bench/load-contention.ts), with the load average beside the latencies.
 *
 *   AITIA_BENCH_AGENTS (50)  AITIA_BENCH_SECONDS (15 per read phase; 30 for the mix)  AITIA_BENCH_VMS (2000)
 *   AITIA_BENCH_READS (all: resource,dependents,transitions)
 *   AITIA_BENCH_WARMUP_SECONDS (300): at most this long of the mix, unmeasured, until the JVMs settle
 *   (0: measure cold)
 *   AITIA_BENCH_IN_FLIGHT (8), AITIA_BENCH_BATCH (100): group commit's transactions in flight and rows per one
 *   AITIA_BENCH_PROFILE=<file.cpuprofile>: the service's CPU profile of the second read phase (of the
 *   mix with --phase mixed)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import inspector from 'node:inspector/promises';
import { type ChildProcess, fork } from 'node:child_process';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setSharedStatement } from '../src/graph/db/coalesced-read.js';
import { countingDriver } from '../src/graph/db/driver.js';
import { upsertEdges } from '../src/graph/edges.js';
import { upsertResources } from '../src/graph/resources/upsert.js';
import { createLogger } from '../src/log.js';
import { createFeedBus } from '../src/pipeline/bus.js';
import { loadStartupPolicy } from '../src/policy/index.js';
import { createHttpServer, listen } from '../src/server/http.js';
import { addToken, TokenStore } from '../src/services/token-store.js';
import { type GroupCommitStats, groupCommitStats, setGroupCommitBounds } from '../src/graph/db/group-commit.js';
import { groupCommitsSince, type LockFigures, sampleLocks } from './load-contention.js';
import { type AgentsSetup, operations, type PhaseReport, type PhaseRequest } from './load-agents.js';
import { profileWrites } from './load-profile.js';
import { benchNeo4j, fmt, percentile } from './support.js';
import { classifyAction } from '../src/services/gate.js';
import { createRelationship } from '../src/services/relationships.js';

const phaseArg = process.argv.findIndex((a) => a === '--phase' || a.startsWith('--phase='));
const PHASE =
  phaseArg === -1 ? 'all' : (process.argv[phaseArg]!.split('=')[1] ?? process.argv[phaseArg + 1] ?? '').trim();
/** The phases one may run alone: the mix, each write alone under load, or the writes' statements profiled. */
const SINGLE: Record<string, string> = { classify: 'classifyAction', relate: 'createRelationship' };
if (!['all', 'mixed', 'profile', ...Object.keys(SINGLE)].includes(PHASE))
  throw new Error(`--phase: must be mixed, classify, relate or profile (or omitted for every phase), not "${PHASE}"`);
const AGENTS = Number(process.env.AITIA_BENCH_AGENTS ?? 50);
const SECONDS = Number(process.env.AITIA_BENCH_SECONDS ?? (PHASE === 'all' ? 15 : 30));
// The mix long enough for its p99 (issue 35): 30 s unless AITIA_BENCH_SECONDS says otherwise.
const MIXED_SECONDS = Number(process.env.AITIA_BENCH_SECONDS ?? 30);
const VMS = Number(process.env.AITIA_BENCH_VMS ?? 2000);
const WARMUP_S = Number(process.env.AITIA_BENCH_WARMUP_SECONDS ?? 300);
/** One unmeasured slice of the warm-up, and how close two slices' CPU per request must be to call it settled. */
const WARMUP_SLICE_S = 15;
const SETTLED = 0.1;
/** Never settled sooner: the first slices can be flat while the JIT has barely begun (1.57 → 1.52 ms, then 0.5). */
const WARMUP_MIN_S = 60;
// AITIA_BENCH_IN_FLIGHT / AITIA_BENCH_BATCH: group commit's bounds for this run (src/graph/db/group-commit.ts).
const IN_FLIGHT = process.env.AITIA_BENCH_IN_FLIGHT ? Number(process.env.AITIA_BENCH_IN_FLIGHT) : undefined;
const BATCH = process.env.AITIA_BENCH_BATCH ? Number(process.env.AITIA_BENCH_BATCH) : undefined;
setGroupCommitBounds({
  ...(IN_FLIGHT === undefined ? {} : { maxInFlight: IN_FLIGHT }),
  ...(BATCH === undefined ? {} : { maxBatch: BATCH }),
});
const HOSTS = 20;
const SERVICES = Math.floor(VMS / 4);

const neo = await benchNeo4j();
const scope = `bench-load-${Date.now()}`;
const tmp = mkdtempSync(join(tmpdir(), 'aitia-bench-load-'));
const rssMb = () => process.memoryUsage().rss / 2 ** 20;
/** The heap still reachable: after a full collection when run with --expose-gc (npm run bench:load). */
const liveHeapMb = () => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
};
let child: ChildProcess | undefined;

/** The group-commit label of each operation that writes (src/graph/decisions.ts, edges.ts). */
const WRITE_LABELS: Record<string, string> = { classifyAction: 'decision', createRelationship: 'relationship' };

/** Runs `work` under the V8 profiler when AITIA_BENCH_PROFILE names a file to write the profile to. */
async function profiled<T>(work: () => Promise<T>): Promise<T> {
  const file = process.env.AITIA_BENCH_PROFILE;
  if (!file) return work();
  const session = new inspector.Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  const result = await work();
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(file, JSON.stringify(profile));
  session.disconnect();
  return result;
}

try {
  const hosts = Array.from({ length: HOSTS }, (_, i) => ({
    id: `proxmox:${scope}/node/n${i}`,
    kind: 'host',
    provider: 'proxmox',
    name: `n${i}-${scope}`,
    state: 'online',
  }));
  const vms = Array.from({ length: VMS }, (_, i) => ({
    id: `proxmox:${scope}/qemu/${100 + i}`,
    kind: 'vm',
    provider: 'proxmox',
    name: `vm${i}-${scope}`,
    state: 'running',
  }));
  const services = Array.from({ length: SERVICES }, (_, i) => ({
    id: `manual:service/svc${i}-${scope}`,
    kind: 'service',
    provider: 'manual',
    name: `svc${i}-${scope}`,
    state: 'up',
  }));
  await upsertResources(neo.driver, [...hosts, ...vms, ...services]);
  await upsertEdges(neo.driver, [
    ...vms.map((v, i) => ({
      type: 'RUNS_ON' as const,
      fromId: v.id,
      toId: hosts[i % HOSTS]!.id,
      provenance: 'observed' as const,
      source: 'bench',
    })),
    ...services.map((s, i) => ({
      type: 'DEPENDS_ON' as const,
      fromId: s.id,
      toId: vms[(i * 4) % VMS]!.id,
      provenance: 'declared' as const,
      source: 'bench',
    })),
  ]);

  const tokensFile = join(tmp, 'tokens.json');
  const token = addToken(tokensFile, `bench-agent-${scope}`, 'agent');
  const counting = countingDriver(neo.driver);
  const deps = {
    driver: counting.driver,
    log: createLogger('silent'),
    version: 'bench',
    policy: await loadStartupPolicy(undefined),
    bus: createFeedBus(),
  };
  const server = createHttpServer(deps, new TokenStore(tokensFile));
  const { url } = await listen(server, '127.0.0.1', 0);
  // The same service with every operation on graphql-js's executor, for the comparison phase.
  const interpreted = createHttpServer(deps, new TokenStore(tokensFile), { compileAfter: Infinity });
  const { url: interpretedUrl } = await listen(interpreted, '127.0.0.1', 0);
  // The same service over the same pool, its reads without the shared statement (a driver of its own).
  const countingUnshared = countingDriver(neo.driver);
  setSharedStatement(countingUnshared.driver, false);
  const unshared = createHttpServer({ ...deps, driver: countingUnshared.driver }, new TokenStore(tokensFile));
  const { url: unsharedUrl } = await listen(unshared, '127.0.0.1', 0);

  // The agents run in their own process (bench/load-agents.ts), as real agents would.
  // A plain Node: not this process's flags (the service's heap tuning, a profiler).
  child = fork(fileURLToPath(new URL('./load-agents.js', import.meta.url)), [], { stdio: 'inherit', execArgv: [] });
  const setup: AgentsSetup = { url, token, scope, vms: VMS, hosts: HOSTS, services: SERVICES };
  child.send({ setup });
  const ask = (req: PhaseRequest) =>
    new Promise<PhaseReport>((resolve, reject) => {
      const agents = child!;
      const onExit = (code: number | null) => reject(new Error(`the agents' process exited (${code})`));
      agents.once('exit', onExit);
      agents.once('message', (m: { report: PhaseReport }) => {
        agents.off('exit', onExit);
        resolve(m.report);
      });
      agents.send({ phase: req });
    });

  const names = operations(setup).map((o) => o.name);
  const READ_NAMES = ['resource', 'dependents', 'transitions'];
  // AITIA_BENCH_READS picks some of the read operations (e.g. `resource`) to cost one alone.
  const only = process.env.AITIA_BENCH_READS?.split(',');
  const READS = only ? READ_NAMES.filter((n) => only.includes(n)) : READ_NAMES;

  interface Phase {
    label: string;
    requests: number;
    errors: number;
    rps: number;
    p50: number;
    p99: number;
    perOp: Map<string, number[]>;
    rssBefore: number;
    rssAfter: number;
    /** The live heap after the phase (after a full GC when exposed), MB. */
    heapAfter: number;
    /** The service process's CPU per request, ms. */
    cpuMsPerRequest: number;
    /** The agents' process's CPU per request, ms. */
    agentsCpuMsPerRequest: number;
    /** The Neo4j process's CPU per request, ms (null when Neo4j is not local). */
    neoCpuMsPerRequest: number | null;
    /** Neo4j statements per request (concurrent reads share statements). */
    statementsPerRequest: number;
    firstError: string | null;
  }

  /** AGENTS loops, each issuing one request after another until the phase's time is up. */
  async function phase(
    label: string,
    ops: string[],
    at?: string,
    counter = counting,
    seconds = SECONDS,
  ): Promise<Phase> {
    const rssBefore = rssMb();
    const cpuBefore = process.cpuUsage();
    const neoCpuBefore = neo.cpuMs();
    counter.reset();
    const report = await ask({ ops, agents: AGENTS, seconds, ...(at ? { url: at } : {}) });
    const statementCount = counter.count();
    const cpu = process.cpuUsage(cpuBefore);
    const neoCpuAfter = neo.cpuMs();
    const perOp = new Map(Object.entries(report.perOp));
    const all = [...perOp.values()].flat();
    const n = Math.max(1, all.length);
    return {
      label,
      requests: all.length,
      errors: report.errors,
      rps: all.length / report.elapsedS,
      p50: percentile(all, 50),
      p99: percentile(all, 99),
      perOp,
      rssBefore,
      rssAfter: rssMb(),
      heapAfter: liveHeapMb(),
      cpuMsPerRequest: (cpu.user + cpu.system) / 1000 / n,
      agentsCpuMsPerRequest: report.cpuMs / n,
      neoCpuMsPerRequest: neoCpuBefore === null || neoCpuAfter === null ? null : (neoCpuAfter - neoCpuBefore) / n,
      statementsPerRequest: statementCount / n,
      firstError: report.firstError,
    };
  }

  /** The mixed phase's figures for a RESULT line: per write operation its latency, statements, commits, retries and lock waits. */
  function mixedFigures(p: Phase, commits: Map<string, GroupCommitStats>, locks: LockFigures, load: number[]): string {
    const figures: string[] = [
      `mixed_p50_ms=${fmt(p.p50, 1)}`,
      `mixed_errors=${p.errors}`,
      `mixed_statements_per_req=${fmt(p.statementsPerRequest)}`,
      `mixed_seconds=${MIXED_SECONDS}`,
      `warmup_s=${warmup.seconds}`,
      `warmup_settled=${warmup.settled}`,
      `cold_mixed_rps=${warmup.coldRps === null ? 'na' : fmt(warmup.coldRps, 0)}`,
    ];
    for (const [name, short] of [
      ['classifyAction', 'classify'],
      ['createRelationship', 'relate'],
    ] as const) {
      const samples = p.perOp.get(name) ?? [];
      const c = commits.get(WRITE_LABELS[name]!) ?? { transactions: 0, rows: 0, retries: 0, fallbacks: 0, commitMs: 0 };
      figures.push(
        `${short}_p50_ms=${samples.length ? fmt(percentile(samples, 50), 1) : 'na'}`,
        `${short}_p99_ms=${samples.length ? fmt(percentile(samples, 99), 1) : 'na'}`,
        `${short}_statements_alone=${fmt(statements.get(name) ?? 0, 1)}`,
        `${short}_rows_per_commit=${fmt(c.rows / Math.max(1, c.transactions), 1)}`,
        `${short}_commit_ms=${fmt(c.commitMs / Math.max(1, c.transactions), 1)}`,
        `${short}_retries=${c.retries}`,
        `${short}_lock_wait_ms=${fmt(locks.waitMs.get(name) ?? 0, 0)}`,
        `${short}_blocked_samples=${locks.blocked.get(name) ?? 0}`,
      );
    }
    figures.push(cpuFigures('mixed_', p), `load_avg_1m=${fmt(load[0]!, 1)}/${fmt(load[1]!, 1)}`);
    return figures.join(' ');
  }

  const MIXED = [...READS, 'classifyAction', 'createRelationship'];
  // Warm-up: plans cached, connections pooled; one agent, so each operation's Neo4j statements
  // are counted exactly (round trips per request). Then all agents once, for the plans of the
  // statements concurrent requests share (src/graph/db/coalesced-read.ts). Not measured.
  const statements = new Map<string, number>();
  for (const op of names) {
    counting.reset();
    const r = await ask({ ops: [op], agents: 1, count: 40 });
    if (r.errors > 0) throw new Error(`warm-up: ${r.firstError}`);
    statements.set(op, counting.count() / 40);
  }
  await ask({ ops: MIXED, agents: AGENTS, count: AGENTS * 40 });
  const warmup = await warmUp();
  if (PHASE === 'all') {
    await ask({ ops: READS, agents: AGENTS, count: AGENTS * 20, url: interpretedUrl });
    await ask({ ops: READS, agents: AGENTS, count: AGENTS * 20, url: unsharedUrl });
  }

  /**
   * The JVMs settle before anything is timed. A fresh Neo4j compiles its hot paths for minutes: in
   * the first minute of the mix its C2 compiler took about half its thread CPU (JFR: 45 % at 1 min,
   * 29 % at 2, 5 % after 2.5) and its CPU per request fell from 1.24 to 0.38 ms once done; a
   * service runs for days, so the mix is measured warm. Unmeasured slices of the mix until a slice's
   * CPU per request (Neo4j's, or the service's when Neo4j is not local) is within SETTLED of the
   * slice before and of the lowest yet, after WARMUP_MIN_S and at most WARMUP_S; each slice is
   * printed, the first one is the cold figure.
   */
  async function warmUp(): Promise<{ seconds: number; coldRps: number | null; settled: boolean }> {
    let previous: number | null = null;
    let lowest = Infinity;
    let coldRps: number | null = null;
    let seconds = 0;
    while (seconds + WARMUP_SLICE_S <= WARMUP_S) {
      const cpu0 = process.cpuUsage();
      const neo0 = neo.cpuMs();
      const r = await ask({ ops: MIXED, agents: AGENTS, seconds: WARMUP_SLICE_S });
      if (r.errors > 0) throw new Error(`warm-up: ${r.firstError}`);
      seconds += WARMUP_SLICE_S;
      const n = Math.max(
        1,
        Object.values(r.perOp).reduce((k, xs) => k + xs.length, 0),
      );
      const own = process.cpuUsage(cpu0);
      const neo1 = neo.cpuMs();
      const neoMs = neo0 === null || neo1 === null ? null : (neo1 - neo0) / n;
      const perRequest = neoMs ?? (own.user + own.system) / 1000 / n;
      coldRps ??= n / r.elapsedS;
      console.log(
        `warm-up ${String(seconds).padStart(3)} s: ${fmt(n / r.elapsedS, 0)} req/s, CPU per request ${fmt((own.user + own.system) / 1000 / n)} ms aitia + ${neoMs === null ? 'n/a' : fmt(neoMs)} ms Neo4j`,
      );
      const flat = previous !== null && Math.abs(perRequest - previous) <= SETTLED * previous;
      lowest = Math.min(lowest, perRequest);
      if (seconds >= WARMUP_MIN_S && flat && perRequest <= lowest * (1 + SETTLED)) {
        return { seconds, coldRps, settled: true };
      }
      previous = perRequest;
    }
    return { seconds, coldRps, settled: WARMUP_S === 0 };
  }

  /** The mix, with what its writes contended for: rows per commit, retries, lock waits. */
  async function mixedPhase() {
    const commitsBefore = groupCommitStats(counting.driver);
    const locks = sampleLocks(neo.driver);
    const load1 = loadavg()[0]!;
    // A mark for whoever profiles Neo4j from outside (JFR): the measured mix starts now.
    console.log(`mixed phase: ${AGENTS} agents × ${MIXED_SECONDS} s from ${new Date().toISOString()}`);
    // Profiled alone (--phase mixed): in a full run AITIA_BENCH_PROFILE is the second read phase's.
    const p = await (PHASE === 'mixed' ? profiled : <T>(work: () => Promise<T>) => work())(() =>
      phase('reads + writes', MIXED, undefined, counting, MIXED_SECONDS),
    );
    const lockFigures = await locks.stop();
    return {
      p,
      commits: groupCommitsSince(counting.driver, commitsBefore),
      locks: lockFigures,
      load: [load1, loadavg()[0]!],
    };
  }

  if (PHASE === 'profile') {
    await profilePhase();
  } else if (PHASE in SINGLE) {
    await singlePhase(SINGLE[PHASE]!);
  } else if (PHASE === 'mixed') {
    const { p: mixed, commits, locks, load } = await mixedPhase();
    child.send({ exit: true });
    child = undefined;
    for (const s of [server, interpreted, unshared]) {
      s.closeAllConnections();
      s.close();
    }
    printMixed(mixed, commits, locks, load);
    if (mixed.errors > 0) console.log(`\nfirst error: ${mixed.firstError}`);
    console.log(
      `RESULT load_mixed mixed_rps=${fmt(mixed.rps, 0)} mixed_p99_ms=${fmt(mixed.p99, 1)} ${mixedFigures(mixed, commits, locks, load)}`,
    );
  } else {
    const reads1 = await phase('reads', READS);
    const reads2 = await profiled(() => phase('reads again', READS));
    // The read mix once more, each text's callers as their own statement: what the shared one saves.
    const readsUnshared = await phase('reads, unshared', READS, unsharedUrl, countingUnshared);
    // The read mix once more, on graphql-js's executor alone (src/server/executor.ts compiles an
    // operation from its second run): what the compiled code saves, in this run.
    const readsJs = await phase('reads, graphql-js', READS, interpretedUrl);
    const { p: mixed, commits, locks, load } = await mixedPhase();
    child.send({ exit: true });
    child = undefined;
    for (const s of [server, interpreted, unshared]) {
      s.closeAllConnections();
      s.close();
    }

    console.log(
      `\naitia bench:load — ${AGENTS} agents × ${SECONDS} s per phase, ${VMS} VMs / ${SERVICES} services / ${HOSTS} hosts (Neo4j: ${neo.via})\n`,
    );
    console.log(
      'phase              requests   req/s   p50 ms   p99 ms  errors  CPU ms/req (aitia / agents / Neo4j)   aitia RSS MB before → after   live heap MB',
    );
    for (const p of [reads1, reads2, readsUnshared, readsJs, mixed]) {
      console.log(
        `${p.label.padEnd(18)} ${String(p.requests).padStart(8)} ${fmt(p.rps, 0).padStart(7)} ${fmt(p.p50).padStart(8)} ${fmt(p.p99).padStart(8)} ${String(p.errors).padStart(7)} ${fmt(p.cpuMsPerRequest).padStart(10)} / ${fmt(p.agentsCpuMsPerRequest)} / ${(p.neoCpuMsPerRequest === null ? 'n/a' : fmt(p.neoCpuMsPerRequest)).padEnd(14)}  ${fmt(p.rssBefore, 0).padStart(6)} → ${fmt(p.rssAfter, 0).padEnd(12)} ${fmt(p.heapAfter, 0).padStart(7)}`,
      );
    }
    for (const p of [reads2, mixed]) {
      console.log(
        `\nper operation (${p.label}; ${fmt(p.statementsPerRequest)} statements/request under load)`.padEnd(40) +
          '\n' +
          ''.padEnd(38) +
          ' count   p50 ms   p99 ms  statements/req alone',
      );
      for (const [name, samples] of p.perOp) {
        console.log(
          `${name.padEnd(38)} ${String(samples.length).padStart(6)} ${fmt(percentile(samples, 50)).padStart(8)} ${fmt(percentile(samples, 99)).padStart(8)} ${fmt(statements.get(name)!, 1).padStart(21)}`,
        );
      }
    }
    printMixed(mixed, commits, locks, load);
    // CPU per request against the agents' own: the host's speed drifts between phases, their work does not.
    const relativeCpu = (p: Phase) => p.cpuMsPerRequest / p.agentsCpuMsPerRequest;
    const saved = 1 - relativeCpu(reads2) / relativeCpu(readsJs);
    console.log(
      `\ncompiled operations vs graphql-js alone (reads again vs reads, graphql-js): aitia CPU per request ${fmt(reads2.cpuMsPerRequest)} vs ${fmt(readsJs.cpuMsPerRequest)} ms, ${fmt(100 * saved, 0)} % less relative to the agents' CPU per request; ${fmt(reads2.rps, 0)} vs ${fmt(readsJs.rps, 0)} req/s, p99 ${fmt(reads2.p99, 1)} vs ${fmt(readsJs.p99, 1)} ms`,
    );
    const neoMs = (p: Phase) => (p.neoCpuMsPerRequest === null ? 'na' : fmt(p.neoCpuMsPerRequest));
    console.log(
      `shared statement on vs off (reads again vs reads, unshared): ${fmt(reads2.rps, 0)} vs ${fmt(readsUnshared.rps, 0)} req/s, p99 ${fmt(reads2.p99, 1)} vs ${fmt(readsUnshared.p99, 1)} ms, ${fmt(reads2.statementsPerRequest)} vs ${fmt(readsUnshared.statementsPerRequest)} statements and ${neoMs(reads2)} vs ${neoMs(readsUnshared)} Neo4j CPU ms per request`,
    );
    const all = [reads1, reads2, readsUnshared, readsJs, mixed];
    const errors = all.reduce((n, p) => n + p.errors, 0);
    const firstError = all.find((p) => p.firstError !== null)?.firstError ?? null;
    if (errors > 0) console.log(`\nfirst error: ${firstError}`);
    console.log(
      `RESULT load rps=${fmt(reads2.rps, 0)} p99_ms=${fmt(reads2.p99, 1)} read_rps=${fmt(reads2.rps, 0)} read_p99_ms=${fmt(reads2.p99, 1)} read_p50_ms=${fmt(reads2.p50, 1)} read_statements_per_req=${fmt(reads2.statementsPerRequest)} errors=${errors} agents=${AGENTS} read_cpu_ms_per_req=${fmt(reads2.cpuMsPerRequest)} read_agents_cpu_ms_per_req=${fmt(reads2.agentsCpuMsPerRequest)} read_neo4j_cpu_ms_per_req=${reads2.neoCpuMsPerRequest === null ? 'na' : fmt(reads2.neoCpuMsPerRequest)} mixed_rps=${fmt(mixed.rps, 0)} mixed_p99_ms=${fmt(mixed.p99, 1)} rss_mb_reads1_end=${fmt(reads1.rssAfter, 0)} rss_mb_reads2_end=${fmt(reads2.rssAfter, 0)} rss_mb_growth_reads2=${fmt(reads2.rssAfter - reads1.rssAfter, 0)} heap_mb_reads1_end=${fmt(reads1.heapAfter, 0)} heap_mb_reads2_end=${fmt(reads2.heapAfter, 0)} graphql_js_read_rps=${fmt(readsJs.rps, 0)} graphql_js_read_p99_ms=${fmt(readsJs.p99, 1)} graphql_js_read_cpu_ms_per_req=${fmt(readsJs.cpuMsPerRequest)} compiled_cpu_saved_pct=${fmt(100 * saved, 0)} shared_on_rps=${fmt(reads2.rps, 0)} shared_off_rps=${fmt(readsUnshared.rps, 0)} shared_on_p99_ms=${fmt(reads2.p99, 1)} shared_off_p99_ms=${fmt(readsUnshared.p99, 1)} shared_on_statements_per_req=${fmt(reads2.statementsPerRequest)} shared_off_statements_per_req=${fmt(readsUnshared.statementsPerRequest)} shared_on_neo4j_cpu_ms_per_req=${neoMs(reads2)} shared_off_neo4j_cpu_ms_per_req=${neoMs(readsUnshared)} ${mixedFigures(mixed, commits, locks, load)}`,
    );
  }

  /** The servers and the agents' process, done with. */
  function closeAll(): void {
    child?.send({ exit: true });
    child = undefined;
    for (const s of [server, interpreted, unshared]) {
      s.closeAllConnections();
      s.close();
    }
  }

  /** One write alone under load (all agents asking it): its latency, commits and CPU per request. */
  async function singlePhase(op: string): Promise<void> {
    const commitsBefore = groupCommitStats(counting.driver);
    const locks = sampleLocks(neo.driver);
    const load1 = loadavg()[0]!;
    const p = await phase(op, [op]);
    const lockFigures = await locks.stop();
    const load = [load1, loadavg()[0]!];
    closeAll();
    printMixed(p, groupCommitsSince(counting.driver, commitsBefore), lockFigures, load);
    if (p.errors > 0) console.log(`\nfirst error: ${p.firstError}`);
    console.log(
      `RESULT load_${PHASE} rps=${fmt(p.rps, 0)} p50_ms=${fmt(p.p50, 1)} p99_ms=${fmt(p.p99, 1)} errors=${p.errors} ${cpuFigures('', p)} statements_per_req=${fmt(p.statementsPerRequest)} load_avg_1m=${fmt(load[0]!, 1)}/${fmt(load[1]!, 1)}`,
    );
  }

  /** The writes' statements under PROFILE and each write's CPU per call alone (bench/load-profile.ts). */
  async function profilePhase(): Promise<void> {
    closeAll();
    const principal = { name: `bench-agent-${scope}`, role: 'agent' as const, via: 'graphql' as const };
    const ops = operations(setup);
    const vars = (name: string, i: number) => ops.find((o) => o.name === name)!.vars(i);
    const found = await profileWrites(
      counting.driver,
      [
        {
          name: 'classifyAction',
          call: (driver, i) =>
            classifyAction({ ...deps, driver }, principal, {
              target: vars('classifyAction', i).t as string,
              action: 'restart',
            }),
        },
        {
          name: 'createRelationship',
          call: (driver, i) => {
            const v = vars('createRelationship', i);
            return createRelationship({ ...deps, driver }, principal, {
              source: v.s as string,
              target: v.t as string,
              type: 'DEPENDS_ON',
            });
          },
        },
      ],
      () => neo.cpuMs(),
    );
    const figures = found.flatMap((f) => {
      const short = f.name === 'classifyAction' ? 'classify' : 'relate';
      return [
        `${short}_statements=${f.statements}`,
        `${short}_db_hits=${f.dbHits}`,
        `${short}_alone_ms=${fmt(f.cpu.wallMs, 2)}`,
        `${short}_cpu_ms=${fmt(f.cpu.aitia, 2)}`,
        `${short}_neo4j_cpu_ms=${f.cpu.neo4j === null ? 'na' : fmt(f.cpu.neo4j, 2)}`,
      ];
    });
    console.log(`RESULT load_profile ${figures.join(' ')} load_avg_1m=${fmt(loadavg()[0]!, 1)}`);
  }

  /** CPU per request of the service, the agents and Neo4j, as RESULT keys (`prefix` before each). */
  function cpuFigures(prefix: string, p: Phase): string {
    return `${prefix}cpu_ms_per_req=${fmt(p.cpuMsPerRequest)} ${prefix}agents_cpu_ms_per_req=${fmt(p.agentsCpuMsPerRequest)} ${prefix}neo4j_cpu_ms_per_req=${p.neoCpuMsPerRequest === null ? 'na' : fmt(p.neoCpuMsPerRequest)}`;
  }

  /** Per write: rows per commit, the driver's retries, lock waits and blocked samples. */
  function printMixed(p: Phase, commits: Map<string, GroupCommitStats>, locks: LockFigures, load: number[]): void {
    console.log(
      `\n${p.label === 'reads + writes' ? 'mixed phase' : `${p.label} alone`}: ${fmt(p.rps, 0)} req/s, p50 ${fmt(p.p50, 1)} ms, p99 ${fmt(p.p99, 1)} ms, ${p.errors} errors, ${fmt(p.statementsPerRequest)} statements/request under load; load average ${fmt(load[0]!, 1)} → ${fmt(load[1]!, 1)} (the latencies are this machine's, as loaded)`,
    );
    console.log(
      `CPU per request: ${fmt(p.cpuMsPerRequest)} ms aitia + ${p.neoCpuMsPerRequest === null ? 'n/a' : fmt(p.neoCpuMsPerRequest)} ms Neo4j + ${fmt(p.agentsCpuMsPerRequest)} ms agents`,
    );
    console.log(
      'operation            count   p50 ms   p99 ms  statements/req alone  commits  rows/commit  ms/commit  retries  lock wait ms (sampled)  blocked samples',
    );
    for (const [name, samples] of p.perOp) {
      const label = WRITE_LABELS[name];
      const c = label ? commits.get(label) : undefined;
      console.log(
        `${name.padEnd(20)} ${String(samples.length).padStart(6)} ${fmt(percentile(samples, 50)).padStart(8)} ${fmt(percentile(samples, 99)).padStart(8)} ${fmt(statements.get(name)!, 1).padStart(21)} ${(c ? String(c.transactions) : '-').padStart(8)} ${(c ? fmt(c.rows / Math.max(1, c.transactions), 1) : '-').padStart(12)} ${(c ? fmt(c.commitMs / Math.max(1, c.transactions), 1) : '-').padStart(10)} ${(c ? String(c.retries) : '-').padStart(8)} ${(label ? fmt(locks.waitMs.get(name) ?? 0, 0) : '-').padStart(23)} ${(label ? String(locks.blocked.get(name) ?? 0) : '-').padStart(16)}`,
      );
    }
    console.log(
      `other transactions: lock wait ${fmt(locks.waitMs.get('other') ?? 0, 0)} ms, ${locks.blocked.get('other') ?? 0} blocked samples, over ${locks.samples} samples of SHOW TRANSACTIONS`,
    );
  }
} finally {
  child?.kill();
  await neo.driver
    .executeQuery('MATCH (n) WHERE n.id CONTAINS $s OR n.principal CONTAINS $s DETACH DELETE n', { s: scope })
    .catch(() => {});
  await neo.stop();
  rmSync(tmp, { recursive: true, force: true });
}
