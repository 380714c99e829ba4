import { describe, expect, it } from 'vitest';
import { alertCandidates } from '../../../src/graph/alerts.js';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { useGraph } from '../../support/graph.js';

/** The resources an alert's labels may name, read from the real graph by name, id and attribute value. */
const { driver, scope } = useGraph();
const vm = (n: string) => `manual:vm/${n}-${scope}`;

describe('alertCandidates', () => {
  it('reads by name, by id and by an attribute compared as text; a destroyed resource is no candidate', async () => {
    await upsertResources(driver, [
      {
        id: vm('web01'),
        kind: 'vm',
        provider: 'manual',
        name: `web01-${scope}`,
        state: 'running',
        attributes: { vmid: 9101 },
      },
      {
        id: vm('db01'),
        kind: 'vm',
        provider: 'manual',
        name: `db01-${scope}`,
        state: 'running',
        attributes: { role: `db-${scope}` },
      },
      {
        id: vm('gone'),
        kind: 'vm',
        provider: 'manual',
        name: `web01-${scope}`,
        state: 'stopped',
        lifecycle: 'destroyed',
        attributes: { vmid: 9101 },
      },
    ]);
    const ids = async (probes: Parameters<typeof alertCandidates>[1]) =>
      (await alertCandidates(driver, probes)).map((r) => r.id);
    expect(await ids({ names: [`web01-${scope}`], ids: [], attrs: [] })).toEqual([vm('web01')]);
    expect(await ids({ names: [], ids: [vm('db01')], attrs: [] })).toEqual([vm('db01')]);
    expect(await ids({ names: [], ids: [], attrs: [{ key: 'role', value: `db-${scope}` }] })).toEqual([vm('db01')]);
    const byVmid = await alertCandidates(driver, { names: [], ids: [], attrs: [{ key: 'vmid', value: '9101' }] });
    expect(byVmid.filter((r) => r.id.includes(scope)).map((r) => [r.id, r.attributes.vmid])).toEqual([
      [vm('web01'), 9101],
    ]);
    expect(await ids({ names: [`nothing-${scope}`], ids: [], attrs: [] })).toEqual([]);
    expect(await ids({ names: [], ids: [], attrs: [] })).toEqual([]);
  });
});
