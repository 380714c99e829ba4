import { Client, type CallToolResult, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { upsertResources } from '../../src/graph/resources/upsert.js';
import { DEFAULT_POLICY_PATH, type LoadedPolicy, parsePolicy } from '../../src/policy/index.js';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';

/*
 * Issue 30, findings 7 and 16 over HTTP: an owned key is owned in any spelling (Health is health),
 * entity_type — which chooses the policy rule — is the operators' (FORBIDDEN to an agent, nothing
 * written), one nobody vouches for meets the stricter rule, and updateEntityAttributes names its
 * resource by id or slug as every other operation does, over GraphQL and MCP.
 */
const { driver, scope } = useGraph();
let srv: TestServer;
let mcp: Client;

const ids = {
  vm: `proxmox:lab-${scope}/qemu/301`,
  api: `manual:service/api-${scope}`,
  legacy: `manual:service/legacy-${scope}`,
  twinA: `proxmox:lab-${scope}/qemu/302`,
  twinB: `proxmox:lab-${scope}/qemu/303`,
  owned: `proxmox:lab-${scope}/qemu/304`,
};
const names = { vm: `web01-${scope}`, api: `api-${scope}`, twin: `twin-${scope}` };

/** The shipped policy, trusting reversible actions, with a docker-container rule looser than the service one. */
function loosePolicy(): LoadedPolicy {
  const doc = parse(readFileSync(DEFAULT_POLICY_PATH, 'utf8'));
  doc.autonomy_settings.global.auto_act = 'reversible_low';
  doc.approval_rules.push(
    { entity_type: 'service', action: 'purge', risk_class: 'destructive', autonomy_level: 'never' },
    { entity_type: 'docker-container', action: 'purge', risk_class: 'reversible_low', autonomy_level: 'auto' },
  );
  const parsed = parsePolicy(stringify(doc));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return { policy: parsed.policy, digest: parsed.digest, path: '/test/loose.yaml' };
}

const UPDATE = `mutation($id: ID!, $a: JSON!) { updateEntityAttributes(id: $id, attributes: $a) {
  message ignored { key reason } resource { id attributes } } }`;
const CLASSIFY = `query($input: ClassifyActionInput!) { classifyAction(input: $input) {
  riskClass autonomy approval reasons matchedRule { entityType action } target { entityType notes } } }`;

async function stored(id: string): Promise<Record<string, unknown>> {
  const { records } = await driver.executeQuery('MATCH (r:Resource {id: $id}) RETURN properties(r) AS p', { id });
  return records[0]!.get('p');
}

function attrsOf(props: Record<string, unknown>): string[] {
  return Object.keys(props)
    .filter((k) => k.startsWith('attr.'))
    .sort();
}

async function classify(target: string, action: string) {
  const { body } = await srv.gql(srv.tokens.agent, CLASSIFY, { input: { target, action } });
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data.classifyAction;
}

function toolError(result: CallToolResult): { code: string; message: string; field?: string } {
  expect(result.isError).toBe(true);
  return (result.structuredContent as { error: { code: string; message: string; field?: string } }).error;
}

beforeAll(async () => {
  srv = await startTestServer(driver, { policy: loosePolicy() });
  await upsertResources(driver, [
    { id: ids.vm, kind: 'vm', provider: 'proxmox', name: names.vm, state: 'running' },
    { id: ids.api, kind: 'service', provider: 'manual', name: names.api, state: 'up' },
    { id: ids.legacy, kind: 'service', provider: 'manual', name: `legacy-${scope}`, state: 'up' },
    { id: ids.twinA, kind: 'vm', provider: 'proxmox', name: names.twin, state: 'running' },
    { id: ids.twinB, kind: 'vm', provider: 'proxmox', name: names.twin, state: 'running' },
    {
      id: ids.owned,
      kind: 'vm',
      provider: 'proxmox',
      name: `owned-${scope}`,
      state: 'running',
      attributes: { qemu_guest_agent: true },
    },
  ]);
  // An agent's entity_type from before it was owned: no record of an operator or provider writing it.
  await driver.executeQuery("MATCH (r:Resource {id: $id}) SET r.`attr.entity_type` = 'docker-container'", {
    id: ids.legacy,
  });
  mcp = new Client({ name: 'aitia-e2e', version: '1.0.0' });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${srv.tokens.agent}` } },
    }),
  );
}, 60_000);
afterAll(async () => {
  await mcp?.close();
  await srv?.close();
});

describe('updateEntityAttributes names its resource by id or slug (finding 16)', () => {
  it('accepts the kind:name slug every other operation accepts', async () => {
    const { body } = await srv.gql(srv.tokens.agent, UPDATE, { id: `vm:${names.vm}`, a: { owner: 'team-web' } });
    expect(body.errors).toBeUndefined();
    expect(body.data.updateEntityAttributes.resource).toEqual({ id: ids.vm, attributes: { owner: 'team-web' } });
    const byId = await srv.gql(srv.tokens.agent, UPDATE, { id: ids.vm, a: { role: 'frontend' } });
    expect(byId.body.data.updateEntityAttributes.resource.attributes).toEqual({ owner: 'team-web', role: 'frontend' });
  });

  it('an unknown slug is NOT_FOUND naming id and saying it was read as a slug', async () => {
    const { body } = await srv.gql(srv.tokens.agent, UPDATE, { id: `vm:nothing-${scope}`, a: { owner: 'x' } });
    expect(body.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND', field: 'id' });
    expect(body.errors[0].message).toBe(
      `id: resource vm:nothing-${scope} not found (read as a kind:name slug; a resource id starts with its provider, proxmox:…)`,
    );
  });

  it('an ambiguous or malformed ref is BAD_USER_INPUT naming id; nothing is written', async () => {
    const twin = await srv.gql(srv.tokens.agent, UPDATE, { id: `vm:${names.twin}`, a: { owner: 'x' } });
    expect(twin.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'id' });
    expect(twin.body.errors[0].message).toContain(`${ids.twinA}, ${ids.twinB}`);
    const odd = await srv.gql(srv.tokens.agent, UPDATE, { id: 'toaster:x', a: { owner: 'x' } });
    expect(odd.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'id' });
    expect(attrsOf(await stored(ids.twinA))).toEqual([]);
    expect(attrsOf(await stored(ids.twinB))).toEqual([]);
  });

  it('the MCP tool takes a slug too', async () => {
    const result = await mcp.callTool({
      name: 'update_entity_attributes',
      arguments: { id: `service:${names.api}`, attributes: { owner: 'team-api' } },
    });
    expect(result.isError ?? false).toBe(false);
    expect((result.structuredContent as any).resource).toMatchObject({
      id: ids.api,
      attributes: { owner: 'team-api' },
    });
    const missing = toolError(
      await mcp.callTool({
        name: 'update_entity_attributes',
        arguments: { id: `service:nothing-${scope}`, attributes: { owner: 'x' } },
      }),
    );
    expect(missing).toMatchObject({ code: 'NOT_FOUND', field: 'id' });
  });
});

describe('owned keys whatever their spelling, and entity_type is the operators’ (finding 7)', () => {
  it.each(['Health', 'HEALTH', 'hEaLtH', 'Last_Check', 'LastCheckAt', 'State'])(
    'an agent writing %s writes nothing under that key',
    async (key) => {
      const before = attrsOf(await stored(ids.api));
      const { body } = await srv.gql(srv.tokens.agent, UPDATE, { id: ids.api, a: { [key]: 'healthy' } });
      expect(body.errors).toBeUndefined();
      expect(body.data.updateEntityAttributes.ignored).toEqual([{ key, reason: expect.any(String) }]);
      expect(attrsOf(await stored(ids.api))).toEqual(before);
    },
  );

  it.each(['entity_type', 'Entity_Type', 'ENTITY-TYPE', 'entityType'])(
    'an agent writing %s is FORBIDDEN naming the key and its owner, over GraphQL and MCP; nothing is written',
    async (key) => {
      const before = await stored(ids.api);
      const { body } = await srv.gql(srv.tokens.agent, UPDATE, {
        id: ids.api,
        a: { owner: 'someone-else', [key]: 'docker-container' },
      });
      expect(body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', field: `attributes.${key}` });
      expect(body.errors[0].message).toMatch(new RegExp(`^attributes\\.${key}: .*operator-owned.*role agent may not$`));
      const tool = toolError(
        await mcp.callTool({
          name: 'update_entity_attributes',
          arguments: { id: ids.api, attributes: { [key]: 'docker-container' } },
        }),
      );
      expect(tool).toMatchObject({ code: 'FORBIDDEN', field: `attributes.${key}` });
      expect(await stored(ids.api)).toEqual(before);
    },
  );

  it('an agent cannot declare a resource with an entity_type either', async () => {
    const { body } = await srv.gql(
      srv.tokens.agent,
      `mutation($input: DeclareResourceInput!) { declareResource(input: $input) { created } }`,
      {
        input: {
          kind: 'service',
          name: `sneaky-${scope}`,
          evidence: 'seen in compose.yaml',
          attributes: { entity_type: 'docker-container' },
        },
      },
    );
    expect(body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', field: 'input.attributes.entity_type' });
    const { records } = await driver.executeQuery('MATCH (r:Resource {name: $n}) RETURN count(r) AS n', {
      n: `sneaky-${scope}`,
    });
    expect(records[0]!.get('n').toNumber()).toBe(0);
  });

  it('so an agent cannot make a service a docker-container to meet a looser rule', async () => {
    const d = await classify(ids.api, 'purge');
    expect(d).toMatchObject({ riskClass: 'destructive', autonomy: 'never', matchedRule: { entityType: 'service' } });
  });

  it('an operator may, and the gate then judges it by the finer type’s rule', async () => {
    const { body } = await srv.gql(srv.tokens.operator, UPDATE, {
      id: `service:${names.api}`,
      a: { entity_type: 'docker-container' },
    });
    expect(body.errors).toBeUndefined();
    expect((await stored(ids.api)).entityTypeBy).toBe('operator:test-operator');
    const d = await classify(ids.api, 'purge');
    expect(d).toMatchObject({
      riskClass: 'reversible_low',
      matchedRule: { entityType: 'docker-container' },
      target: { entityType: 'docker-container', notes: [] },
    });
    // And an agent cannot take it back off either.
    const undo = await srv.gql(srv.tokens.agent, UPDATE, { id: ids.api, a: { entity_type: null } });
    expect(undo.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('an entity_type no operator or provider vouches for meets the stricter of the two rules', async () => {
    const d = await classify(ids.legacy, 'purge');
    expect(d).toMatchObject({ riskClass: 'destructive', autonomy: 'never', matchedRule: { entityType: 'service' } });
    expect(d.target.notes).toEqual([
      'attribute entity_type="docker-container" was not written by an operator or the provider: the stricter of the docker-container and service rules applies',
    ]);
    expect(d.reasons[0]).toMatch(/is not vouched for by an operator or its provider: the service rule/);
  });
});

describe('Resource.attributeOwners: who wrote each attribute, from the API (issue 31, item 5)', () => {
  const OWNERS = `query($id: ID!) { resource(id: $id) { attributes attributeOwners { key owner principal at } } }`;
  const isoUtc = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

  it('names the agent, the operator and the provider, over GraphQL and MCP; a removed key has no owner', async () => {
    const byAgent = await srv.gql(srv.tokens.agent, UPDATE, { id: ids.owned, a: { owner_team: 'web', role: 'x' } });
    expect(byAgent.body.errors).toBeUndefined();
    const byOperator = await srv.gql(srv.tokens.operator, UPDATE, { id: ids.owned, a: { entity_type: 'vm' } });
    expect(byOperator.body.errors).toBeUndefined();
    await srv.gql(srv.tokens.agent, UPDATE, { id: ids.owned, a: { role: null } });
    const { body } = await srv.gql(srv.tokens.agent, OWNERS, { id: ids.owned });
    expect(body.errors).toBeUndefined();
    const owners = body.data.resource.attributeOwners;
    expect(owners).toEqual([
      { key: 'entity_type', owner: 'operator', principal: 'test-operator', at: expect.stringMatching(isoUtc) },
      { key: 'owner_team', owner: 'agent', principal: 'test-agent', at: expect.stringMatching(isoUtc) },
      { key: 'qemu_guest_agent', owner: 'provider', principal: 'proxmox', at: null },
    ]);
    expect(owners.map((o: { key: string }) => o.key)).toEqual(Object.keys(body.data.resource.attributes).sort());
    const tool = await mcp.callTool({ name: 'resource_get', arguments: { id: ids.owned } });
    expect(tool.isError ?? false).toBe(false);
    expect((tool.structuredContent as { attributeOwners: unknown }).attributeOwners).toEqual(owners);
  });

  it('a provider pass reporting a key a principal wrote makes it the provider’s again', async () => {
    await upsertResources(driver, [
      {
        id: ids.owned,
        kind: 'vm',
        provider: 'proxmox',
        name: `owned-${scope}`,
        state: 'running',
        attributes: { qemu_guest_agent: true, owner_team: 'platform' },
      },
    ]);
    const { body } = await srv.gql(srv.tokens.agent, OWNERS, { id: ids.owned });
    expect(body.data.resource.attributeOwners).toContainEqual({
      key: 'owner_team',
      owner: 'provider',
      principal: 'proxmox',
      at: null,
    });
  });

  it('a declared resource’s attributes are its declarer’s', async () => {
    const { body } = await srv.gql(
      srv.tokens.agent,
      `mutation($input: DeclareResourceInput!) { declareResource(input: $input) {
        resource { attributeOwners { key owner principal at } } } }`,
      { input: { kind: 'service', name: `cache-${scope}`, evidence: 'ss -ltnp: :6379', attributes: { port: 6379 } } },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.declareResource.resource.attributeOwners).toEqual([
      { key: 'port', owner: 'declared', principal: 'test-agent', at: expect.stringMatching(isoUtc) },
    ]);
  });
});
