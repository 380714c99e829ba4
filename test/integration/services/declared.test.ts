import { DateTime } from 'luxon';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCheck, removeCheck } from '../../../src/graph/checks.js';
import { openCondition, searchConditions } from '../../../src/graph/conditions.js';
import { relationsOf } from '../../../src/graph/edges.js';
import { getResourceById } from '../../../src/graph/resources/read.js';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { CheckDefinitionSchema } from '../../../src/model/index.js';
import { declareResource, removeDeclaredResource } from '../../../src/services/declared.js';
import { useGraph } from '../../support/graph.js';
import { auditOf, principalOf, serviceDeps } from '../../support/services.js';

const { driver, scope } = useGraph();
const deps = serviceDeps(driver);
const vm = (n: number) => `proxmox:${scope}/qemu/${n}`;
const name = (s: string) => `${s}-${scope}`;

beforeAll(async () => {
  await upsertResources(driver, [
    { id: vm(113), kind: 'vm', provider: 'proxmox', name: name('db13'), state: 'running' },
    { id: vm(114), kind: 'vm', provider: 'proxmox', name: name('db14'), state: 'running' },
    { id: vm(115), kind: 'vm', provider: 'proxmox', name: name('old'), state: 'running', lifecycle: 'deprecated' },
  ]);
});

describe('declareResource', () => {
  it('creates a manual resource with provenance declared, the declarer, the evidence and a declared RUNS_ON', async () => {
    const agent = principalOf(scope, 'agent');
    const r = await declareResource(deps, agent, {
      kind: 'service',
      name: name('postgres'),
      runsOn: `vm:${name('db13')}`,
      attributes: { port: 5432, health: 'healthy', state: 'up' },
      evidence: 'ss -ltnp shows postgres on :5432',
    });
    expect(r.created).toBe(true);
    expect(r.resource).toMatchObject({
      id: `manual:service/${name('postgres')}@${vm(113)}`,
      kind: 'service',
      provider: 'manual',
      state: 'unknown',
      health: 'unknown',
      attributes: { port: 5432 },
      declaration: { by: agent.name, evidence: 'ss -ltnp shows postgres on :5432' },
    });
    expect(r.ignored.map((i) => i.key).sort()).toEqual(['health', 'state']);
    expect(r.relationship).toMatchObject({
      type: 'RUNS_ON',
      provenance: 'declared',
      source: agent.name,
      toId: vm(113),
    });
    expect((await auditOf(driver, agent)).map((a) => [a.operation, a.outcome, a.targetIds])).toEqual([
      ['declareResource', 'ok', [r.resource.id, vm(113)]],
    ]);
  });

  it('is idempotent on (kind, name, runsOn): a repeat refreshes; the same name on another VM is another resource', async () => {
    const agent = principalOf(scope, 'agent');
    const input = { kind: 'service', name: name('redis'), runsOn: vm(113), evidence: 'redis-cli ping: PONG' };
    const first = await declareResource(deps, agent, { ...input, attributes: { version: '7.0' } });
    const again = await declareResource(deps, agent, { ...input, attributes: { version: '7.2' }, evidence: 'INFO' });
    expect(again).toMatchObject({
      created: false,
      resource: { id: first.resource.id, attributes: { version: '7.2' } },
    });
    expect(again.resource.declaration?.evidence).toBe('INFO');
    const elsewhere = await declareResource(deps, agent, { ...input, runsOn: vm(114) });
    expect(elsewhere.created).toBe(true);
    expect(elsewhere.resource.id).not.toBe(first.resource.id);
    const placed = await relationsOf(driver, first.resource.id, { types: ['RUNS_ON'], direction: 'OUT' });
    expect(placed.map((e) => e.toId)).toEqual([vm(113)]);
  });

  it.each([
    [
      { kind: 'vm', name: 'x', evidence: 'e' },
      'input.kind',
      /vm cannot be declared \(declarable: service, host, storage, network\)/,
    ],
    [{ kind: 'service', name: '-x', evidence: 'e' }, 'input.name', /must be 1–128 letters/],
    [{ kind: 'service', name: 'x', evidence: '' }, 'input.evidence', /say what you saw/],
    [{ kind: 'service', name: 'x', evidence: 'e', runsOn: 'vm:nope-nothing' }, 'input.runsOn', /no resource/],
    [
      { kind: 'host', name: 'x', evidence: 'e', runsOn: vm(113) },
      'input.runsOn',
      /RUNS_ON is not allowed from host to vm/,
    ],
    [{ kind: 'service', name: 'x', evidence: 'e', runsOn: vm(115) }, 'input.runsOn', /deprecated/],
    [{ kind: 'service', name: 'x', evidence: 'e', attributes: [1] }, 'input.attributes', /JSON object/],
  ])('refuses %j naming %s, and writes nothing', async (input, field, reason) => {
    const agent = principalOf(scope, 'agent');
    await expect(declareResource(deps, agent, input)).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field,
      message: expect.stringMatching(reason),
    });
    expect(await getResourceById(driver, 'manual:service/x')).toBeNull();
    expect((await auditOf(driver, agent)).map((a) => a.outcome)).toEqual(['refused']);
  });

  it('is for agents and operators', async () => {
    await expect(
      declareResource(deps, principalOf(scope, 'scheduler'), { kind: 'service', name: 'x', evidence: 'e' }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('removeDeclaredResource', () => {
  it('operators remove a declared resource with its edges; its open conditions are resolved and kept', async () => {
    const made = await declareResource(deps, principalOf(scope, 'agent'), {
      kind: 'service',
      name: name('gone'),
      runsOn: vm(114),
      evidence: 'seen once',
    });
    const id = made.resource.id;
    await openCondition(driver, { resourceId: id, type: 'unreachable', evidence: { why: 'test' } });
    await expect(removeDeclaredResource(deps, principalOf(scope, 'agent'), { id })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    const operator = principalOf(scope, 'operator');
    expect(await removeDeclaredResource(deps, operator, { id })).toEqual({ id, edges: 1, resolvedConditions: 1 });
    expect(await getResourceById(driver, id)).toBeNull();
    const kept = (await searchConditions(driver, { resourceId: id }, { first: 10 })).nodes;
    expect(kept).toEqual([expect.objectContaining({ type: 'unreachable', status: 'resolved' })]);
    expect((await auditOf(driver, operator)).map((a) => [a.operation, a.outcome])).toEqual([
      ['removeDeclaredResource', 'ok'],
    ]);
  });

  it('refuses provider resources and resources that still have checks, naming them', async () => {
    const operator = principalOf(scope, 'operator');
    await expect(removeDeclaredResource(deps, operator, { id: vm(113) })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'id',
      message: expect.stringMatching(/reported by proxmox, not declared/),
    });
    const made = await declareResource(deps, principalOf(scope, 'agent'), {
      kind: 'service',
      name: name('checked'),
      evidence: 'port open',
    });
    const { check } = await createCheck(driver, {
      resourceId: made.resource.id,
      definition: CheckDefinitionSchema.parse({ kind: 'tcp', spec: { host: '127.0.0.1', port: 1 } }),
      intervalSeconds: 60,
      critical: false,
      createdBy: 'test',
      at: DateTime.utc().toISO(),
    });
    await expect(removeDeclaredResource(deps, operator, { id: made.resource.id })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      message: expect.stringContaining(`still has 1 check(s): remove them first (removeCheck): ${check.id}`),
    });
    expect(await getResourceById(driver, made.resource.id)).not.toBeNull();
    await removeCheck(driver, check.id);
    expect(await removeDeclaredResource(deps, operator, { id: made.resource.id })).toMatchObject({ edges: 0 });
  });
});
