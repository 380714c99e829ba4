import { describe, expect, it } from 'vitest';
import { getResourceById, getResourcesBySlug, resolveResource } from '../../../src/graph/resources/read.js';
import { markUnseenResourcesMissing } from '../../../src/graph/resources/staleness.js';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { useGraph } from '../../support/graph.js';

const { driver, scope } = useGraph();
const vm = (vmid: number, name: string, state: string, extra: Record<string, unknown> = {}) => ({
  id: `proxmox:${scope}/qemu/${vmid}`,
  kind: 'vm',
  provider: 'proxmox',
  name,
  state,
  rawState: state,
  ...extra,
});

describe('resource repository', () => {
  it('upserts in batches, idempotently, and reports state changes but not first sightings', async () => {
    const first = await upsertResources(
      driver,
      [vm(101, `web-${scope}`, 'running'), vm(102, `db-${scope}`, 'stopped')],
      { updateTag: 'sync-1', batchSize: 1 },
    );
    expect(first).toMatchObject({ written: 2, created: 2, changes: [] });
    const again = await upsertResources(
      driver,
      [vm(101, `web-${scope}`, 'running'), vm(102, `db-${scope}`, 'stopped')],
      { updateTag: 'sync-2' },
    );
    expect(again).toMatchObject({ written: 2, created: 0, changes: [] });
    const changed = await upsertResources(driver, [vm(101, `web-${scope}`, 'stopped', { rawState: 'stopped' })]);
    expect(changed.changes).toEqual([
      { id: `proxmox:${scope}/qemu/101`, kind: 'vm', from: 'running', to: 'stopped', rawState: 'stopped' },
    ]);
    const { records } = await driver.executeQuery(
      'MATCH (r:Resource:Vm) WHERE r.id STARTS WITH $p RETURN count(r) AS n',
      { p: `proxmox:${scope}/` },
    );
    expect(records[0]!.get('n').toNumber()).toBe(2);
  });

  it('keeps the raw word of an unmapped state and stores attributes apart from model fields', async () => {
    await upsertResources(driver, [
      vm(103, `odd-${scope}`, 'unknown', {
        rawState: 'running/colo',
        attributes: { os: 'debian', cores: 4, tags: ['a', 'b'] },
      }),
    ]);
    const r = await getResourceById(driver, `proxmox:${scope}/qemu/103`);
    expect(r).toMatchObject({
      state: 'unknown',
      rawState: 'running/colo',
      attributes: { os: 'debian', cores: 4, tags: ['a', 'b'] },
      health: 'unknown',
      lifecycle: 'active',
    });
    expect(r!.firstSeen).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/);
  });

  it('refuses a bad row before writing anything', async () => {
    await expect(
      upsertResources(driver, [vm(104, `ok-${scope}`, 'running'), vm(105, `bad-${scope}`, 'online')]),
    ).rejects.toThrow(/resources\[1\]: state: "online" is not a vm state/);
    expect(await getResourceById(driver, `proxmox:${scope}/qemu/104`)).toBeNull();
    await expect(upsertResources(driver, [{ ...vm(106, 'x', 'running'), provider: 'vcenter' }])).rejects.toThrow(
      /provider: id proxmox:.* does not belong to provider vcenter/,
    );
    await expect(
      upsertResources(driver, [
        { id: `proxmox:${scope}/qemu/101`, kind: 'host', provider: 'proxmox', name: 'x', state: 'online' },
      ]),
    ).rejects.toThrow(/is a vm, not a host/);
  });

  it('resolves slugs and lists the candidates of an ambiguous one', async () => {
    const name = `twin-${scope}`;
    await upsertResources(driver, [
      vm(201, name, 'running'),
      { id: `vcenter:${scope}/vm/vm-9`, kind: 'vm', provider: 'vcenter', name, state: 'running' },
    ]);
    expect(await getResourcesBySlug(driver, `vm:${name}`)).toHaveLength(2);
    await expect(resolveResource(driver, { slug: `vm:${name}` })).rejects.toThrow(
      new RegExp(`ambiguous.*proxmox:${scope}/qemu/201.*vcenter:${scope}/vm/vm-9`),
    );
    const one = await resolveResource(driver, { slug: `vm:web-${scope}` });
    expect(one.id).toBe(`proxmox:${scope}/qemu/101`);
    await expect(resolveResource(driver, { slug: 'vm:does-not-exist-' + scope })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(resolveResource(driver, { id: 'x', slug: 'vm:y' })).rejects.toThrow(/exactly one of id or slug/);
    await expect(resolveResource(driver, { slug: 'toaster:y' })).rejects.toThrow(/unknown kind/);
  });

  it('a deprecated resource that goes missing comes back deprecated, not active', async () => {
    const row = vm(301, `old-${scope}`, 'running', { lifecycle: 'deprecated' });
    await upsertResources(driver, [row], { updateTag: 'a' });
    await upsertResources(driver, [vm(302, `other-${scope}`, 'running')], { updateTag: 'b' });
    await markUnseenResourcesMissing(driver, { scope: `proxmox:${scope}`, updateTag: 'b' });
    expect(await getResourceById(driver, row.id)).toMatchObject({
      lifecycle: 'missing',
      missingSince: expect.any(String),
    });
    await upsertResources(driver, [vm(301, `old-${scope}`, 'running')], { updateTag: 'c' });
    expect(await getResourceById(driver, row.id)).toMatchObject({ lifecycle: 'deprecated', missingSince: null });
  });
});
