/**
 * bench:load — N concurrent simulated agents (default 50) against the real HTTP server for a bounded
 * time, speaking GraphQL over loopback like agents do. The read mix: resource by slug, dependents
 * to depth 3, transitions of a resource. The mixed phase adds what writes: classifyAction (a
 * recorded decision and an audit line per question) and an idempotent createRelationship (audited).
 * Three phases in one run: reads, reads again (memory must stay flat across the two), then the
 * mix — compared side by side: throughput, p50/p99 per operation, errors, Neo4j statements and CPU
 * per request, and the process's RSS before and after each phase (client and service share it).
 * The agents speak HTTP/1.1 keep-alive through node:http (fetch costs the shared cores ~2× as much
 * per request as the client side of a real agent would, which runs elsewhere).
 *
 *   AITIA_BENCH_AGENTS (50)  AITIA_BENCH_SECONDS (15 per phase)  AITIA_BENCH_VMS (2000)
 *   AITIA_BENCH_READS (all: resource,dependents,transitions)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countingDriver } from '../src/graph/driver.js';
import { upsertEdges } from '../src/graph/edges.js';
import { upsertResources } from '../src/graph/resources.js';
import { createLogger } from '../src/log.js';
import { createFeedBus } from '../src/pipeline/bus.js';
import { loadStartupPolicy } from '../src/policy/index.js';
import { createHttpServer, listen } from '../src/server/http.js';
import { addToken, TokenStore } from '../src/services/token-store.js';
import { benchNeo4j, fmt, percentile } from './support.js';

const AGENTS = Number(process.env.AITIA_BENCH_AGENTS ?? 50);
const SECONDS = Number(process.env.AITIA_BENCH_SECONDS ?? 15);
const VMS = Number(process.env.AITIA_BENCH_VMS ?? 2000);
const HOSTS = 20;
const SERVICES = Math.floor(VMS / 4);

const neo = await benchNeo4j();
const scope = `bench-load-${Date.now()}`;
const tmp = mkdtempSync(join(tmpdir(), 'aitia-bench-load-'));
const rssMb = () => process.memoryUsage().rss / 2 ** 20;

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
  const server = createHttpServer(
    {
      driver: counting.driver,
      log: createLogger('silent'),
      version: 'bench',
      policy: await loadStartupPolicy(undefined),
      bus: createFeedBus(),
    },
    new TokenStore(tokensFile),
  );
  const { url } = await listen(server, '127.0.0.1', 0);

  type Op = { name: string; query: string; vars: (i: number) => Record<string, unknown> };
  const vmSlug = (i: number) => `vm:vm${(i * 7919) % VMS}-${scope}`;
  const READS: Op[] = [
    {
      name: 'resource',
      query: 'query($s: String) { resource(slug: $s) { id name health ... on Vm { state } } }',
      vars: (i) => ({ s: vmSlug(i) }),
    },
    {
      name: 'dependents',
      query: 'query($id: ID!) { dependents(id: $id, maxDepth: 3) { count reached { depth resource { id } } } }',
      vars: (i) => ({ id: hosts[i % HOSTS]!.id }),
    },
    {
      name: 'transitions',
      query:
        'query($r: String) { transitions(resourceId: $r, first: 10) { edges { node { id from to attribution { confidence actor } } } } }',
      vars: (i) => ({ r: vmSlug(i) }),
    },
  ];
  // AITIA_BENCH_READS picks some of the read operations (e.g. `resource`) to cost one alone.
  const only = process.env.AITIA_BENCH_READS?.split(',');
  if (only) READS.splice(0, READS.length, ...READS.filter((o) => only.includes(o.name)));
  const CLASSIFY: Op = {
    name: 'classifyAction',
    query:
      'query($t: ID!) { classifyAction(input: {target: $t, action: "restart"}) { riskClass autonomy approval reasons } }',
    vars: (i) => ({ t: vms[(i * 31) % VMS]!.id }),
  };
  const WRITE: Op = {
    name: 'createRelationship',
    query:
      'mutation($s: ID!, $t: ID!) { createRelationship(input: {source: $s, target: $t, type: DEPENDS_ON}) { created } }',
    vars: (i) => ({ s: services[i % SERVICES]!.id, t: vms[(i * 13) % VMS]!.id }),
  };

  const agent = new Agent({ keepAlive: true, maxSockets: AGENTS });
  const endpoint = new URL(`${url}/graphql`);

  /** One GraphQL POST over a kept-alive connection: the status and the parsed body. */
  function post(payload: string): Promise<{ status: number; body: { errors?: unknown } }> {
    return new Promise((resolve, reject) => {
      const req = request(
        endpoint,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(payload),
            authorization: `Bearer ${token}`,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            try {
              resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
            } catch (err) {
              reject(err as Error);
            }
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  async function call(op: Op, i: number): Promise<void> {
    const { status, body } = await post(JSON.stringify({ query: op.query, variables: op.vars(i) }));
    if (status !== 200 || body.errors) throw new Error(`${op.name}: HTTP ${status} ${JSON.stringify(body.errors)}`);
  }

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
    heapAfter: number;
    /** This process's CPU (client and service) per request, ms. */
    cpuMsPerRequest: number;
    /** The Neo4j process's CPU per request, ms (null when Neo4j is not local). */
    neoCpuMsPerRequest: number | null;
    firstError: string | null;
  }

  /** AGENTS loops, each issuing one request after another until the phase's time is up. */
  async function phase(label: string, ops: Op[]): Promise<Phase> {
    const perOp = new Map<string, number[]>(ops.map((o) => [o.name, []]));
    let errors = 0;
    let firstError: string | null = null;
    let seq = 0;
    const rssBefore = rssMb();
    const cpuBefore = process.cpuUsage();
    const neoCpuBefore = neo.cpuMs();
    const started = performance.now();
    const deadline = started + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: AGENTS }, async (_, agent) => {
        while (performance.now() < deadline) {
          const i = seq++;
          const op = ops[(i + agent) % ops.length]!;
          const t0 = performance.now();
          try {
            await call(op, i);
            perOp.get(op.name)!.push(performance.now() - t0);
          } catch (err) {
            errors++;
            firstError ??= String(err).slice(0, 300);
          }
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const neoCpuAfter = neo.cpuMs();
    const all = [...perOp.values()].flat();
    return {
      label,
      requests: all.length,
      errors,
      rps: all.length / elapsed,
      p50: percentile(all, 50),
      p99: percentile(all, 99),
      perOp,
      rssBefore,
      rssAfter: rssMb(),
      heapAfter: process.memoryUsage().heapUsed / 2 ** 20,
      cpuMsPerRequest: (cpu.user + cpu.system) / 1000 / Math.max(1, all.length),
      neoCpuMsPerRequest:
        neoCpuBefore === null || neoCpuAfter === null ? null : (neoCpuAfter - neoCpuBefore) / Math.max(1, all.length),
      firstError,
    };
  }

  const MIXED = [...READS, CLASSIFY, WRITE];
  // Warm-up: plans cached, connections pooled; one agent, so each operation's Neo4j statements
  // are counted exactly (round trips per request). Not measured.
  const statements = new Map<string, number>();
  for (const op of MIXED) {
    counting.reset();
    for (let i = 0; i < 40; i++) await call(op, i);
    statements.set(op.name, counting.count() / 40);
  }

  const reads1 = await phase('reads', READS);
  const reads2 = await phase('reads again', READS);
  const mixed = await phase('reads + writes', MIXED);
  agent.destroy();
  server.closeAllConnections();
  server.close();

  console.log(
    `\naitia bench:load — ${AGENTS} agents × ${SECONDS} s per phase, ${VMS} VMs / ${SERVICES} services / ${HOSTS} hosts (Neo4j: ${neo.via})\n`,
  );
  console.log(
    'phase              requests   req/s   p50 ms   p99 ms  errors  CPU ms/req (aitia+client / Neo4j)   RSS MB before → after   heap MB',
  );
  for (const p of [reads1, reads2, mixed]) {
    console.log(
      `${p.label.padEnd(18)} ${String(p.requests).padStart(8)} ${fmt(p.rps, 0).padStart(7)} ${fmt(p.p50).padStart(8)} ${fmt(p.p99).padStart(8)} ${String(p.errors).padStart(7)} ${fmt(p.cpuMsPerRequest).padStart(14)} / ${(p.neoCpuMsPerRequest === null ? 'n/a' : fmt(p.neoCpuMsPerRequest)).padEnd(19)}  ${fmt(p.rssBefore, 0).padStart(6)} → ${fmt(p.rssAfter, 0).padEnd(12)} ${fmt(p.heapAfter, 0).padStart(7)}`,
    );
  }
  for (const p of [reads2, mixed]) {
    console.log(`\nper operation (${p.label})`.padEnd(40) + 'count   p50 ms   p99 ms  statements/req');
    for (const [name, samples] of p.perOp) {
      console.log(
        `${name.padEnd(38)} ${String(samples.length).padStart(6)} ${fmt(percentile(samples, 50)).padStart(8)} ${fmt(percentile(samples, 99)).padStart(8)} ${fmt(statements.get(name)!, 1).padStart(15)}`,
      );
    }
  }
  const errors = reads1.errors + reads2.errors + mixed.errors;
  if (errors > 0) console.log(`\nfirst error: ${reads1.firstError ?? reads2.firstError ?? mixed.firstError}`);
  console.log(
    `RESULT load rps=${fmt(reads2.rps, 0)} p99_ms=${fmt(reads2.p99, 1)} read_rps=${fmt(reads2.rps, 0)} read_p99_ms=${fmt(reads2.p99, 1)} read_p50_ms=${fmt(reads2.p50, 1)} errors=${errors} agents=${AGENTS} read_cpu_ms_per_req=${fmt(reads2.cpuMsPerRequest)} read_neo4j_cpu_ms_per_req=${reads2.neoCpuMsPerRequest === null ? 'na' : fmt(reads2.neoCpuMsPerRequest)} mixed_rps=${fmt(mixed.rps, 0)} mixed_p99_ms=${fmt(mixed.p99, 1)} rss_mb_reads1_end=${fmt(reads1.rssAfter, 0)} rss_mb_reads2_end=${fmt(reads2.rssAfter, 0)} rss_mb_growth_reads2=${fmt(reads2.rssAfter - reads1.rssAfter, 0)}`,
  );
} finally {
  await neo.driver
    .executeQuery('MATCH (n) WHERE n.id CONTAINS $s OR n.principal CONTAINS $s DETACH DELETE n', { s: scope })
    .catch(() => {});
  await neo.stop();
  rmSync(tmp, { recursive: true, force: true });
}
