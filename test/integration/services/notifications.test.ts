import { describe, expect, it } from 'vitest';
import { recordDeadLetter } from '../../../src/graph/notifications.js';
import { notificationDeliveries, replayNotification } from '../../../src/services/notifications.js';
import { useGraph } from '../../support/graph.js';
import { auditOf, principalOf, serviceDeps } from '../../support/services.js';

/** The dead-letter list and its replay, as operators reach them (GraphQL and MCP call these). */
const { driver, scope } = useGraph();
const deps = serviceDeps(driver);
const target = `ops-${scope}`;
const letter = (seq: number) => ({
  id: `${target}:${seq}`,
  target,
  seq,
  event: 'condition.opened',
  resourceId: `manual:vm/web-${scope}`,
  message: {
    seq,
    event: 'condition.opened',
    at: '2026-05-14T02:08:31.000Z',
    resourceId: `manual:vm/web-${scope}`,
    payload: {},
  },
  attempts: 8,
  lastError: 'HTTP 503: not now',
  at: '2026-05-14T02:10:00.000Z',
});

describe('notificationDeliveries and replayNotification', () => {
  it('operators list the dead letters by target and status, and queue a replay (audited); an agent may do neither', async () => {
    await recordDeadLetter(driver, letter(2));
    await recordDeadLetter(driver, letter(1));
    const operator = principalOf(scope, 'operator');
    const listed = await notificationDeliveries(deps, operator, { target, status: 'dead' });
    expect(listed.map((d) => d.id)).toEqual([`${target}:1`, `${target}:2`]);
    expect(listed[0]).toEqual({
      id: `${target}:1`,
      target,
      seq: 1,
      event: 'condition.opened',
      resourceId: `manual:vm/web-${scope}`,
      status: 'dead',
      attempts: 8,
      lastError: 'HTTP 503: not now',
      at: '2026-05-14T02:10:00Z',
      replayRequestedBy: null,
      replayRequestedAt: null,
      replayedAt: null,
    });
    const queued = await replayNotification(deps, operator, { id: `${target}:1` });
    expect(queued).toMatchObject({ status: 'queued', replayRequestedBy: operator.name });
    expect((await notificationDeliveries(deps, operator, { target, status: 'queued' })).map((d) => d.seq)).toEqual([1]);
    await expect(replayNotification(deps, operator, { id: `${target}:99` })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(
      (await auditOf(driver, operator)).map((a) => `${a.operation} ${a.outcome} ${a.targetIds.join(',')}`),
    ).toEqual([
      `replayNotification ok notification:${target}:1`,
      `replayNotification refused notification:${target}:99`,
    ]);

    const agent = principalOf(scope, 'agent');
    await expect(notificationDeliveries(deps, agent, { target })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(replayNotification(deps, agent, { id: `${target}:2` })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect((await auditOf(driver, agent)).map((a) => a.outcome)).toEqual(['refused']);
  });
});
