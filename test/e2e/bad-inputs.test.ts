import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertResources } from '../../src/graph/resources/upsert.js';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * A corpus of hostile or malformed inputs sent over HTTP as a client would: each answers a coded
 * error naming what to fix, and nothing in the graph changes.
 */
const { driver, scope } = useGraph();
let srv: TestServer;
const vm = `proxmox:${scope}/qemu/101`;
const other = `proxmox:${scope}/qemu/102`;
const gone = `proxmox:${scope}/qemu/103`;

beforeAll(async () => {
  srv = await startTestServer(driver, { tokenPrefix: scope });
  await upsertResources(
    driver,
    [vm, other, gone].map((id) => ({
      id,
      kind: 'vm',
      provider: 'proxmox',
      name: id.split('/').pop(),
      state: 'running',
    })),
  );
  await driver.executeQuery('MATCH (r:Resource {id: $id}) SET r.lifecycle = "destroyed"', { id: gone });
});
afterAll(async () => srv?.close());

/** Everything under the scope: properties and edges. */
async function snapshot() {
  const { records } = await driver.executeQuery(
    `MATCH (r:Resource) WHERE r.id STARTS WITH $prefix
     OPTIONAL MATCH (r)-[e]-()
     WITH r, count(e) AS edges ORDER BY r.id
     RETURN collect({p: properties(r), edges: edges}) AS all`,
    { prefix: `proxmox:${scope}/` },
  );
  return JSON.stringify(records[0]!.get('all'));
}

/** POSTs a raw JSON body (so numbers like 9007199254740993 and -0 reach the server as written). */
async function post(token: string, body: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${srv.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body,
  });
  return { status: res.status, body: await res.json() };
}

const UPDATE = 'mutation($id: ID!, $a: JSON!) { updateEntityAttributes(id: $id, attributes: $a) { message } }';
const update = (id: string, attrs: string) =>
  JSON.stringify({ query: UPDATE, variables: { id, a: '__A__' } }).replace('"__A__"', attrs);
const RELATE =
  'mutation($i: CreateRelationshipInput!) { createRelationship(input: $i) { created relationship { type } } }';

type Case = { name: string; body: () => string; status?: number; code: string; field?: RegExp; message: RegExp };

const CASES: Case[] = [
  {
    name: '101 attribute keys in one call',
    body: () => update(vm, JSON.stringify(Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])))),
    code: 'BAD_USER_INPUT',
    field: /^attributes$/,
    message: /101 keys in one call; the limit is 100/,
  },
  {
    name: 'a key of 129 characters',
    body: () => update(vm, JSON.stringify({ [`k${'x'.repeat(128)}`]: 1 })),
    code: 'BAD_USER_INPUT',
    field: /^attributes\.k/,
    message: /max 128/,
  },
  {
    name: 'a 9 KiB value',
    body: () => update(vm, JSON.stringify({ note: 'x'.repeat(9 * 1024) })),
    code: 'BAD_USER_INPUT',
    field: /^attributes\.note$/,
    message: /9216 bytes; the limit is 8192/,
  },
  {
    name: 'a list of 9 KiB in all',
    body: () => update(vm, JSON.stringify({ lines: ['a', 'b', 'c'].map((c) => c.repeat(3 * 1024)) })),
    code: 'BAD_USER_INPUT',
    field: /^attributes\.lines$/,
    message: /9216 bytes; the limit is 8192/,
  },
  {
    name: 'a mixed-type list',
    body: () => update(vm, '{"mixed": [1, "a", true]}'),
    code: 'BAD_USER_INPUT',
    field: /^attributes\.mixed$/,
    message: /one type/,
  },
  {
    name: 'an integer beyond 2^53',
    body: () => update(vm, '{"big": 9007199254740993}'),
    code: 'BAD_USER_INPUT',
    field: /^attributes\.big$/,
    message: /beyond ±2\^53/,
  },
  {
    name: '-0',
    body: () => update(vm, '{"zero": -0}'),
    code: 'BAD_USER_INPUT',
    field: /^attributes\.zero$/,
    message: /-0/,
  },
  {
    name: 'an attribute write to a destroyed resource',
    body: () => update(gone, '{"note": "still here?"}'),
    code: 'BAD_USER_INPUT',
    field: /^id$/,
    message: /destroyed/,
  },
  {
    name: 'a 5 KiB evidence',
    body: () =>
      JSON.stringify({
        query: RELATE,
        variables: { i: { source: vm, target: other, type: 'DEPENDS_ON', evidence: 'e'.repeat(5 * 1024) } },
      }),
    code: 'BAD_USER_INPUT',
    field: /^input\.evidence$/,
    message: /5120 bytes; the limit is 4096/,
  },
  {
    name: 'an edge from a destroyed resource',
    body: () =>
      JSON.stringify({ query: RELATE, variables: { i: { source: gone, target: other, type: 'DEPENDS_ON' } } }),
    code: 'BAD_USER_INPUT',
    field: /^input\.source$/,
    message: /destroyed/,
  },
  {
    name: 'a body over 1 MiB',
    body: () => update(vm, JSON.stringify({ note: 'x'.repeat(1100 * 1024) })),
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    message: /the limit is 1048576 \(AITIA_MAX_BODY_BYTES\)/,
  },
];

const nest = (depth: number) => {
  let q = 'id';
  for (let i = 0; i < depth; i++) q = `relationships { nodes { target { ${q} } } }`;
  return `{ resources { nodes { ${q} } } }`;
};

CASES.push(
  {
    name: 'a wrong enum value in variables',
    body: () =>
      JSON.stringify({
        query: 'query($l: Lifecycle) { resources(filter: {lifecycle: $l}) { totalCount } }',
        variables: { l: 'nope' },
      }),
    code: 'GRAPHQL_VALIDATION_FAILED',
    message: /"nope" does not exist in "Lifecycle"/,
  },
  {
    name: 'a query past the depth limit',
    body: () => JSON.stringify({ query: nest(14) }),
    code: 'QUERY_TOO_DEEP',
    message: /depth limit of 12/,
  },
  {
    name: 'a query past the alias limit',
    body: () =>
      JSON.stringify({ query: `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: about { version }`).join(' ')} }` }),
    code: 'TOO_MANY_ALIASES',
    message: /Aliases limit of 15/,
  },
  {
    name: 'a body that is not JSON',
    body: () => '{"query": ',
    status: 400,
    code: 'BAD_REQUEST',
    message: /invalid JSON/,
  },
);

describe('bad inputs answer a coded error and write nothing', () => {
  it.each(CASES)('$name', async (c) => {
    const before = await snapshot();
    const res = await post(srv.tokens.agent, c.body());
    expect(res.status).toBe(c.status ?? 200);
    const err = res.body.errors?.[0];
    expect(err?.extensions?.code).toBe(c.code);
    expect(err.message).toMatch(c.message);
    if (c.field) expect(err.extensions.field).toMatch(c.field);
    expect(JSON.stringify(res.body)).not.toContain('originalError');
    expect(await snapshot()).toBe(before);
  });

  it('a token expiry without a time zone is refused naming the field', async () => {
    const res = await post(
      srv.tokens.operator,
      JSON.stringify({
        query:
          'mutation { createToken(input: {name: "x-zoneless", role: agent, expiresAt: "2099-01-01T00:00:00"}) { token } }',
      }),
    );
    expect(res.body.errors[0]).toMatchObject({
      message: expect.stringMatching(/no time zone/),
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });

  it('an authenticated mutation refused before its resolver (unknown field, bad enum) is audited refused with its code', async () => {
    const unknownField = await post(
      srv.tokens.agent,
      JSON.stringify({ query: 'mutation { declareResource(input: {}) { nope } }' }),
    );
    expect(unknownField.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const badEnum = await post(
      srv.tokens.operator,
      JSON.stringify({
        query: 'mutation($r: Role!) { createToken(input: {name: "x", role: $r}) { token } }',
        variables: { r: 'emperor' },
      }),
    );
    expect(badEnum.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const refused = async () => {
      const { records } = await driver.executeQuery(
        `MATCH (a:AuditEntry) WHERE a.principal CONTAINS $scope AND a.outcome = 'refused'
           AND a.detail STARTS WITH 'GRAPHQL_' RETURN a.operation AS op, a.detail AS detail`,
        { scope },
      );
      return records.map((r) => `${r.get('op')} ${String(r.get('detail')).split(':')[0]}`).sort();
    };
    await expect
      .poll(refused, { timeout: 10_000 })
      .toEqual([`createToken ${badEnum.body.errors[0].extensions.code}`, 'declareResource GRAPHQL_VALIDATION_FAILED']);
  });

  it('a valid write still goes through (the corpus is refused for its content, not wholesale)', async () => {
    const res = await post(srv.tokens.agent, update(vm, '{"list": [1, 2, 3], "n": 9007199254740991, "z": 0}'));
    expect(res.body.errors).toBeUndefined();
    const { records } = await driver.executeQuery('MATCH (r:Resource {id: $id}) RETURN r.`attr.n` AS n', { id: vm });
    expect(records[0]!.get('n').toString()).toBe('9007199254740991');
  });
});
