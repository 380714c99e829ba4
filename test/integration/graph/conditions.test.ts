import { describe, expect, it } from 'vitest';
import { openCondition, resolveCondition, searchConditions } from '../../../src/graph/conditions.js';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { useGraph } from '../../support/graph.js';

const { driver, scope } = useGraph();
const vm = `proxmox:${scope}/qemu/101`;
const host = `proxmox:${scope}/node/pve1`;

describe('condition repository', () => {
  it('opens one condition per (resource, type), idempotently, and links it to the resource', async () => {
    await upsertResources(driver, [
      { id: vm, kind: 'vm', provider: 'proxmox', name: `web-${scope}`, state: 'paused_io_error' },
      { id: host, kind: 'host', provider: 'proxmox', name: `pve1-${scope}`, state: 'online' },
    ]);
    const first = await openCondition(driver, {
      resourceId: vm,
      type: 'paused_io_error',
      evidence: { qmpstatus: 'io-error' },
      at: '2026-05-14T02:08:31.000Z',
    });
    expect(first.opened).toBe(true);
    expect(first.condition).toMatchObject({
      id: `${vm}#paused_io_error#1778724511000`,
      status: 'open',
      resourceId: vm,
      evidence: { qmpstatus: 'io-error' },
      resolvedAt: null,
    });
    const again = await openCondition(driver, {
      resourceId: vm,
      type: 'paused_io_error',
      evidence: { qmpstatus: 'io-error', polls: 2 },
      attribution: { confidence: 'none' },
    });
    expect(again).toMatchObject({
      opened: false,
      condition: { id: first.condition.id, evidence: { polls: 2 }, attribution: { confidence: 'none' } },
    });
    const { records } = await driver.executeQuery(
      'MATCH (c:Condition)-[:CONDITION_OF]->(r:Resource {id: $id}) RETURN count(c) AS n',
      { id: vm },
    );
    expect(Number(records[0]!.get('n'))).toBe(1);
  });

  it('concurrent opens still make exactly one open condition', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        openCondition(driver, { resourceId: host, type: 'unreachable', evidence: { attempt: i } }),
      ),
    );
    expect(results.filter((r) => r.opened)).toHaveLength(1);
    const open = await searchConditions(driver, { resourceId: host, status: 'open' }, { first: 50 });
    expect(open.nodes).toHaveLength(1);
  });

  it('resolves, then a new open starts a new condition', async () => {
    const resolved = await resolveCondition(driver, {
      resourceId: vm,
      type: 'paused_io_error',
      evidence: { qmpstatus: 'running' },
    });
    expect(resolved).toMatchObject({ resolved: true, condition: { status: 'resolved' } });
    expect(resolved.condition!.resolvedAt).toMatch(/^\d{4}-/);
    expect(await resolveCondition(driver, { resourceId: vm, type: 'paused_io_error', evidence: null })).toEqual({
      condition: null,
      resolved: false,
    });
    const reopened = await openCondition(driver, {
      resourceId: vm,
      type: 'paused_io_error',
      evidence: { qmpstatus: 'io-error' },
    });
    expect(reopened.opened).toBe(true);
    expect(reopened.condition.id).not.toBe(resolved.condition!.id);
  });

  it('lists by resource, type and status, newest first, with cursors', async () => {
    const all = await searchConditions(driver, { resourceId: vm }, { first: 50 });
    expect(all.nodes.map((c) => c.status)).toEqual(['open', 'resolved']);
    const page1 = await searchConditions(driver, { resourceId: vm }, { first: 1 });
    expect(page1.hasNextPage).toBe(true);
    const page2 = await searchConditions(driver, { resourceId: vm }, { first: 1, after: page1.endCursor });
    expect(page2).toMatchObject({ hasNextPage: false });
    expect([...page1.nodes, ...page2.nodes].map((c) => c.id)).toEqual(all.nodes.map((c) => c.id));
    expect(
      (await searchConditions(driver, { type: 'unreachable', resourceId: host }, { first: 50 })).nodes,
    ).toHaveLength(1);
  });

  it('refuses unknown types, bad cursors and missing resources', async () => {
    await expect(openCondition(driver, { resourceId: vm, type: 'on_fire' as never, evidence: null })).rejects.toThrow(
      /type: must be one of/,
    );
    await expect(
      openCondition(driver, { resourceId: `proxmox:${scope}/qemu/999`, type: 'unreachable', evidence: null }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(searchConditions(driver, {}, { first: 50, after: 'garbage' })).rejects.toThrow(/after: not a cursor/);
    await expect(searchConditions(driver, {}, { first: 0 })).rejects.toThrow(/first: must be an integer from 1 to 500/);
  });
});
