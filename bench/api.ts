/**
 * bench:api — GraphQL resource-by-id latency over HTTP beside the raw neo4j-driver round trip for
 * the same look-up (p50/p99 and their ratio), and the Cypher query count for a page of 500
 * resources with their relations (DataLoaders keep it constant). The two look-ups are measured
 * interleaved in rounds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countingDriver } from '../src/graph/db/driver.js';
import { upsertEdges } from '../src/graph/edges.js';
import { upsertResources } from '../src/graph/resources/upsert.js';
import { createLogger } from '../src/log.js';
import { createFeedBus } from '../src/pipeline/bus.js';
import { createHttpServer, listen } from '../src/server/http.js';
import { addToken, TokenStore } from '../src/services/token-store.js';
import { benchNeo4j, fmt, percentile, timeEach } from './support.js';

const RESOURCES = 2_000;
const SAMPLES = 2_000;
const WARMUP = 300;
/** Raw and GraphQL alternate in this many rounds. */
const ROUNDS = 20;

const neo = await benchNeo4j();
const scope = `bench-api-${Date.now()}`;
const tmp = mkdtempSync(join(tmpdir(), 'aitia-bench-api-'));
try {
  const hosts = Array.from({ length: 10 }, (_, i) => ({
    id: `proxmox:${scope}/node/n${i}`,
    kind: 'host',
    provider: 'proxmox',
    name: `n${i}-${scope}`,
    state: 'online',
  }));
  const vms = Array.from({ length: RESOURCES }, (_, i) => ({
    id: `proxmox:${scope}/qemu/${100 + i}`,
    kind: 'vm',
    provider: 'proxmox',
    name: `vm${i}-${scope}`,
    state: 'running',
  }));
  await upsertResources(neo.driver, [...hosts, ...vms]);
  await upsertEdges(
    neo.driver,
    vms.map((v, i) => ({
      type: 'RUNS_ON' as const,
      fromId: v.id,
      toId: hosts[i % 10]!.id,
      provenance: 'observed' as const,
      source: 'bench',
    })),
  );

  const counted = countingDriver(neo.driver);
  const tokensFile = join(tmp, 'tokens.json');
  const token = addToken(tokensFile, 'bench-agent', 'agent');
  const server = createHttpServer(
    {
      driver: counted.driver,
      log: createLogger('silent'),
      version: 'bench',
      policy: undefined,
      bus: createFeedBus(),
    },
    new TokenStore(tokensFile),
  );
  const { url } = await listen(server, '127.0.0.1', 0);
  const gql = async (query: string, variables: Record<string, unknown>) => {
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as { errors?: unknown; data?: any };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };
  const idOf = (i: number) => vms[(i * 7919) % RESOURCES]!.id;

  // Raw and GraphQL are measured interleaved in rounds (raw, GraphQL, raw, …), so load from other
  // processes on a shared machine falls on both alike instead of on whichever ran second.
  const rawLookup = (i: number) =>
    neo.driver.executeQuery(
      'MATCH (r:Resource {id: $id}) RETURN properties(r) AS p',
      { id: idOf(i) },
      { routing: 'READ' },
    );
  const graphqlLookup = (i: number) =>
    gql('query($id: ID!) { resource(id: $id) { id name slug health ... on Vm { state } } }', { id: idOf(i) });
  await timeEach(WARMUP, 0, rawLookup);
  await timeEach(WARMUP, 0, graphqlLookup);
  const raw: number[] = [];
  const viaGraphql: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const offset = round * (SAMPLES / ROUNDS);
    raw.push(...(await timeEach(SAMPLES / ROUNDS, 0, (i) => rawLookup(offset + i))));
    viaGraphql.push(...(await timeEach(SAMPLES / ROUNDS, 0, (i) => graphqlLookup(offset + i))));
  }

  const pageQuery = `query($f: ResourceFilter) { resources(filter: $f, first: 500) { totalCount nodes { id relations(direction: OUT) { type to { id name } } } } }`;
  counted.reset();
  const page = await gql(pageQuery, { f: { kind: 'vm', nameContains: scope } });
  const pageQueries = counted.count();
  counted.reset();
  await gql(pageQuery.replace('first: 500', 'first: 5'), { f: { kind: 'vm', nameContains: scope } });
  const smallPageQueries = counted.count();
  const pageMs = percentile(
    await timeEach(20, 3, () => gql(pageQuery, { f: { kind: 'vm', nameContains: scope } })),
    50,
  );

  server.closeAllConnections();
  server.close();

  const r50 = percentile(raw, 50);
  const r99 = percentile(raw, 99);
  const g50 = percentile(viaGraphql, 50);
  const g99 = percentile(viaGraphql, 99);
  console.log(`\naitia bench:api — ${SAMPLES} look-ups of ${RESOURCES} VMs (Neo4j: ${neo.via})\n`);
  console.log('look-up by id                    p50 ms    p99 ms');
  console.log(`raw neo4j-driver round trip    ${fmt(r50).padStart(8)}  ${fmt(r99).padStart(8)}`);
  console.log(`GraphQL over HTTP (auth, yoga) ${fmt(g50).padStart(8)}  ${fmt(g99).padStart(8)}`);
  console.log(`ratio GraphQL / raw            ${fmt(g50 / r50).padStart(8)}  ${fmt(g99 / r99).padStart(8)}`);
  console.log(
    `\npage of ${page.resources.nodes.length} resources with relations: ${pageQueries} Cypher queries (page of 5: ${smallPageQueries}), p50 ${fmt(pageMs)} ms`,
  );
  console.log(
    `RESULT api graphql_p50_ms=${fmt(g50, 3)} graphql_p99_ms=${fmt(g99, 3)} raw_p50_ms=${fmt(r50, 3)} raw_p99_ms=${fmt(r99, 3)} ratio_p50=${fmt(g50 / r50)} ratio_p99=${fmt(g99 / r99)} page500_queries=${pageQueries} page5_queries=${smallPageQueries} page500_p50_ms=${fmt(pageMs, 1)}`,
  );
} finally {
  await neo.driver.executeQuery('MATCH (n) WHERE n.id CONTAINS $s DETACH DELETE n', { s: scope }).catch(() => {});
  await neo.stop();
  rmSync(tmp, { recursive: true, force: true });
}
