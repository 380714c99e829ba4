import { describe, expect, it } from 'vitest';
import { badInput } from '../../../src/model/index.js';
import { audited } from '../../../src/services/audit.js';
import { agent, fakeDeps } from './fake-deps.js';

describe('audited', () => {
  it('records an ok outcome, with the detail the operation words for its result', async () => {
    const { deps, audit } = fakeDeps([]);
    const result = await audited(
      deps,
      agent,
      'op',
      ['a'],
      async () => 42,
      (n) => `answered ${n}`,
    );
    expect(result).toBe(42);
    expect(audit).toEqual([
      expect.objectContaining({
        principal: 'unit-agent',
        role: 'agent',
        operation: 'op',
        targetIds: ['a'],
        outcome: 'ok',
        detail: 'answered 42',
      }),
    ]);
  });

  it('records the surface the principal called through (via), null for in-process callers', async () => {
    const { deps, audit } = fakeDeps([]);
    await audited(deps, { ...agent, via: 'mcp' }, 'op', [], async () => 1);
    await audited(deps, { ...agent, via: 'graphql' }, 'op', [], async () => 1);
    await audited(deps, agent, 'op', [], async () => 1);
    expect(audit.map((a) => a.via)).toEqual(['mcp', 'graphql', null]);
  });

  it('reads lazy target ids after the run, whatever its outcome', async () => {
    const { deps, audit } = fakeDeps([]);
    let resolved = 'as asked';
    const run = async () => {
      resolved = 'as resolved';
      throw badInput('input.x', 'no');
    };
    await expect(audited(deps, agent, 'op', () => [resolved], run)).rejects.toThrow('input.x: no');
    expect(audit[0]).toMatchObject({
      targetIds: ['as resolved'],
      outcome: 'refused',
      detail: 'BAD_USER_INPUT: input.x: no',
    });
  });

  it('records an unexpected failure as error without its message, and rethrows it', async () => {
    const { deps, audit } = fakeDeps([]);
    await expect(
      audited(deps, agent, 'op', [], async () => {
        throw new Error('secret internals');
      }),
    ).rejects.toThrow('secret internals');
    expect(audit[0]).toMatchObject({ outcome: 'error', detail: 'internal error' });
  });

  it('a failed audit write on a refusal is logged; the caller still gets the refusal', async () => {
    const { deps, errors } = fakeDeps([], { auditFails: true });
    await expect(
      audited(deps, agent, 'op', [], async () => {
        throw badInput('id', 'bad');
      }),
    ).rejects.toMatchObject({ code: 'BAD_USER_INPUT', field: 'id' });
    expect(errors).toHaveLength(1);
  });

  it('an ok outcome is never handed out unrecorded', async () => {
    const { deps } = fakeDeps([], { auditFails: true });
    await expect(audited(deps, agent, 'op', [], async () => 'answer')).rejects.toThrow('audit store down');
  });
});
