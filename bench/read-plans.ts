/**
 * read-plans — PROFILE of the reads that filter resources by kind, provider or update tag, on a
 * realistic graph (a 50,000-resource Proxmox scope from bench:ingest's shape plus a 5,000-resource
 * vCenter one), with the statements as they were under migration 1's property indexes and as they
 * are now (kind labels, the pass's id prefix) without them. Prints, per read, the plan's leaf
 * operators, db hits, rows and the median wall time of 7 runs. Evidence for migration 10.
 *
 * Run: `npm run bench:plans` (a throwaway embedded Neo4j only: it drops indexes).
 */
import type { Driver } from 'neo4j-driver';
import { MIGRATIONS } from '../src/graph/db/migrations.js';
import { loadInventory } from '../src/ingest/inventory-load.js';
import { createReport } from '../src/ingest/report.js';
import { isoNow } from '../src/graph/db/statements.js';
import { syntheticShape } from './ingest-shape.js';
import { benchNeo4j, fmt, timeEach } from './support.js';
import { READS } from './read-plans-queries.js';

interface PlanNode {
  operatorType: string;
  dbHits: number;
  rows: number;
  arguments: Record<string, unknown>;
  children: PlanNode[];
}

function sumHits(p: PlanNode): number {
  return p.dbHits + p.children.reduce((n, c) => n + sumHits(c), 0);
}

/** The plan's leaves (where rows come from), e.g. `NodeUniqueIndexSeekByRange(r:Resource(id))`. */
function leaves(p: PlanNode): string[] {
  if (p.children.length > 0) return p.children.flatMap(leaves);
  const details = String(p.arguments.Details ?? '').slice(0, 70);
  return [`${p.operatorType.replace(/@.*/, '')} ${details} (${p.rows} rows)`];
}

async function profile(driver: Driver, cypher: string, params: Record<string, unknown>) {
  const ms = await timeEach(7, 2, () => driver.executeQuery(cypher, params, { routing: 'READ' }));
  const res = await driver.executeQuery(`PROFILE ${cypher}`, params, { routing: 'READ' });
  const plan = res.summary.profile as unknown as PlanNode;
  return {
    hits: sumHits(plan),
    rows: res.records.length,
    leaves: leaves(plan),
    ms: [...ms].sort((a, b) => a - b)[3]!,
  };
}

async function seed(driver: Driver): Promise<void> {
  const tag = 'plans';
  // Held here (this bench edits rows); the shape itself is generated, edges inside the rows.
  const lab = { rows: [...syntheticShape('lab', 50_000).rows] };
  for (const [i, r] of lab.rows.entries()) {
    if (r.resource.kind === 'cluster') r.resource.attributes = { api_url: 'https://pve1.lab:8006' };
    if (r.resource.kind === 'vm' && i % 500 === 0) r.resource.state = 'paused_io_error';
    if (r.resource.kind === 'vm' && i % 3 === 0)
      r.resource.attributes = { ...r.resource.attributes, mac_addresses: [`02:00:00:00:${i % 256}:01`] };
  }
  // A second, smaller provider scope: the vCenter ids and source of the same shape.
  const rename = (s: string) => s.replace(/^proxmox:/, 'vcenter:');
  const vcRows = [...syntheticShape('vc', 5_000).rows].map((r) => ({
    ...r,
    resource: { ...r.resource, id: rename(r.resource.id), provider: 'vcenter' as const },
    edges: (r.edges ?? []).map((e) => ({ ...e, fromId: rename(e.fromId), toId: rename(e.toId), source: 'vcenter:vc' })),
  }));
  for (const [rows, edges, scope] of [
    [lab.rows, [], 'proxmox:lab'],
    [vcRows, [], 'vcenter:vc'],
  ] as const) {
    const report = createReport(scope.startsWith('vcenter') ? 'vcenter' : 'proxmox', scope, tag);
    await loadInventory(driver, rows, edges, { updateTag: `${tag}-${scope}`, observedAt: isoNow() }, report);
  }
  // Half the I/O-paused VMs already have their condition open.
  await driver.executeQuery(
    `MATCH (r:Vm) WHERE r.state = 'paused_io_error' WITH r ORDER BY r.id WITH collect(r) AS rs
     UNWIND range(0, size(rs) - 1, 2) AS i WITH rs[i] AS r
     CREATE (:Condition {id: 'c-' + r.id, resourceId: r.id, type: 'paused_io_error', status: 'open', openedAt: datetime()})`,
  );
}

// It drops indexes: only ever on a throwaway embedded Neo4j.
if (process.env.NEO4J_URI) throw new Error('read-plans drops indexes: run it without NEO4J_URI');
const neo = await benchNeo4j();
try {
  // Migration 1's indexes back for the `before` phase (migration 10 dropped them).
  const DROPPED = ['resource_kind', 'resource_provider', 'resource_update_tag'];
  for (const s of MIGRATIONS[0]!.statements.filter((s) => DROPPED.some((d) => s.includes(`INDEX ${d} `))))
    await neo.driver.executeQuery(s);
  console.log(`read-plans on ${neo.via}: seeding 55,000 resources…`);
  await seed(neo.driver);
  await neo.driver.executeQuery('CALL db.awaitIndexes(300)');
  const results = new Map<string, string[]>();
  const totals = new Map<string, { hits: number; ms: number }>();
  const show = (phase: string, name: string, r: Awaited<ReturnType<typeof profile>>) => {
    totals.set(`${phase} ${name}`, { hits: r.hits, ms: r.ms });
    const lines = results.get(name) ?? results.set(name, []).get(name)!;
    lines.push(
      `  ${phase.padEnd(6)} ${String(r.hits).padStart(8)} db hits ${fmt(r.ms, 1).padStart(7)} ms  ${r.rows} rows  ← ${r.leaves.join(' ∪ ')}`,
    );
  };
  for (const q of READS) show('before', q.name, await profile(neo.driver, q.before, q.params));
  for (const index of DROPPED) await neo.driver.executeQuery(`DROP INDEX ${index} IF EXISTS`);
  for (const q of READS) show('after', q.name, await profile(neo.driver, q.after ?? q.before, q.params));
  for (const [name, lines] of results) console.log(`\n${name}\n${lines.join('\n')}`);
  const total = (phase: string) =>
    [...totals.entries()]
      .filter(([k]) => k.startsWith(phase))
      .reduce((t, [, v]) => ({ hits: t.hits + v.hits, ms: t.ms + v.ms }), { hits: 0, ms: 0 });
  const [b, a] = [total('before'), total('after')];
  console.log(
    `RESULT plans reads=${READS.length} db_hits_before=${b.hits} db_hits_after=${a.hits} ms_before=${fmt(b.ms, 1)} ms_after=${fmt(a.ms, 1)} speedup=${fmt(b.ms / a.ms)}`,
  );
} finally {
  await neo.stop();
}
process.exit(0);
