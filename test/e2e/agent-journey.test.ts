import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertEdges } from '../../src/graph/edges.js';
import { upsertResources } from '../../src/graph/resources/upsert.js';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';

const { driver, scope } = useGraph();
let srv: TestServer;
const ids = {
  host: `proxmox:${scope}/node/pve1`,
  vm: `proxmox:${scope}/qemu/101`,
  db: `proxmox:${scope}/qemu/102`,
  app: `manual:service/${scope}-app`,
  web: `manual:service/${scope}-web`,
};
const vmName = `web01-${scope}`;

beforeAll(async () => {
  srv = await startTestServer(driver);
  await upsertResources(driver, [
    { id: ids.host, kind: 'host', provider: 'proxmox', name: `pve1-${scope}`, state: 'online' },
    {
      id: ids.vm,
      kind: 'vm',
      provider: 'proxmox',
      name: vmName,
      state: 'running',
      rawState: 'running',
      attributes: { qemu_guest_agent: 'running' },
    },
    { id: ids.db, kind: 'vm', provider: 'proxmox', name: `db01-${scope}`, state: 'stopped', rawState: 'stopped' },
    { id: ids.app, kind: 'service', provider: 'manual', name: `${scope}-app`, state: 'up' },
    { id: ids.web, kind: 'service', provider: 'manual', name: `${scope}-web`, state: 'up' },
  ]);
  await upsertEdges(driver, [
    { type: 'RUNS_ON', fromId: ids.vm, toId: ids.host, provenance: 'observed', source: `proxmox:${scope}` },
    { type: 'RUNS_ON', fromId: ids.db, toId: ids.host, provenance: 'observed', source: `proxmox:${scope}` },
    { type: 'RUNS_ON', fromId: ids.app, toId: ids.vm, provenance: 'declared', source: 'seed' },
  ]);
});
afterAll(async () => srv?.close());

describe('an agent with only a token and the docs', () => {
  it('finds vm:<name> with its kind-specific state', async () => {
    const { status, body } = await srv.gql(
      srv.tokens.agent,
      `{ resource(slug: "vm:${vmName}") { id name slug kind rawState health attributes ... on Vm { state } } }`,
    );
    expect(status).toBe(200);
    expect(body.data.resource).toMatchObject({
      id: ids.vm,
      slug: `vm:${vmName}`,
      kind: 'vm',
      state: 'running',
      health: 'unknown',
      attributes: { qemu_guest_agent: 'running' },
    });
  });

  it('lists what depends on it to depth 3, records a discovered dependency, and reads it back', async () => {
    const create = `mutation($s: ID!, $t: ID!) { createRelationship(input: {source: $s, target: $t, type: DEPENDS_ON, evidence: "proxy_pass http://app:8080"}) {
      created relationship { type provenance source evidence from { id } to { id } } } }`;
    const first = await srv.gql(srv.tokens.agent, create, { s: `service:${scope}-web`, t: ids.app });
    expect(first.body.data.createRelationship).toEqual({
      created: true,
      relationship: {
        type: 'DEPENDS_ON',
        provenance: 'declared',
        source: 'test-agent',
        evidence: 'proxy_pass http://app:8080',
        from: { id: ids.web },
        to: { id: ids.app },
      },
    });
    const again = await srv.gql(srv.tokens.agent, create, { s: `service:${scope}-web`, t: ids.app });
    expect(again.body.data.createRelationship.created).toBe(false);

    const { body } = await srv.gql(
      srv.tokens.agent,
      `{ dependents(id: "vm:${vmName}", maxDepth: 3) { count reached { depth resource { id } path { type id } } } }`,
    );
    expect(body.data.dependents.reached).toEqual([
      { depth: 1, resource: { id: ids.app }, path: [{ type: 'RUNS_ON', id: ids.app }] },
      {
        depth: 2,
        resource: { id: ids.web },
        path: [
          { type: 'RUNS_ON', id: ids.app },
          { type: 'DEPENDS_ON', id: ids.web },
        ],
      },
    ]);
    const rel = await srv.gql(
      srv.tokens.agent,
      `{ relations(id: "${ids.app}", direction: IN, types: [DEPENDS_ON]) { fromId provenance source } }`,
    );
    expect(rel.body.data.relations).toEqual([{ fromId: ids.web, provenance: 'declared', source: 'test-agent' }]);
  });

  it('reads only what a blast-radius query selects, and every field it does select is the stored one', async () => {
    // Identity only (no resource properties read, no paths built) vs a fragment asking for more.
    const slim = await srv.gql(
      srv.tokens.agent,
      `{ dependents(id: "${ids.host}", maxDepth: 1) { root { id ... on Host { state } } count reached { depth resource { id kind name slug } } } }`,
    );
    expect(slim.body.data.dependents).toEqual({
      root: { id: ids.host, state: 'online' },
      count: 2,
      reached: [
        { depth: 1, resource: { id: ids.db, kind: 'vm', name: `db01-${scope}`, slug: `vm:db01-${scope}` } },
        { depth: 1, resource: { id: ids.vm, kind: 'vm', name: vmName, slug: `vm:${vmName}` } },
      ],
    });
    const full = await srv.gql(
      srv.tokens.agent,
      `query { dependents(id: "${ids.host}", maxDepth: 1) { reached { resource { ...vmState lifecycle } path { id } } } }
       fragment vmState on Vm { state rawState }`,
    );
    expect(full.body.data.dependents.reached).toEqual([
      { resource: { state: 'stopped', rawState: 'stopped', lifecycle: 'active' }, path: [{ id: ids.db }] },
      { resource: { state: 'running', rawState: 'running', lifecycle: 'active' }, path: [{ id: ids.vm }] },
    ]);
    const missing = await srv.gql(srv.tokens.agent, `{ dependents(id: "proxmox:${scope}/qemu/999") { count } }`);
    expect(missing.body.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND', field: 'id' });
  });

  it('tries to set health and is refused with the message; descriptive keys are merged', async () => {
    const { body } = await srv.gql(
      srv.tokens.agent,
      `mutation($id: ID!, $a: JSON!) { updateEntityAttributes(id: $id, attributes: $a) { message ignored { key reason } resource { health attributes } } }`,
      {
        id: ids.vm,
        a: {
          health: 'healthy',
          last_check_at: '2026-01-01T00:00:00Z',
          state: 'stopped',
          qemu_guest_agent: 'not_running',
          owner: 'team-a',
          ports: [80, 443],
        },
      },
    );
    const p = body.data.updateEntityAttributes;
    expect(p.message).toMatch(/health is scheduler-owned.*healthSummary.*checks/);
    expect(p.ignored.map((i: any) => i.key).sort()).toEqual(['health', 'last_check_at', 'qemu_guest_agent', 'state']);
    expect(p.resource.health).toBe('unknown');
    expect(p.resource.attributes).toEqual({ qemu_guest_agent: 'running', owner: 'team-a', ports: [80, 443] });
    const read = await srv.gql(srv.tokens.agent, `{ resource(id: "${ids.vm}") { health ... on Vm { state } } }`);
    expect(read.body.data.resource).toEqual({ health: 'unknown', state: 'running' });
  });

  it('gets BAD_USER_INPUT naming the field for unknown resources, disallowed kinds, self-loops and non-scalar values, with nothing written', async () => {
    const count = async () =>
      (
        await driver.executeQuery('MATCH (a:Resource)-[e]->() WHERE a.id CONTAINS $s RETURN count(e) AS n', {
          s: scope,
        })
      ).records[0]!.get('n').toNumber();
    const before = await count();
    const cases: Array<[Record<string, string>, string, RegExp]> = [
      [
        { s: ids.web, t: 'manual:service/nope', ty: 'DEPENDS_ON' },
        'input.source|input.target',
        /no resource manual:service\/nope/,
      ],
      [{ s: ids.host, t: ids.vm, ty: 'RUNS_ON' }, 'input.type', /RUNS_ON is not allowed from host to vm/],
      [{ s: ids.web, t: ids.web, ty: 'DEPENDS_ON' }, 'input.target', /itself/],
    ];
    for (const [v, field, msg] of cases) {
      const { body } = await srv.gql(
        srv.tokens.agent,
        `mutation($s: ID!, $t: ID!, $ty: RelationshipType!) { createRelationship(input: {source: $s, target: $t, type: $ty}) { created } }`,
        v,
      );
      expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(body.errors[0].extensions.field).toMatch(new RegExp(`^(${field})$`));
      expect(body.errors[0].message).toMatch(msg);
    }
    expect(await count()).toBe(before);
    const bad = await srv.gql(
      srv.tokens.agent,
      `mutation { updateEntityAttributes(id: "${ids.vm}", attributes: {owner: "x", nested: {a: 1}}) { message } }`,
    );
    expect(bad.body.errors[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'attributes.nested' } });
    const after = await srv.gql(srv.tokens.agent, `{ resource(id: "${ids.vm}") { attributes } }`);
    expect(after.body.data.resource.attributes.owner).toBe('team-a');
  });
});

describe('authentication, authorisation and limits', () => {
  it('answers 401 for a missing or wrong token', async () => {
    expect((await srv.gql(null, '{ about { version } }')).status).toBe(401);
    const wrong = await srv.gql('aitia_agent_not-a-real-token', '{ about { version } }');
    expect(wrong.status).toBe(401);
    expect(wrong.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('refuses removeRelationship to an agent with FORBIDDEN naming the permission; an operator may remove declared edges but not observed ones', async () => {
    const m = (s: string, t: string, ty: string) =>
      `mutation { removeRelationship(input: {source: "${s}", target: "${t}", type: ${ty}}) { removed } }`;
    const agent = await srv.gql(srv.tokens.agent, m(ids.web, ids.app, 'DEPENDS_ON'));
    expect(agent.body.errors[0]).toMatchObject({
      extensions: { code: 'FORBIDDEN', permission: 'relationship:remove' },
    });
    const observed = await srv.gql(srv.tokens.operator, m(ids.vm, ids.host, 'RUNS_ON'));
    expect(observed.body.errors[0].message).toMatch(/observed edges belong to their provider/);
    const ok = await srv.gql(srv.tokens.operator, m(ids.web, ids.app, 'DEPENDS_ON'));
    expect(ok.body.data.removeRelationship.removed).toBe(1);
  });

  it('refuses a query 20 levels deep and one with 500 aliases', async () => {
    let deep = 'id';
    for (let i = 0; i < 20; i++) deep = `relations { from { ${deep} } }`;
    const d = await srv.gql(srv.tokens.agent, `{ resource(id: "${ids.vm}") { ${deep} } }`);
    expect(d.body.errors.map((e: any) => e.message).join(' | ')).toMatch(/depth limit of 12 exceeded/i);
    expect(d.body.data).toBeUndefined();
    const aliases = Array.from({ length: 500 }, (_, i) => `a${i}: about { version }`).join(' ');
    const a = await srv.gql(srv.tokens.agent, `{ ${aliases} }`);
    expect(a.body.errors.map((e: any) => e.message).join(' | ')).toMatch(/aliases limit of 15 exceeded/i);
    expect(a.body.data).toBeUndefined();
  });

  it('caps page sizes and depth bounds with clear errors', async () => {
    const big = await srv.gql(srv.tokens.agent, '{ resources(first: 501) { totalCount } }');
    expect(big.body.errors[0]).toMatchObject({
      message: 'first: must be an integer from 1 to 500, got 501',
      extensions: { code: 'BAD_USER_INPUT', field: 'first' },
    });
    const deep = await srv.gql(srv.tokens.agent, `{ dependents(id: "${ids.vm}", maxDepth: 11) { count } }`);
    expect(deep.body.errors[0].extensions.field).toBe('maxDepth');
  });

  it('records every mutation in the audit log, readable by operators only', async () => {
    const denied = await srv.gql(srv.tokens.agent, '{ auditLog { nodes { id } } }');
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const { body } = await srv.gql(
      srv.tokens.operator,
      `{ auditLog(filter: {targetId: "${ids.app}"}, first: 20) { nodes { principal role operation outcome detail targetIds at via } } }`,
    );
    const entries = body.data.auditLog.nodes as any[];
    expect(entries.map((e) => `${e.principal}:${e.operation}:${e.outcome}`)).toEqual(
      expect.arrayContaining([
        'test-agent:createRelationship:ok',
        'test-agent:removeRelationship:refused',
        'test-operator:removeRelationship:ok',
      ]),
    );
    // The surface the calls came through.
    expect(new Set(entries.map((e) => e.via))).toEqual(new Set(['graphql']));
    expect(entries.find((e) => e.outcome === 'refused').detail).toMatch(/^FORBIDDEN: /);
  });
});
