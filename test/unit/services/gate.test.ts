import { describe, expect, it } from 'vitest';
import { loadStartupPolicy } from '../../../src/policy/index.js';
import { classifyAction, policy } from '../../../src/services/gate.js';
import { agent, fakeDeps, scheduler } from './fake-deps.js';

const shipped = await loadStartupPolicy(undefined);
const resources = [{ id: 'proxmox:lab/qemu/101', kind: 'vm', provider: 'proxmox', name: 'web', lifecycle: 'active' }];

describe('classifyAction', () => {
  it('answers and records the decision as the audit detail, with the target by its resolved id', async () => {
    const { deps, audit } = fakeDeps(resources, { policy: shipped });
    const answer = await classifyAction(deps, agent, { target: ' vm:web', action: ' restart ' });
    expect(answer.target).toMatchObject({ id: 'proxmox:lab/qemu/101', inGraph: true, entityType: 'vm' });
    expect(answer.blocked).toBe(false);
    expect(audit).toEqual([
      expect.objectContaining({
        operation: 'classifyAction',
        targetIds: ['proxmox:lab/qemu/101'],
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
    const { deps, audit } = fakeDeps([], { policy: shipped });
    const answer = await classifyAction(deps, agent, { target: 'dns-record:example.com', action: 'delete' });
    expect(answer.target).toMatchObject({ id: 'dns-record:example.com', kind: null, inGraph: false, resource: null });
    expect(audit[0]).toMatchObject({ outcome: 'ok', targetIds: ['dns-record:example.com'] });
  });

  it('records a refused question with the target as asked and every bulk target once', async () => {
    const { deps, audit } = fakeDeps(resources, { policy: shipped });
    const input = { target: 'vm:nope', action: 'restart', targets: ['vm:nope', 'vm:web'] };
    await expect(classifyAction(deps, agent, input)).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'input.target',
      message: 'input.target: no resource vm:nope',
    });
    expect(audit[0]).toMatchObject({
      targetIds: ['vm:nope', 'vm:web'],
      outcome: 'refused',
      detail: 'BAD_USER_INPUT: input.target: no resource vm:nope',
    });
  });

  it('without a policy it cannot answer: an internal error, still audited', async () => {
    const { deps, audit } = fakeDeps(resources);
    await expect(classifyAction(deps, agent, { target: 'vm:web', action: 'restart' })).rejects.toThrow(
      /no policy loaded/,
    );
    expect(audit[0]).toMatchObject({ outcome: 'error', detail: 'internal error' });
  });

  it('is a permission of agents and operators', async () => {
    const { deps, audit } = fakeDeps(resources, { policy: shipped });
    await expect(classifyAction(deps, scheduler, { target: 'vm:web', action: 'restart' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
      details: { permission: 'policy:classify' },
    });
    expect(audit[0]).toMatchObject({ outcome: 'refused', role: 'scheduler' });
    expect(() => policy(deps, scheduler)).toThrow(/lacks permission policy:read/);
    expect(policy(deps, agent).digest).toBe(shipped.digest);
  });
});
