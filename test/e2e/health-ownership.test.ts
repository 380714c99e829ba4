import {
  buildSchema,
  getNamedType,
  type GraphQLField,
  type GraphQLInputType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
} from 'graphql';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheck, writeHealth } from '../../src/graph/checks.js';
import { upsertResources } from '../../src/graph/resources/upsert.js';
import { CheckDefinitionSchema, type Role, ROLES } from '../../src/model/index.js';
import { loadTypeDefs } from '../../src/server/graphql-schema.js';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { checkNetworkAllowing } from '../support/probe-target.js';

/**
 * Health is what probes say, never what a caller asserts. This test introspects the served schema,
 * calls EVERY mutation with plausible arguments as every role (agent first), and checks after each
 * call that health, last_check and lastCheckAt of the resources are exactly what the scheduler
 * wrote. A mutation added later is covered automatically: its arguments are generated from its
 * types, with forged health values wherever a value is free-form.
 */
const { driver, scope } = useGraph();
const a = `manual:service/${scope}-a`;
const b = `manual:service/${scope}-b`;
const vm = `proxmox:lab-${scope}/qemu/300`;
const RESOURCES = [a, b, vm];
const FORGED = {
  health: 'healthy',
  last_check: 'forged',
  last_check_at: '2001-01-01T00:00:00Z',
  lastCheckAt: '2001-01-01T00:00:00Z',
  owner: 'team-x',
};
const SEEDED: Record<string, { health: string; last_check: string; lastCheckAt: string }> = {};
let srv: TestServer;
let checkId: string;

const sdl = buildSchema(loadTypeDefs().join('\n'));

/** Hand-written plausible arguments for the mutations we know; the rest are generated. */
function knownCases(): Record<string, Array<Record<string, unknown>>> {
  return {
    updateEntityAttributes: [
      { id: a, attributes: FORGED },
      { id: vm, attributes: { ...FORGED, health: 'unhealthy' } },
    ],
    createRelationship: [{ input: { source: a, target: b, type: 'DEPENDS_ON', evidence: 'health: healthy' } }],
    removeRelationship: [{ input: { source: a, target: b, type: 'DEPENDS_ON' } }],
    createCheck: [
      { input: { resourceId: a, kind: 'provider_state' } },
      {
        input: {
          resourceId: b,
          kind: 'http',
          http: { url: 'http://127.0.0.1:9/health', expectedStatus: 200 },
          intervalSeconds: 5,
          critical: true,
        },
      },
      { input: { resourceId: vm, kind: 'proxmox_agent' } },
    ],
    removeCheck: [{ id: checkId }],
  };
}

/** A plausible value for an input type, forging health wherever the value is free-form. */
function valueFor(type: GraphQLInputType, name: string): unknown {
  if (isNonNullType(type)) return valueFor(type.ofType, name);
  if (isListType(type)) return [valueFor(type.ofType, name)];
  if (isEnumType(type)) {
    const values = type.getValues().map((v) => v.name);
    return (
      values.find((v) => ['unhealthy', 'healthy', 'DEPENDS_ON', 'service', 'manual', 'active'].includes(v)) ?? values[0]
    );
  }
  if (isInputObjectType(type)) {
    return Object.fromEntries(Object.values(type.getFields()).map((f) => [f.name, valueFor(f.type, f.name)]));
  }
  if (isScalarType(type)) {
    if (type.name === 'ID') return /target|to/i.test(name) ? b : a;
    if (type.name === 'JSON') return FORGED;
    if (type.name === 'DateTime') return DateTime.utc().toISO();
    if (type.name === 'Int' || type.name === 'Float')
      return /port/i.test(name) ? 80 : /interval/i.test(name) ? 60 : /first|limit|depth/i.test(name) ? 10 : 1;
    if (type.name === 'Boolean') return true;
    if (/url/i.test(name)) return 'http://127.0.0.1:9/';
    if (/key/i.test(name)) return 'health';
    return name === 'reason' || name === 'evidence' ? 'health: healthy' : 'healthy';
  }
  return null;
}

function operationFor(field: GraphQLField<unknown, unknown>): string {
  const vars = field.args.map((arg) => `$${arg.name}: ${String(arg.type)}`).join(', ');
  const args = field.args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
  const selection = isObjectType(getNamedType(field.type)) ? ' { __typename }' : '';
  return `mutation${vars ? `(${vars})` : ''} { ${field.name}${args ? `(${args})` : ''}${selection} }`;
}

async function healthProps(): Promise<Record<string, unknown>> {
  const { records } = await driver.executeQuery(
    'UNWIND $ids AS id OPTIONAL MATCH (r:Resource {id: id}) RETURN id, r.health AS health, r.last_check AS last_check, toString(r.lastCheckAt) AS lastCheckAt',
    { ids: RESOURCES },
  );
  return Object.fromEntries(
    records.map((r) => [
      r.get('id'),
      { health: r.get('health'), last_check: r.get('last_check'), lastCheckAt: r.get('lastCheckAt') },
    ]),
  );
}

beforeAll(async () => {
  srv = await startTestServer(driver, { checkNetwork: checkNetworkAllowing('127.0.0.1') });
  await upsertResources(driver, [
    { id: a, kind: 'service', provider: 'manual', name: `${scope}-a`, state: 'up' },
    { id: b, kind: 'service', provider: 'manual', name: `${scope}-b`, state: 'up' },
    {
      id: vm,
      kind: 'vm',
      provider: 'proxmox',
      name: `vm300-${scope}`,
      state: 'running',
      attributes: { qemu_guest_agent: 'running' },
    },
  ]);
  const at = '2026-03-01T12:00:00.000Z';
  await writeHealth(driver, [
    { resourceId: a, health: 'degraded', lastCheck: 'degraded: seeded by the test', at },
    { resourceId: b, health: 'unhealthy', lastCheck: 'unhealthy: seeded by the test', at },
    { resourceId: vm, health: 'unknown', lastCheck: 'unknown: seeded by the test', at },
  ]);
  Object.assign(SEEDED, await healthProps());
  const definition = CheckDefinitionSchema.parse({ kind: 'tcp', spec: { host: '127.0.0.1', port: 9 } });
  checkId = (
    await createCheck(driver, {
      resourceId: a,
      definition,
      intervalSeconds: 60,
      critical: false,
      createdBy: 'seed',
      at,
    })
  ).check.id;
});
afterAll(async () => srv?.close());

describe('no GraphQL mutation can change health', () => {
  it('the schema an agent token introspects has the same mutations as the SDL', async () => {
    const { body } = await srv.gql(
      srv.tokens.agent,
      '{ __schema { mutationType { fields(includeDeprecated: true) { name } } } }',
    );
    const served = body.data.__schema.mutationType.fields.map((f: { name: string }) => f.name).sort();
    expect(served).toEqual(Object.keys(sdl.getMutationType()!.getFields()).sort());
    expect(served).toEqual(
      expect.arrayContaining(['updateEntityAttributes', 'createRelationship', 'createCheck', 'removeCheck']),
    );
  });

  const roles: Role[] = ['agent', ...ROLES.filter((r) => r !== 'agent')];
  it.each(roles)(
    'as %s: every mutation, called with plausible (and forged) arguments, leaves health, last_check and lastCheckAt unchanged',
    async (role) => {
      expect(SEEDED[a]).toMatchObject({
        health: 'degraded',
        last_check: 'degraded: seeded by the test',
        lastCheckAt: '2026-03-01T12:00:00Z',
      });
      const fields = Object.values(sdl.getMutationType()!.getFields());
      const known = knownCases();
      const outcomes: string[] = [];
      for (const field of fields) {
        const cases = known[field.name] ?? [
          Object.fromEntries(field.args.map((arg) => [arg.name, valueFor(arg.type, arg.name)])),
        ];
        for (const variables of cases) {
          const { status, body } = await srv.gql(srv.tokens[role], operationFor(field), variables);
          expect(status, field.name).toBeLessThan(500);
          outcomes.push(`${field.name}:${body.errors ? (body.errors[0].extensions?.code ?? 'error') : 'ok'}`);
          expect(await healthProps(), `${role} ${field.name} ${JSON.stringify(variables)}`).toEqual(SEEDED);
        }
      }
      if (process.env.AITIA_TEST_SHOW) console.log(role, outcomes.join(' '));
      // Not vacuous: the mutations that are open to this role really ran.
      if (role === 'agent')
        expect(outcomes).toEqual(
          expect.arrayContaining(['updateEntityAttributes:ok', 'createRelationship:ok', 'createCheck:FORBIDDEN']),
        );
      if (role === 'operator')
        expect(outcomes).toEqual(
          expect.arrayContaining([
            'updateEntityAttributes:ok',
            'createCheck:ok',
            'removeCheck:ok',
            'removeRelationship:ok',
          ]),
        );
    },
  );

  it('the forged values landed, if anywhere, as descriptive attributes — never as health', async () => {
    const { body } = await srv.gql(srv.tokens.agent, `{ resource(id: "${a}") { health lastCheckAt attributes } }`);
    expect(body.data.resource.health).toBe('degraded');
    expect(body.data.resource.lastCheckAt).toBe('2026-03-01T12:00:00Z');
    expect(body.data.resource.attributes).toMatchObject({ owner: 'team-x' });
    expect(body.data.resource.attributes).not.toHaveProperty('health');
  });
});
