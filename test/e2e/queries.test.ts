import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertEdges } from '../../src/graph/edges.js';
import { upsertResources } from '../../src/graph/resources/upsert.js';
import { openCondition } from '../../src/graph/conditions.js';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';

const { driver, scope } = useGraph();
let srv: TestServer;
const vm = (n: number, state: string, attrs: Record<string, unknown> = {}) => ({
  id: `proxmox:${scope}/qemu/${n}`,
  kind: 'vm',
  provider: 'proxmox',
  name: `q${n}-${scope}`,
  state,
  attributes: attrs,
});
const esxi = `vcenter:${scope}/host/host-10`;

beforeAll(async () => {
  srv = await startTestServer(driver);
  await upsertResources(driver, [
    vm(1, 'running', { os: 'debian', cores: 2 }),
    vm(2, 'stopped', { os: 'debian', cores: 4 }),
    vm(3, 'running', { os: 'alpine', cores: 2 }),
    vm(4, 'paused_io_error', { os: 'debian', cores: 2 }),
    vm(5, 'running', { os: 'esxi', cores: 8 }),
    { id: esxi, kind: 'host', provider: 'vcenter', name: `esxi-${scope}`, state: 'online' },
  ]);
  await upsertEdges(driver, [
    {
      type: 'MANIFESTS_AS',
      fromId: esxi,
      toId: vm(5, '').id,
      provenance: 'inferred',
      source: 'resolver:manifests_as',
      rule: 'mac_address',
      confidence: 'high',
      evidence: 'bc:24:11:00:00:05',
    },
  ]);
  await openCondition(driver, {
    resourceId: vm(4, '').id,
    type: 'paused_io_error',
    evidence: { qmpstatus: 'io-error' },
  });
});
afterAll(async () => srv?.close());

const q = (query: string, variables?: Record<string, unknown>) =>
  srv.gql(srv.tokens.agent, query, variables).then((r) => r.body);

describe('resources: filters and Relay pagination', () => {
  it.each([
    [{ kind: 'vm', nameContains: scope }, 5],
    [{ kind: 'vm', nameContains: scope, state: 'running' }, 3],
    [{ nameContains: scope, attribute: { key: 'os', equals: 'debian' } }, 3],
    [{ nameContains: scope, attribute: { key: 'cores', equals: 2 } }, 3],
    [{ nameContains: scope, hasOpenCondition: true }, 1],
    [{ nameContains: scope, provider: 'vcenter' }, 1],
  ])('%j → %i', async (filter, n) => {
    const body = await q('query($f: ResourceFilter) { resources(filter: $f, first: 50) { totalCount nodes { id } } }', {
      f: filter,
    });
    expect(body.errors).toBeUndefined();
    expect(body.data.resources.totalCount).toBe(n);
    expect(body.data.resources.nodes).toHaveLength(n);
  });

  it('pages with after/endCursor without gaps or repeats', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (let i = 0; i < 5; i++) {
      const body: any = await q(
        'query($a: String) { resources(filter: {nameContains: "' +
          scope +
          '"}, first: 2, after: $a) { totalCount pageInfo { hasNextPage endCursor } nodes { id } } }',
        { a: after },
      );
      seen.push(...body.data.resources.nodes.map((n: any) => n.id));
      if (!body.data.resources.pageInfo.hasNextPage) break;
      after = body.data.resources.pageInfo.endCursor;
    }
    expect(seen).toHaveLength(6);
    expect(new Set(seen).size).toBe(6);
    expect([...seen]).toEqual([...seen].sort());
  });

  it('refuses a state that is not in the kind, naming the field', async () => {
    const body = await q('{ resources(filter: {kind: vm, state: "online"}) { totalCount } }');
    expect(body.errors[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'filter.state' } });
    expect(body.errors[0].message).toMatch(/"online" is not a vm state/);
  });
});

describe('identity and health', () => {
  it('identity lists MANIFESTS_AS links with provenance, rule and confidence, from either side', async () => {
    for (const id of [esxi, vm(5, '').id]) {
      const body = await q(
        `{ identity(id: "${id}") { links { resource { id kind } relationship { provenance rule confidence evidence source } } } }`,
      );
      expect(body.data.identity.links).toEqual([
        {
          resource: id === esxi ? { id: vm(5, '').id, kind: 'vm' } : { id: esxi, kind: 'host' },
          relationship: {
            provenance: 'inferred',
            rule: 'mac_address',
            confidence: 'high',
            evidence: 'bc:24:11:00:00:05',
            source: 'resolver:manifests_as',
          },
        },
      ]);
    }
  });

  it('healthSummary counts every health and explains who owns it', async () => {
    const body = await q(
      `{ healthSummary(scope: {provider: proxmox, kind: vm}) { total counts { health count } note attention { id } } }`,
    );
    const s = body.data.healthSummary;
    expect(s.counts.map((c: any) => c.health)).toEqual(['healthy', 'degraded', 'unhealthy', 'unknown']);
    expect(body.errors).toBeUndefined();
    expect(s.total).toBeGreaterThanOrEqual(5);
    expect(s.note).toMatch(/scheduler/);
    const under = await q(`{ healthSummary(scope: {under: "${esxi}"}) { total attention { id } } }`);
    expect(under.errors).toBeUndefined();
    // The ESXi host and the Proxmox VM it manifests as: one real machine, both perspectives.
    expect(under.data.healthSummary.total).toBe(2);
    expect(under.data.healthSummary.attention.map((r: any) => r.id).sort()).toEqual([esxi, vm(5, '').id].sort());
  });
});
