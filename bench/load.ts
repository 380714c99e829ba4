/**
 * bench:load — N concurrent simulated agents (default 50) against the real HTTP server for a bounded
 * time, speaking GraphQL over loopback like agents do: resource by slug, dependents to depth 3,
 * transitions of a resource, classifyAction, and (in the mixed phase) an idempotent
 * createRelationship. Three phases in one run: reads, reads again (memory must stay flat across
 * the two), then reads with writes — compared side by side: throughput, p50/p99 per operation,
 * errors, and the process's RSS before and after each phase (client and service share it).
 *
 *   AITIA_BENCH_AGENTS (50)  AITIA_BENCH_SECONDS (15 per phase)  AITIA_BENCH_VMS (2000)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  const server = createHttpServer(
    {
      driver: neo.driver,
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
    {
      name: 'classifyAction',
      query:
        'query($t: ID!) { classifyAction(input: {target: $t, action: "restart"}) { riskClass autonomy approval reasons } }',
      vars: (i) => ({ t: vms[(i * 31) % VMS]!.id }),
    },
  ];
  const WRITE: Op = {
    name: 'createRelationship',
    query:
      'mutation($s: ID!, $t: ID!) { createRelationship(input: {source: $s, target: $t, type: DEPENDS_ON}) { created } }',
    vars: (i) => ({ s: services[i % SERVICES]!.id, t: vms[(i * 13) % VMS]!.id }),
  };

  async function call(op: Op, i: number): Promise<void> {
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: op.query, variables: op.vars(i) }),
    });
    const body = (await res.json()) as { errors?: unknown };
    if (!res.ok || body.errors) throw new Error(`${op.name}: HTTP ${res.status} ${JSON.stringify(body.errors)}`);
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
    firstError: string | null;
  }

  /** AGENTS loops, each issuing one request after another until the phase's time is up. */
  async function phase(label: string, ops: Op[]): Promise<Phase> {
    const perOp = new Map<string, number[]>(ops.map((o) => [o.name, []]));
    let errors = 0;
    let firstError: string | null = null;
    let seq = 0;
    const rssBefore = rssMb();
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
      firstError,
    };
  }

  // Warm-up: plans cached, connections pooled; not measured.
  for (let i = 0; i < 200; i++) await call(READS[i % READS.length]!, i);

  const reads1 = await phase('reads', READS);
  const reads2 = await phase('reads again', READS);
  const mixed = await phase('reads + writes', [...READS, WRITE]);
  server.closeAllConnections();
  server.close();

  console.log(
    `\naitia bench:load — ${AGENTS} agents × ${SECONDS} s per phase, ${VMS} VMs / ${SERVICES} services / ${HOSTS} hosts (Neo4j: ${neo.via})\n`,
  );
  console.log('phase              requests   req/s   p50 ms   p99 ms  errors   RSS MB before → after');
  for (const p of [reads1, reads2, mixed]) {
    console.log(
      `${p.label.padEnd(18)} ${String(p.requests).padStart(8)} ${fmt(p.rps, 0).padStart(7)} ${fmt(p.p50).padStart(8)} ${fmt(p.p99).padStart(8)} ${String(p.errors).padStart(7)}   ${fmt(p.rssBefore, 0)} → ${fmt(p.rssAfter, 0)}`,
    );
  }
  console.log('\nper operation (reads + writes phase)   count   p50 ms   p99 ms');
  for (const [name, samples] of mixed.perOp) {
    console.log(
      `${name.padEnd(38)} ${String(samples.length).padStart(6)} ${fmt(percentile(samples, 50)).padStart(8)} ${fmt(percentile(samples, 99)).padStart(8)}`,
    );
  }
  const errors = reads1.errors + reads2.errors + mixed.errors;
  if (errors > 0) console.log(`\nfirst error: ${reads1.firstError ?? reads2.firstError ?? mixed.firstError}`);
  console.log(
    `RESULT load rps=${fmt(reads2.rps, 0)} p99_ms=${fmt(reads2.p99, 1)} p50_ms=${fmt(reads2.p50, 1)} errors=${errors} agents=${AGENTS} mixed_rps=${fmt(mixed.rps, 0)} mixed_p99_ms=${fmt(mixed.p99, 1)} rss_mb_reads1_end=${fmt(reads1.rssAfter, 0)} rss_mb_reads2_end=${fmt(reads2.rssAfter, 0)}`,
  );
} finally {
  await neo.driver
    .executeQuery('MATCH (n) WHERE n.id CONTAINS $s OR n.principal CONTAINS $s DETACH DELETE n', { s: scope })
    .catch(() => {});
  await neo.stop();
  rmSync(tmp, { recursive: true, force: true });
}
