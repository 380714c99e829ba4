import { beforeAll, describe, expect, it } from 'vitest';
import { upsertEdges } from '../../../src/graph/edges.js';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { createLogger } from '../../../src/log.js';
import { createGraphqlApp } from '../../../src/server/app.js';
import { addToken, TokenStore } from '../../../src/services/token-store.js';
import { countingDriver } from '../../../src/graph/db/driver.js';
import { createFeedBus } from '../../../src/pipeline/bus.js';
import { tempDirs } from '../../support/temp.js';
import { useGraph } from '../../support/graph.js';
import { join } from 'node:path';

const { driver, scope } = useGraph();
const counted = countingDriver(driver);
const tokensFile = join(tempDirs()('aitia-dl'), 'tokens.json');
const token = addToken(tokensFile, 'dl-agent', 'agent');
const app = createGraphqlApp(
  {
    driver: counted.driver,
    log: createLogger('silent'),
    version: 'test',
    policy: undefined,
    bus: createFeedBus(),
  },
  new TokenStore(tokensFile),
);

async function pageWithRelations(first: number): Promise<{ queries: number; nodes: any[] }> {
  counted.reset();
  const res = await app.fetch('http://127.0.0.1/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({
      query: `query($f: ResourceFilter, $n: Int) { resources(filter: $f, first: $n) { totalCount nodes { id
        relations(direction: OUT) { type to { id name } } conditions { id } } } }`,
      variables: { f: { nameContains: `dl-${scope}`, kind: 'vm' }, n: first },
    }),
  });
  const body = (await res.json()) as any;
  expect(body.errors).toBeUndefined();
  return { queries: counted.count(), nodes: body.data.resources.nodes };
}

beforeAll(async () => {
  const hosts = [0, 1, 2].map((i) => ({
    id: `proxmox:${scope}/node/pve${i}`,
    kind: 'host',
    provider: 'proxmox',
    name: `pve${i}-${scope}`,
    state: 'online',
  }));
  const vms = Array.from({ length: 500 }, (_, i) => ({
    id: `proxmox:${scope}/qemu/${1000 + i}`,
    kind: 'vm',
    provider: 'proxmox',
    name: `dl-${scope}-${String(i).padStart(3, '0')}`,
    state: 'running',
  }));
  await upsertResources(driver, [...hosts, ...vms]);
  await upsertEdges(
    driver,
    vms.map((v, i) => ({
      type: 'RUNS_ON' as const,
      fromId: v.id,
      toId: hosts[i % 3]!.id,
      provenance: 'observed' as const,
      source: 'test',
    })),
  );
}, 120_000);

describe('DataLoaders', () => {
  it('serve a page of 500 resources with their relations, endpoints and conditions in a constant number of queries', async () => {
    const small = await pageWithRelations(5);
    const large = await pageWithRelations(500);
    expect(large.nodes).toHaveLength(500);
    expect(large.nodes.every((n) => n.relations.length === 1 && n.relations[0].to.id.includes('/node/pve'))).toBe(true);
    // page + count, relations, endpoints, conditions: the same for 5 or 500 resources.
    expect(large.queries).toBe(small.queries);
    expect(large.queries).toBeLessThanOrEqual(5);
  });
});
