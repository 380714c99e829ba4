import { beforeAll, describe, expect, it } from 'vitest';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { loadStartupPolicy } from '../../../src/policy/startup.js';
import { classifyAction, policy } from '../../../src/services/gate.js';
import { useGraph } from '../../support/graph.js';
import { auditOf, principalOf, serviceDeps } from '../../support/services.js';

const { driver, scope } = useGraph();
const shipped = await loadStartupPolicy(undefined);
const deps = serviceDeps(driver, shipped);
const web = `proxmox:${scope}/qemu/101`;

beforeAll(async () => {
  await upsertResources(driver, [
    { id: web, kind: 'vm', provider: 'proxmox', name: `web-${scope}`, state: 'running', lifecycle: 'active' },
  ]);
});

describe('classifyAction', () => {
  it('answers and records the decision as the audit detail, with the target by its resolved id', async () => {
    const agent = principalOf(scope, 'agent');
    const answer = await classifyAction(deps, agent, { target: ` vm:web-${scope}`, action: ' restart ' });
    expect(answer.target).toMatchObject({ id: web, inGraph: true, entityType: 'vm' });
    expect(answer.blocked).toBe(false);
    expect(await auditOf(driver, agent)).toEqual([
      expect.objectContaining({
        operation: 'classifyAction',
        targetIds: [web],
        outcome: 'ok',
        detail: expect.stringMatching(
          new RegExp(
            `^restart: ${answer.riskClass} / ${answer.autonomy} / approval ${answer.approval} .*; policy ${shipped.digest}$`,
          ),
        ),
      }),
    ]);
  });

  it('classifies an entity outside the graph without reading it', async () => {
    const agent = principalOf(scope, 'agent');
    const target = `dns-record:${scope}.example.com`;
    const answer = await classifyAction(deps, agent, { target, action: 'delete' });
    expect(answer.target).toMatchObject({ id: target, kind: null, inGraph: false, resource: null });
    expect(await auditOf(driver, agent)).toEqual([expect.objectContaining({ outcome: 'ok', targetIds: [target] })]);
  });

  it('records a refused question with the target as asked and every bulk target once', async () => {
    const agent = principalOf(scope, 'agent');
    const nope = `vm:nope-${scope}`;
    const input = { target: nope, action: 'restart', targets: [nope, `vm:web-${scope}`] };
    await expect(classifyAction(deps, agent, input)).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'input.target',
      message: `input.target: no resource ${nope}`,
    });
    expect(await auditOf(driver, agent)).toEqual([
      expect.objectContaining({
        targetIds: [nope, `vm:web-${scope}`],
        outcome: 'refused',
        detail: `BAD_USER_INPUT: input.target: no resource ${nope}`,
      }),
    ]);
  });

  it('without a policy it cannot answer: an internal error, still audited', async () => {
    const agent = principalOf(scope, 'agent');
    await expect(
      classifyAction(serviceDeps(driver), agent, { target: `vm:web-${scope}`, action: 'restart' }),
    ).rejects.toThrow(/no policy loaded/);
    expect(await auditOf(driver, agent)).toEqual([
      expect.objectContaining({ outcome: 'error', detail: 'internal error' }),
    ]);
  });

  it('is a permission of agents and operators', async () => {
    const agent = principalOf(scope, 'agent');
    const scheduler = principalOf(scope, 'scheduler');
    await expect(
      classifyAction(deps, scheduler, { target: `vm:web-${scope}`, action: 'restart' }),
    ).rejects.toMatchObject({
      code: 'FORBIDDEN',
      details: { permission: 'policy:classify' },
    });
    expect(await auditOf(driver, scheduler)).toEqual([
      expect.objectContaining({ outcome: 'refused', role: 'scheduler' }),
    ]);
    expect(() => policy(deps, scheduler)).toThrow(/lacks permission policy:read/);
    expect(policy(deps, agent).digest).toBe(shipped.digest);
  });
});
