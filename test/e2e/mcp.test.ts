import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type CallToolResult, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCondition } from '../../src/graph/conditions.js';
import { upsertEdges } from '../../src/graph/edges.js';
import { upsertEvents } from '../../src/graph/events.js';
import { upsertResources } from '../../src/graph/resources/upsert.js';
import { MAX_ANSWER_BYTES, toolsFor } from '../../src/mcp/server.js';
import { correlateChanges } from '../../src/pipeline/correlate.js';
import type { Role } from '../../src/model/index.js';
import { builtCli, cliEnv } from '../support/cli.js';
import { useGraph } from '../support/graph.js';
import { taskEvent, useEventCleanup } from '../support/proxmox-tasks.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { checkNetworkAllowing } from '../support/probe-target.js';

/*
 * The MCP tools end to end with the official client SDK, over both transports: streamable HTTP at
 * /mcp on the real server (127.0.0.1, free port), and stdio to the real `aitia mcp` process.
 */

const { driver, scope } = useGraph();
useEventCleanup(driver, scope);
let srv: TestServer;
let cli: string;
let dataDir: string;
const ids = {
  host: `proxmox:${scope}/node/pve1`,
  web: `proxmox:${scope}/qemu/101`,
  big: `proxmox:${scope}/qemu/102`,
  shop: `manual:service/${scope}-shop`,
  dns: `manual:service/${scope}-dns`,
  db: `manual:service/${scope}-db`,
};
const webName = `web01-${scope}`;

beforeAll(async () => {
  cli = await builtCli();
  dataDir = mkdtempSync(join(tmpdir(), 'aitia-mcp-'));
  srv = await startTestServer(driver, { checkNetwork: checkNetworkAllowing('127.0.0.1') });
  await upsertResources(driver, [
    { id: ids.host, kind: 'host', provider: 'proxmox', name: `pve1-${scope}`, state: 'online' },
    {
      id: ids.web,
      kind: 'vm',
      provider: 'proxmox',
      name: webName,
      state: 'running',
      rawState: 'running',
      attributes: { qemu_guest_agent: 'running' },
    },
    // Over 256 KiB of attributes: no answer that carries them fits.
    {
      id: ids.big,
      kind: 'vm',
      provider: 'proxmox',
      name: `big-${scope}`,
      state: 'stopped',
      rawState: 'stopped',
      attributes: { blob: Array.from({ length: 70 }, (_, i) => `${i}`.padEnd(4000, 'x')) },
    },
    { id: ids.shop, kind: 'service', provider: 'manual', name: `${scope}-shop`, state: 'up' },
    { id: ids.dns, kind: 'service', provider: 'manual', name: `${scope}-dns`, state: 'up' },
    { id: ids.db, kind: 'service', provider: 'manual', name: `${scope}-db`, state: 'up' },
  ]);
  await upsertEdges(driver, [
    { type: 'RUNS_ON', fromId: ids.web, toId: ids.host, provenance: 'observed', source: `proxmox:${scope}` },
    { type: 'RUNS_ON', fromId: ids.big, toId: ids.host, provenance: 'observed', source: `proxmox:${scope}` },
    { type: 'RUNS_ON', fromId: ids.shop, toId: ids.web, provenance: 'declared', source: 'seed' },
  ]);
}, 180_000);
afterAll(async () => {
  await srv?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The environment of a spawned `aitia mcp`: only what it needs (unknown AITIA_* names are refused). */
function mcpEnv(token: string | null): Record<string, string> {
  return cliEnv({
    AITIA_DATA_DIR: dataDir,
    AITIA_TOKENS_FILE: srv.tokensFile,
    AITIA_LOG_LEVEL: 'warn',
    ...(token ? { AITIA_TOKEN: token } : {}),
  });
}

interface Surface {
  name: 'http' | 'stdio';
  /** The resource this surface's agent declares a dependency on (each its own edge). */
  dependency: string;
  connect(role: Role): Promise<Client>;
}

const clients: Client[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
});

async function connected(transport: StreamableHTTPClientTransport | StdioClientTransport): Promise<Client> {
  const client = new Client({ name: 'aitia-e2e', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const SURFACES: Surface[] = [
  {
    name: 'http',
    dependency: ids.dns,
    connect: (role) =>
      connected(
        new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${srv.tokens[role]}` } },
        }),
      ),
  },
  {
    name: 'stdio',
    dependency: ids.db,
    connect: (role) =>
      connected(
        new StdioClientTransport({
          command: process.execPath,
          args: [cli, 'mcp'],
          env: mcpEnv(srv.tokens[role]),
          stderr: 'inherit',
        }),
      ),
  },
];

/** A tool's structured answer, after checking it is not an error. */
function answer(result: CallToolResult): any {
  expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
  expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
  return result.structuredContent;
}

/** A tool error's code, message and field. */
function refusal(result: CallToolResult): { code: string; message: string; field?: string; [k: string]: unknown } {
  expect(result.isError).toBe(true);
  const { error } = result.structuredContent as { error: any };
  expect((result.content[0] as { text: string }).text).toBe(`${error.code}: ${error.message}`);
  return error;
}

describe.each(SURFACES)('MCP over $name', (surface) => {
  let agent: Client;
  let operator: Client;
  beforeAll(async () => {
    [agent, operator] = await Promise.all([surface.connect('agent'), surface.connect('operator')]);
  }, 60_000);

  it('lists to an agent and to an operator the tools their roles may call', async () => {
    const agentTools = (await agent.listTools()).tools;
    const operatorTools = (await operator.listTools()).tools;
    expect(agentTools.map((t) => t.name)).toEqual(toolsFor({ name: 'a', role: 'agent' }).map((t) => t.name));
    expect(operatorTools.map((t) => t.name)).toEqual(toolsFor({ name: 'o', role: 'operator' }).map((t) => t.name));
    expect(operatorTools.map((t) => t.name)).toContain('audit_log');
    expect(agentTools.map((t) => t.name)).not.toContain('audit_log');
    const byName = new Map(operatorTools.map((t) => [t.name, t]));
    expect(byName.get('resource_get')!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName.get('create_relationship')!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
    });
    expect(byName.get('update_entity_attributes')!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
    for (const t of operatorTools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type).toBe('object');
    }
    expect(byName.get('relations')!.inputSchema.properties).toMatchObject({
      direction: { enum: ['OUT', 'IN', 'BOTH'] },
      first: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
    });
  });

  it('reads a resource by its kind:name slug, and pages a search', async () => {
    const vm = answer(await agent.callTool({ name: 'resource_get', arguments: { id: `vm:${webName}` } }));
    expect(vm).toMatchObject({
      id: ids.web,
      slug: `vm:${webName}`,
      kind: 'vm',
      state: 'running',
      health: 'unknown',
      attributes: { qemu_guest_agent: 'running' },
    });
    const args = { filter: { kind: 'service', nameContains: scope }, first: 2 };
    const first = answer(await agent.callTool({ name: 'resources_search', arguments: args }));
    expect(first.totalCount).toBe(3);
    expect(first.resources.map((r: any) => r.id)).toEqual([ids.db, ids.dns]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const next = answer(
      await agent.callTool({ name: 'resources_search', arguments: { ...args, after: first.nextCursor } }),
    );
    expect(next.resources.map((r: any) => r.id)).toEqual([ids.shop]);
    expect(next.nextCursor).toBeNull();
  });

  it('walks the blast radius a page at a time, with each edge’s ends', async () => {
    const walk = answer(
      await agent.callTool({ name: 'dependents', arguments: { id: ids.host, maxDepth: 3, first: 1 } }),
    );
    expect(walk).toMatchObject({ root: { id: ids.host }, maxDepth: 3, count: 3 });
    expect(walk.reached).toHaveLength(1);
    const rest = answer(
      await agent.callTool({ name: 'dependents', arguments: { id: ids.host, first: 5, after: walk.nextCursor } }),
    );
    expect([...walk.reached, ...rest.reached].map((r: any) => r.resource.id).sort()).toEqual(
      [ids.web, ids.big, ids.shop].sort(),
    );
    expect(rest.nextCursor).toBeNull();
    const rel = answer(await agent.callTool({ name: 'relations', arguments: { id: ids.web, direction: 'IN' } }));
    expect(rel.relations).toEqual([
      expect.objectContaining({
        type: 'RUNS_ON',
        provenance: 'declared',
        from: expect.objectContaining({ id: ids.shop, slug: `service:${scope}-shop` }),
        to: expect.objectContaining({ id: ids.web }),
      }),
    ]);
  });

  it('records a dependency (created, then idempotent), audited as coming through mcp', async () => {
    const args = {
      source: `service:${scope}-shop`,
      target: surface.dependency,
      type: 'DEPENDS_ON',
      evidence: 'resolv.conf: nameserver 10.20.0.53',
    };
    const created = answer(await agent.callTool({ name: 'create_relationship', arguments: args }));
    expect(created).toMatchObject({
      created: true,
      relationship: {
        type: 'DEPENDS_ON',
        fromId: ids.shop,
        toId: surface.dependency,
        provenance: 'declared',
        source: 'test-agent',
        evidence: args.evidence,
      },
    });
    const again = answer(await agent.callTool({ name: 'create_relationship', arguments: args }));
    expect(again.created).toBe(false);
    const audit = answer(
      await operator.callTool({
        name: 'audit_log',
        arguments: { filter: { operation: 'createRelationship', targetId: surface.dependency } },
      }),
    );
    expect(audit.entries).toEqual([
      expect.objectContaining({ principal: 'test-agent', role: 'agent', outcome: 'ok', via: 'mcp' }),
      expect.objectContaining({ principal: 'test-agent', role: 'agent', outcome: 'ok', via: 'mcp' }),
    ]);
  });

  it('refuses to write health through attributes, with the reason, and merges the rest', async () => {
    const result = answer(
      await agent.callTool({
        name: 'update_entity_attributes',
        arguments: { id: ids.dns, attributes: { health: 'healthy', [`owner_${surface.name}`]: 'team-a' } },
      }),
    );
    expect(result.ignored).toEqual([{ key: 'health', reason: expect.stringMatching(/scheduler/) }]);
    expect(result.message).toMatch(/health is scheduler-owned/);
    expect(result.resource.health).toBe('unknown');
    expect(result.resource.attributes[`owner_${surface.name}`]).toBe('team-a');
  });

  it('classify_action gives the same answer as GraphQL classifyAction, field by field', async () => {
    const question = { target: `vm:${webName}`, action: 'run', command: 'apt-get install -y nfs-kernel-server' };
    const mcp = answer(await agent.callTool({ name: 'classify_action', arguments: question }));
    const { body } = await srv.gql(
      srv.tokens.agent,
      `query($input: ClassifyActionInput!) { classifyAction(input: $input) {
        riskClass autonomy approval blocked reasons policyDigest
        matchedRule { index entityType action scopeEntity riskClass autonomyLevel matchedBy }
        preflight { check ok blocking message }
        target { id slug name kind entityType lifecycle inGraph notes resource { id slug } } } }`,
      { input: question },
    );
    const gql = body.data.classifyAction;
    for (const field of ['riskClass', 'autonomy', 'approval', 'blocked', 'reasons', 'policyDigest'] as const) {
      expect(mcp[field], field).toEqual(gql[field]);
    }
    expect(mcp.matchedRule).toEqual(gql.matchedRule);
    expect(mcp.preflight).toEqual(gql.preflight);
    const { resource, ...target } = mcp.target;
    const { resource: gqlResource, ...gqlTarget } = gql.target;
    expect(target).toEqual(gqlTarget);
    expect({ id: resource.id, slug: resource.slug }).toEqual(gqlResource);
    expect(mcp.riskClass).toBe('config_mutation');
  });

  it('refuses a tool the role may not call with FORBIDDEN naming the permission', async () => {
    const error = refusal(await agent.callTool({ name: 'audit_log', arguments: {} }));
    expect(error).toMatchObject({ code: 'FORBIDDEN', permission: 'audit:read' });
    expect(error.message).toMatch(/test-agent \(role agent\) lacks permission audit:read; it is held by: operator/);
  });

  it('refuses bad arguments with BAD_USER_INPUT naming the field, and unknown ids with NOT_FOUND', async () => {
    const deep = refusal(await agent.callTool({ name: 'dependents', arguments: { id: ids.web, maxDepth: 11 } }));
    expect(deep).toMatchObject({ code: 'BAD_USER_INPUT', field: 'maxDepth' });
    expect(deep.message).toMatch(/^maxDepth: /);
    const big = refusal(await agent.callTool({ name: 'resources_search', arguments: { first: 501 } }));
    expect(big).toMatchObject({ code: 'BAD_USER_INPUT', field: 'first', message: 'first: must be at most 500' });
    const unknown = refusal(await agent.callTool({ name: 'relations', arguments: { id: ids.web, depth: 2 } }));
    expect(unknown).toMatchObject({ code: 'BAD_USER_INPUT', field: 'depth' });
    const missing = refusal(await agent.callTool({ name: 'resource_get', arguments: { id: `vm:nothing-${scope}` } }));
    expect(missing).toMatchObject({
      code: 'NOT_FOUND',
      field: 'id',
      message: `id: resource vm:nothing-${scope} not found`,
    });
    const self = refusal(
      await agent.callTool({
        name: 'create_relationship',
        arguments: { source: ids.shop, target: ids.shop, type: 'DEPENDS_ON' },
      }),
    );
    expect(self).toMatchObject({ code: 'BAD_USER_INPUT', field: 'target' });
    expect(self.message).toMatch(/^target: a DEPENDS_ON edge from .* to itself is not allowed/);
  });

  it(`refuses an answer over ${MAX_ANSWER_BYTES / 1024} KiB of JSON, saying how to narrow it`, async () => {
    const page = refusal(
      await agent.callTool({ name: 'resources_search', arguments: { filter: { nameContains: `big-${scope}` } } }),
    );
    expect(page).toMatchObject({ code: 'BAD_USER_INPUT', field: 'first' });
    expect(page.message).toMatch(/^first: the answer is \d+ KiB of JSON, over the 256 KiB limit: ask for fewer/);
    const one = refusal(await agent.callTool({ name: 'resource_get', arguments: { id: ids.big } }));
    expect(one.message).toMatch(/over the 256 KiB limit: narrow the arguments/);
  });
});

describe('MCP over streamable HTTP', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
  };
  const post = (headers: Record<string, string>) =>
    fetch(`${srv.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(initialize),
    });

  it('answers 401 without a token or with an unknown one, before any MCP work', async () => {
    for (const [headers, message] of [
      [{}, 'missing bearer token: send Authorization: Bearer <token>'],
      [{ authorization: 'Bearer nope' }, 'unknown bearer token'],
    ] as const) {
      const res = await post(headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="aitia"');
      expect(await res.json()).toMatchObject({ error: { message, data: { code: 'UNAUTHENTICATED' } } });
    }
    const client = new Client({ name: 'aitia-e2e', version: '1.0.0' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`)))).rejects.toMatchObject({
      status: 401,
      message: expect.stringMatching(/missing bearer token/),
    });
  });

  it('answers every reading tool from real data, within the output schema it declares', async () => {
    // The client checks each structuredContent against the tool's outputSchema: a drift is an error.
    const t = (s: number) => new Date(Date.parse('2026-05-14T02:08:31Z') + s * 1000).toISOString();
    const nested = `proxmox:${scope}/qemu/103`;
    const esxi = `vcenter:${scope}/host/host-1`;
    await upsertResources(driver, [
      { id: nested, kind: 'vm', provider: 'proxmox', name: `nested-${scope}`, state: 'running', rawState: 'running' },
      { id: esxi, kind: 'host', provider: 'vcenter', name: `esxi-${scope}`, state: 'online' },
    ]);
    await upsertEdges(driver, [
      {
        type: 'MANIFESTS_AS',
        fromId: esxi,
        toId: nested,
        provenance: 'inferred',
        source: 'identity',
        rule: 'mac_address',
        confidence: 'high',
      },
    ]);
    const stop = { node: 'pve1', type: 'qmstop', id: '101', user: 'alice@pve', start: t(-2), end: t(-1) };
    await upsertEvents(driver, [taskEvent(scope, stop)]);
    const change = { id: ids.web, kind: 'vm' as const, from: 'running', to: 'stopped', rawState: 'stopped' };
    await correlateChanges({ driver, suppression: 'shadow' }, [change], { observedAt: t(0), observer: 'e2e' });
    await openCondition(driver, { resourceId: ids.dns, type: 'paused_io_error', evidence: { reason: 'io-error' } });
    const check = await srv.gql(
      srv.tokens.operator,
      `mutation($r: ID!) { createCheck(input: {resourceId: $r, kind: tcp, tcp: {host: "127.0.0.1", port: 9}}) { created } }`,
      { r: ids.dns },
    );
    expect(check.body.data.createCheck.created).toBe(true);

    const client = await SURFACES[0]!.connect('agent');
    const call = async (name: string, args: Record<string, unknown>) =>
      answer(await client.callTool({ name, arguments: args }));

    const [stored] = (await call('transitions', { resourceId: `vm:${webName}` })).transitions;
    expect(stored).toMatchObject({ from: 'running', to: 'stopped', rawTo: 'stopped', observer: 'e2e' });
    expect(stored.attribution).toMatchObject({ confidence: 'high', actor: 'alice@pve', actorKind: 'human' });
    expect(stored.attribution.events[0]).toMatchObject({ role: 'cause', type: 'vm_stop', rawType: 'qmstop' });
    const explained = await call('explain_transition', {
      resourceId: ids.web,
      from: 'running',
      to: 'stopped',
      at: t(0),
    });
    expect(explained).toMatchObject({ resourceId: ids.web, at: t(0), attribution: { confidence: 'high' } });
    expect(explained.narrative).toMatch(/Stopped by alice@pve/);
    const past = await call('state_at', { resourceId: ids.web, at: t(60) });
    expect(past).toMatchObject({ state: 'stopped', basis: 'transition', transition: { id: stored.id } });
    const same = await call('identity', { id: nested });
    expect(same.links).toEqual([
      {
        relationship: expect.objectContaining({ rule: 'mac_address' }),
        resource: expect.objectContaining({ id: esxi }),
      },
    ]);
    const health = await call('health_summary', { under: `service:${scope}-dns` });
    // What lies under the service depends on the tests before this one; none of it has been probed.
    expect(health.total).toBeGreaterThanOrEqual(1);
    expect(health.counts).toEqual(expect.arrayContaining([{ health: 'unknown', count: health.total }]));
    const open = await call('open_conditions', { resourceId: ids.dns });
    expect(open).toMatchObject({
      total: 1,
      nextCursor: null,
      conditions: [{ type: 'paused_io_error', status: 'open' }],
    });
    const checks = await call('list_checks', { resourceId: ids.dns });
    expect(checks.checks).toEqual([
      expect.objectContaining({ kind: 'tcp', target: '127.0.0.1:9', failing: false, latest: null, results: [] }),
    ]);
  });

  it('serves a client that negotiates the protocol era too (2026-07-28 when it can)', async () => {
    const client = new Client({ name: 'aitia-e2e', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${srv.tokens.agent}` } },
      }),
    );
    clients.push(client);
    expect(client.getProtocolEra()).toBe('modern');
    const vm = answer(await client.callTool({ name: 'resource_get', arguments: { id: ids.web } }));
    expect(vm.slug).toBe(`vm:${webName}`);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('audit_log');
  });
});

describe('aitia mcp (stdio)', () => {
  /** Runs `aitia mcp` with stdin closed at once: its exit code and what it wrote. */
  function run(token: string | null): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [cli, 'mcp'], { env: mcpEnv(token), stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end();
    });
  }

  it('exits non-zero with a clear message on an unknown token, and without one', async () => {
    const bad = await run('aitia_agent_not-a-real-token');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^aitia mcp: AITIA_TOKEN is not a token of .*tokens\.json \(unknown bearer token\)/);
    expect(bad.stdout).toBe('');
    const none = await run(null);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^aitia mcp: no token: set AITIA_TOKEN/);
  });

  it('exits 0 when the client closes stdin', async () => {
    const done = await run(srv.tokens.agent);
    expect(done.code).toBe(0);
    expect(done.stdout).toBe('');
  });
});
