import { describe, expect, it } from 'vitest';
import { relationsOf } from '../../../../src/graph/edges.js';
import { upsertResources } from '../../../../src/graph/resources/upsert.js';
import { createIdentityTracker } from '../../../../src/ingest/identity/incremental.js';
import type { ResourceInput } from '../../../../src/model/index.js';
import { useGraph } from '../../../support/graph.js';

const { driver, scope } = useGraph();
const px = (n: number) => `proxmox:lab-${scope}/qemu/${n}`;
const vc = (h: string) => `vcenter:vc-${scope}/host/${h}`;
const U1 = '4c4c4544-0031-4d10-8033-b4c04f4e3132';
const U2 = '11111111-2222-4333-8444-555555555555';

const vm = (n: number, uuid: string): ResourceInput => ({
  id: px(n),
  kind: 'vm',
  provider: 'proxmox',
  name: `vm${n}-${scope}`,
  state: 'running',
  attributes: { smbios_uuid: uuid },
});
const host = (h: string, uuid: string): ResourceInput => ({
  id: vc(h),
  kind: 'host',
  provider: 'vcenter',
  name: `${h}-${scope}`,
  state: 'online',
  attributes: { smbios_uuid: uuid },
});
const links = async (h: string) =>
  (await relationsOf(driver, vc(h), { types: ['MANIFESTS_AS'], direction: 'OUT' })).map((e) => e.toId);

describe('manifests_as after every pass, incrementally', () => {
  const tracker = createIdentityTracker({ idPrefixes: [`proxmox:lab-${scope}/`, `vcenter:vc-${scope}/`] });

  it('the first run is full; a run with no identity fact changed writes nothing', async () => {
    await upsertResources(driver, [vm(130, U1), host('host-1', U1), vm(131, U2)]);
    expect(await tracker.run(driver)).toMatchObject({ mode: 'full', created: 1 });
    expect(await links('host-1')).toEqual([px(130)]);
    expect(await tracker.run(driver)).toEqual({ mode: 'unchanged', affected: 0, created: 0, withdrawn: 0 });
  });

  it('a new holder of a value: only the resources sharing it are reconsidered', async () => {
    await upsertResources(driver, [host('host-2', U2)]);
    const run = await tracker.run(driver);
    // host-2 appeared and vm 131 shares its UUID; host-1 and vm 130 are not touched.
    expect(run).toEqual({ mode: 'incremental', affected: 2, created: 1, withdrawn: 0 });
    expect(await links('host-2')).toEqual([px(131)]);
    expect(await links('host-1')).toEqual([px(130)]);
  });

  it('a withdrawn fact withdraws the inferred edge; a value becoming ambiguous withdraws the match', async () => {
    await upsertResources(driver, [vm(130, '99999999-2222-4333-8444-555555555555')]);
    expect(await tracker.run(driver)).toMatchObject({ mode: 'incremental', withdrawn: 1 });
    expect(await links('host-1')).toEqual([]);
    // A second vCenter host with vm 131's UUID: the value identifies nothing any more.
    await upsertResources(driver, [host('host-3', U2)]);
    expect(await tracker.run(driver)).toMatchObject({ mode: 'incremental', affected: 3, created: 0, withdrawn: 1 });
    expect(await links('host-2')).toEqual([]);
  });
});
