import { ProtocolError } from '@modelcontextprotocol/server';
import { beforeAll, describe, expect, it } from 'vitest';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { pageOf } from '../../../src/mcp/paging.js';
import { callTool, createMcpServer } from '../../../src/mcp/server.js';
import { loadStartupPolicy } from '../../../src/policy/index.js';
import { useGraph } from '../../support/graph.js';
import { auditOf, principalOf, serviceDeps } from '../../support/services.js';

const { driver, scope } = useGraph();
const shipped = await loadStartupPolicy(undefined);
const webId = `proxmox:${scope}/qemu/101`;
const web = `vm:web-${scope}`;
beforeAll(async () => {
  await upsertResources(driver, [
    { id: webId, kind: 'vm', provider: 'proxmox', name: `web-${scope}`, state: 'running', rawState: 'running' },
  ]);
});

/** Service deps on the real graph (with the shipped policy unless null), recording logged errors. */
function graphDeps(policy: typeof shipped | null = shipped) {
  const deps = serviceDeps(driver, policy ?? undefined);
  const errors: Array<Record<string, unknown>> = [];
  deps.log = { ...deps.log, error: (obj: Record<string, unknown>) => errors.push(obj) } as never;
  return { deps, errors };
}

/** A tool error's structured error. */
function errorOf(result: Awaited<ReturnType<typeof callTool>>) {
  expect(result.isError).toBe(true);
  return (result.structuredContent as { error: Record<string, unknown> }).error;
}

describe('callTool', () => {
  it('answers with the structured output and the same JSON as text', async () => {
    const { deps } = graphDeps();
    const agent = principalOf(scope, 'agent');
    const result = await callTool(deps, agent, 'classify_action', { target: web, action: 'restart' });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({
      riskClass: 'reversible_low',
      target: { id: webId, resource: { id: webId, slug: web } },
    });
    // Only what the output schema names leaves: the resource is the short form.
    expect(Object.keys((result.structuredContent as any).target.resource).sort()).toEqual(
      ['health', 'id', 'kind', 'lifecycle', 'name', 'slug', 'state'].sort(),
    );
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
    expect(await auditOf(driver, agent)).toEqual([
      expect.objectContaining({ operation: 'classifyAction', outcome: 'ok' }),
    ]);
  });

  it('names the argument as the tool takes it: `input.` dropped, slug errors on the ref argument', async () => {
    const { deps } = graphDeps();
    const agent = principalOf(scope, 'agent');
    const gate = errorOf(await callTool(deps, agent, 'classify_action', { target: web, action: 'no way!' }));
    expect(gate).toMatchObject({ code: 'BAD_USER_INPUT', field: 'action' });
    expect(gate.message).toMatch(/^action: must be an action name/);
    const under = errorOf(await callTool(deps, agent, 'health_summary', { under: 'vm:nope' }));
    expect(under).toMatchObject({ code: 'NOT_FOUND', field: 'under', message: 'under: resource vm:nope not found' });
  });

  it('refuses arguments the schema does not take, naming them, before any service runs', async () => {
    const { deps } = graphDeps();
    const agent = principalOf(scope, 'agent');
    expect(errorOf(await callTool(deps, agent, 'classify_action', { target: web }))).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'action',
    });
    expect(
      errorOf(await callTool(deps, agent, 'classify_action', { target: web, action: 'x', risk: 'low' })),
    ).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'risk',
      message: 'risk: unknown argument; see the tool’s input schema',
    });
    expect(errorOf(await callTool(deps, agent, 'resources_search', { filter: { kind: 'toaster' } }))).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'filter.kind',
    });
    expect(await auditOf(driver, agent)).toEqual([]);
  });

  it('masks an unexpected failure as INTERNAL_SERVER_ERROR and logs its cause', async () => {
    const { deps, errors } = graphDeps(null); // no policy loaded: the gate cannot answer
    const agent = principalOf(scope, 'agent');
    const error = errorOf(await callTool(deps, agent, 'classify_action', { target: web, action: 'restart' }));
    expect(error).toEqual({ code: 'INTERNAL_SERVER_ERROR', message: 'Unexpected error.' });
    expect(errors).toEqual([expect.objectContaining({ tool: 'classify_action', principal: agent.name })]);
    expect((errors[0] as { err: Error }).err.message).toMatch(/no policy loaded/);
  });

  it('an unknown tool is a protocol error, as the SDK answers it', async () => {
    const { deps } = graphDeps();
    const operator = principalOf(scope, 'operator');
    await expect(callTool(deps, operator, 'drop_everything', {})).rejects.toBeInstanceOf(ProtocolError);
  });

  it('takes the arguments its GraphQL field takes: transitions filters by confidence, decision, actor and actorKind', async () => {
    const { deps } = graphDeps();
    const agent = principalOf(scope, 'agent');
    const filters = {
      resourceId: web,
      confidence: 'high',
      decision: 'annotate',
      actor: 'alice@pve',
      actorKind: 'human',
    };
    const found = await callTool(deps, agent, 'transitions', filters);
    expect(found.isError).toBeUndefined();
    expect(found.structuredContent).toEqual({ transitions: [], nextCursor: null });
    const bad = errorOf(await callTool(deps, agent, 'transitions', { confidence: 'sure' }));
    expect(bad).toMatchObject({ code: 'BAD_USER_INPUT', field: 'confidence' });
  });

  it('resources_find answers searchResources: by id, slug or part of a name, best match first', async () => {
    const { deps } = graphDeps();
    const agent = principalOf(scope, 'agent');
    const found = async (args: Record<string, unknown>) => {
      const result = await callTool(deps, agent, 'resources_find', args);
      expect(result.isError).toBeUndefined();
      return (result.structuredContent as { resources: Array<{ id: string; slug: string }> }).resources;
    };
    expect((await found({ query: webId })).map((r) => r.id)).toEqual([webId]);
    expect((await found({ query: web }))[0]).toMatchObject({ id: webId, slug: web });
    expect((await found({ query: `WEB-${scope}`.slice(0, 12) })).map((r) => r.id)).toContain(webId);
    expect(await found({ query: `nothing-like-${scope}` })).toEqual([]);
    expect(errorOf(await callTool(deps, agent, 'resources_find', { query: '  ' }))).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'query',
    });
    expect(errorOf(await callTool(deps, agent, 'resources_find', { query: web, first: 101 }))).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'first',
    });
  });

  it('grant_redeems answers grantRedeems: a redeem and a refused replay, newest first, by approval and outcome', async () => {
    const { deps } = graphDeps();
    const agent = principalOf(scope, 'agent');
    const operator = principalOf(scope, 'operator');
    const dbId = `proxmox:${scope}/qemu/102`;
    await upsertResources(driver, [
      { id: dbId, kind: 'vm', provider: 'proxmox', name: `db-${scope}`, state: 'running', lifecycle: 'active' },
    ]);
    const restart = { target: dbId, action: 'restart' };
    const ok = (result: Awaited<ReturnType<typeof callTool>>) => {
      expect(result.isError).toBeUndefined();
      return result.structuredContent as any;
    };
    const asked = ok(await callTool(deps, agent, 'request_approval', { ...restart, reason: 'wedged' })).approvals[0];
    const open = ok(await callTool(deps, agent, 'approvals', { open: true })).approvals.map((a: any) => a.id);
    expect(open).toContain(asked.id);
    const { grants } = ok(await callTool(deps, operator, 'approve', { id: asked.id }));
    expect(ok(await callTool(deps, agent, 'approvals', { open: true })).approvals.map((a: any) => a.id)).not.toContain(
      asked.id,
    );
    const token = grants[0].token as string;
    expect(ok(await callTool(deps, agent, 'redeem_grant', { token, input: restart })).authorized).toBe(true);
    expect(ok(await callTool(deps, agent, 'redeem_grant', { token, input: restart })).authorized).toBe(false);

    const page = ok(await callTool(deps, agent, 'grant_redeems', { approvalId: asked.id }));
    expect(page.redeems.map((r: any) => [r.outcome, r.principal, r.refusal?.code ?? null, r.approval?.status])).toEqual(
      [
        ['refused', agent.name, 'GRANT_REPLAYED', 'used'],
        ['redeemed', agent.name, null, 'used'],
      ],
    );
    expect(page.redeems[1].authorizationId).toBe(page.redeems[1].approval.authorizationId);
    expect(page.nextCursor).toBeNull();
    const refused = ok(await callTool(deps, agent, 'grant_redeems', { approvalId: asked.id, outcome: 'refused' }));
    expect(refused.redeems.map((r: any) => r.outcome)).toEqual(['refused']);
    const first = ok(await callTool(deps, agent, 'grant_redeems', { approvalId: asked.id, first: 1 }));
    const next = ok(
      await callTool(deps, agent, 'grant_redeems', { approvalId: asked.id, first: 1, after: first.nextCursor }),
    );
    expect([...first.redeems, ...next.redeems].map((r: any) => r.outcome)).toEqual(['refused', 'redeemed']);
    expect(errorOf(await callTool(deps, agent, 'grant_redeems', { outcome: 'lost' }))).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'outcome',
    });
    expect(errorOf(await callTool(deps, principalOf(scope, 'ingester'), 'grant_redeems', {}))).toMatchObject({
      code: 'FORBIDDEN',
      permission: 'approval:read',
    });
  });

  it('builds a server per principal', () => {
    const { deps } = graphDeps();
    const agent = principalOf(scope, 'agent');
    expect(createMcpServer(deps, agent)).not.toBe(createMcpServer(deps, agent));
  });
});

describe('pageOf', () => {
  const items = ['a', 'b', 'c', 'd', 'e'];

  it('pages after the cursor it gave, to the end', () => {
    const first = pageOf('relations', items, { first: 2 });
    expect(first).toMatchObject({ items: ['a', 'b'], total: 5 });
    const second = pageOf('relations', items, { first: 2, after: first.nextCursor! });
    expect(second.items).toEqual(['c', 'd']);
    const last = pageOf('relations', items, { first: 2, after: second.nextCursor! });
    expect(last).toEqual({ items: ['e'], total: 5, nextCursor: null });
  });

  it('refuses another tool’s cursor, or anything else, naming `after`', () => {
    const other = pageOf('dependents', items, { first: 1 }).nextCursor!;
    expect(() => pageOf('relations', items, { first: 1, after: other })).toThrow(
      'after: not a cursor returned by relations',
    );
    expect(() => pageOf('relations', items, { first: 1, after: 'garbage' })).toThrow(/^after: /);
  });
});
