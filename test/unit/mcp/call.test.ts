import { ProtocolError } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { pageOf } from '../../../src/mcp/paging.js';
import { callTool, createMcpServer } from '../../../src/mcp/server.js';
import { loadStartupPolicy } from '../../../src/policy/index.js';
import { agent, fakeDeps, operator } from '../services/fake-deps.js';

const shipped = await loadStartupPolicy(undefined);
const resources = [{ id: 'proxmox:lab/qemu/101', kind: 'vm', provider: 'proxmox', name: 'web', lifecycle: 'active' }];

/** A tool error's structured error. */
function errorOf(result: Awaited<ReturnType<typeof callTool>>) {
  expect(result.isError).toBe(true);
  return (result.structuredContent as { error: Record<string, unknown> }).error;
}

describe('callTool', () => {
  it('answers with the structured output and the same JSON as text', async () => {
    const { deps, audit } = fakeDeps(resources, { policy: shipped });
    const result = await callTool(deps, agent, 'classify_action', { target: 'vm:web', action: 'restart' });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({
      riskClass: 'reversible_low',
      target: { id: 'proxmox:lab/qemu/101', resource: { id: 'proxmox:lab/qemu/101', slug: 'vm:web' } },
    });
    // Only what the output schema names leaves: the resource is the short form.
    expect(Object.keys((result.structuredContent as any).target.resource).sort()).toEqual(
      ['health', 'id', 'kind', 'lifecycle', 'name', 'slug', 'state'].sort(),
    );
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
    expect(audit).toEqual([expect.objectContaining({ operation: 'classifyAction', outcome: 'ok' })]);
  });

  it('names the argument as the tool takes it: `input.` dropped, slug errors on the ref argument', async () => {
    const { deps } = fakeDeps(resources, { policy: shipped });
    const gate = errorOf(await callTool(deps, agent, 'classify_action', { target: 'vm:web', action: 'no way!' }));
    expect(gate).toMatchObject({ code: 'BAD_USER_INPUT', field: 'action' });
    expect(gate.message).toMatch(/^action: must be an action name/);
    const scope = errorOf(await callTool(deps, agent, 'health_summary', { under: 'vm:nope' }));
    expect(scope).toMatchObject({ code: 'NOT_FOUND', field: 'under', message: 'under: resource vm:nope not found' });
  });

  it('refuses arguments the schema does not take, naming them, before any service runs', async () => {
    const { deps, audit } = fakeDeps(resources, { policy: shipped });
    expect(errorOf(await callTool(deps, agent, 'classify_action', { target: 'vm:web' }))).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'action',
    });
    expect(
      errorOf(await callTool(deps, agent, 'classify_action', { target: 'vm:web', action: 'x', risk: 'low' })),
    ).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'risk',
      message: 'risk: unknown argument; see the tool’s input schema',
    });
    expect(errorOf(await callTool(deps, agent, 'resources_search', { filter: { kind: 'toaster' } }))).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'filter.kind',
    });
    expect(audit).toEqual([]);
  });

  it('masks an unexpected failure as INTERNAL_SERVER_ERROR and logs its cause', async () => {
    const { deps, errors } = fakeDeps(resources); // no policy loaded: the gate cannot answer
    const error = errorOf(await callTool(deps, agent, 'classify_action', { target: 'vm:web', action: 'restart' }));
    expect(error).toEqual({ code: 'INTERNAL_SERVER_ERROR', message: 'Unexpected error.' });
    expect(errors).toEqual([expect.objectContaining({ tool: 'classify_action', principal: agent.name })]);
    expect((errors[0] as { err: Error }).err.message).toMatch(/no policy loaded/);
  });

  it('an unknown tool is a protocol error, as the SDK answers it', async () => {
    const { deps } = fakeDeps([]);
    await expect(callTool(deps, operator, 'drop_everything', {})).rejects.toBeInstanceOf(ProtocolError);
  });

  it('builds a server per principal', () => {
    const { deps } = fakeDeps([]);
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
