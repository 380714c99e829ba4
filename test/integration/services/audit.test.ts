import { describe, expect, it, vi } from 'vitest';
import { badInput } from '../../../src/model/index.js';
import { audited, MAX_AUDIT_ARGUMENTS } from '../../../src/services/audit.js';
import { useGraph } from '../../support/graph.js';
import { auditOf, principalOf, serviceDeps, withAuditDown } from '../../support/services.js';

const { driver, scope } = useGraph();
const deps = serviceDeps(driver);

describe('audited', () => {
  it('records an ok outcome, with the detail the operation words for its result', async () => {
    const agent = principalOf(scope, 'agent');
    const result = await audited(
      deps,
      agent,
      'op',
      [`a-${scope}`],
      async () => 42,
      (n) => `answered ${n}`,
    );
    expect(result).toBe(42);
    expect(await auditOf(driver, agent)).toEqual([
      expect.objectContaining({
        principal: agent.name,
        role: 'agent',
        operation: 'op',
        targetIds: [`a-${scope}`],
        outcome: 'ok',
        detail: 'answered 42',
      }),
    ]);
  });

  it('reads lazy target ids after the run, whatever its outcome', async () => {
    const agent = principalOf(scope, 'agent');
    let resolved = 'as asked';
    const run = async () => {
      resolved = 'as resolved';
      throw badInput('input.x', 'no');
    };
    await expect(audited(deps, agent, 'op', () => [resolved], run)).rejects.toThrow('input.x: no');
    expect(await auditOf(driver, agent)).toEqual([
      expect.objectContaining({
        targetIds: ['as resolved'],
        outcome: 'refused',
        detail: 'BAD_USER_INPUT: input.x: no',
      }),
    ]);
  });

  it('records the surface the principal called through (via), null for in-process callers', async () => {
    const agent = principalOf(scope, 'agent');
    await audited(deps, { ...agent, via: 'mcp' }, 'op', [], async () => 1);
    await audited(deps, { ...agent, via: 'graphql' }, 'op', [], async () => 1);
    await audited(deps, agent, 'op', [], async () => 1);
    expect((await auditOf(driver, agent)).map((a) => a.via)).toEqual(['mcp', 'graphql', null]);
  });

  it('records the arguments when the operation passes them: secrets redacted, size capped', async () => {
    const agent = principalOf(scope, 'agent');
    const args = { id: `a-${scope}`, password: 'hunter2', command: 'mysql --password=s3cret -e "select 1"' };
    await audited(deps, agent, 'op', [], async () => 1, undefined, { args });
    await audited(deps, agent, 'op', [], async () => 1, undefined, { args: { blob: 'x'.repeat(10_000) } });
    await audited(deps, agent, 'op', [], async () => 1);
    // Found by content: entries written within one millisecond have no order.
    const kept = (await auditOf(driver, agent)).map((a) => a.arguments);
    const redacted = kept.find((a) => a?.includes('"id"'));
    const capped = kept.find((a) => a?.includes('"blob"'));
    const none = kept.find((a) => a === null);
    expect(kept).toHaveLength(3);
    expect(kept.join(' ')).not.toMatch(/hunter2|s3cret/);
    expect(JSON.parse(redacted!)).toEqual({
      id: `a-${scope}`,
      password: '[REDACTED]',
      command: 'mysql --password=[REDACTED] -e "select 1"',
    });
    expect(capped!.length).toBeLessThanOrEqual(MAX_AUDIT_ARGUMENTS);
    expect(capped).toMatch(/…\(truncated\)$/);
    expect(none).toBeNull();
  });

  it('records an unexpected failure as error without its message, and rethrows it', async () => {
    const agent = principalOf(scope, 'agent');
    await expect(
      audited(deps, agent, 'op', [], async () => {
        throw new Error('secret internals');
      }),
    ).rejects.toThrow('secret internals');
    expect(await auditOf(driver, agent)).toEqual([
      expect.objectContaining({ outcome: 'error', detail: 'internal error' }),
    ]);
  });

  it('a failed audit write on a refusal is logged; the caller still gets the refusal', async () => {
    const agent = principalOf(scope, 'agent');
    const down = serviceDeps(withAuditDown(driver));
    const logged = vi.spyOn(down.log, 'error');
    await expect(
      audited(down, agent, 'op', [], async () => {
        throw badInput('id', 'bad');
      }),
    ).rejects.toMatchObject({ code: 'BAD_USER_INPUT', field: 'id' });
    expect(logged).toHaveBeenCalledTimes(1);
    expect(logged).toHaveBeenCalledWith(
      { err: expect.objectContaining({ message: 'audit store down' }) },
      'audit write failed',
    );
    expect(await auditOf(driver, agent)).toEqual([]);
  });

  it('an ok outcome is never handed out unrecorded', async () => {
    const agent = principalOf(scope, 'agent');
    const down = serviceDeps(withAuditDown(driver));
    // The run's own read reaches the real graph; only the audit write fails.
    const run = async () => {
      const { records } = await down.driver.executeQuery('RETURN $answer AS answer', { answer: 'answer' });
      return String(records[0]!.get('answer'));
    };
    await expect(audited(down, agent, 'op', [], run)).rejects.toThrow('audit store down');
    await expect(run()).resolves.toBe('answer');
    expect(await auditOf(driver, agent)).toEqual([]);
  });
});
