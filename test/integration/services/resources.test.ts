import { beforeAll, describe, expect, it } from 'vitest';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { resolveInputRef, resolveRef } from '../../../src/services/resources.js';
import { useGraph } from '../../support/graph.js';
import { serviceDeps } from '../../support/services.js';

const { driver, scope } = useGraph();
const deps = serviceDeps(driver);
const ids = {
  web: `proxmox:${scope}/qemu/101`,
  db: `proxmox:${scope}/qemu/102`,
  vcDb: `vcenter:${scope}/vm/vm-9`,
};

beforeAll(async () => {
  await upsertResources(driver, [
    { id: ids.web, kind: 'vm', provider: 'proxmox', name: `web-${scope}`, state: 'running' },
    { id: ids.db, kind: 'vm', provider: 'proxmox', name: `db-${scope}`, state: 'running' },
    { id: ids.vcDb, kind: 'vm', provider: 'vcenter', name: `db-${scope}`, state: 'running' },
  ]);
});

describe('resolving a resource ref', () => {
  it('reads a provider-prefixed ref as an id and anything else as a kind:name slug', async () => {
    expect((await resolveRef(deps, ids.web, 'id')).name).toBe(`web-${scope}`);
    expect((await resolveRef(deps, `vm:web-${scope}`, 'id')).id).toBe(ids.web);
  });

  it('in a question, an unknown resource is NOT_FOUND naming the argument (a slug names `slug`)', async () => {
    const unknown = `proxmox:${scope}/qemu/999`;
    await expect(resolveRef(deps, unknown, 'resourceId')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      field: 'resourceId',
      message: `resourceId: resource ${unknown} not found`,
    });
    await expect(resolveRef(deps, `vm:nope-${scope}`, 'resourceId')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      field: 'slug',
    });
  });

  it('in input, unknown, malformed and ambiguous refs are BAD_USER_INPUT naming the input field', async () => {
    await expect(resolveInputRef(deps, `manual:service/nope-${scope}`, 'input.source')).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'input.source',
      message: `input.source: no resource manual:service/nope-${scope}`,
    });
    await expect(resolveInputRef(deps, `vm:nope-${scope}`, 'input.target')).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'input.target',
      message: `input.target: no resource vm:nope-${scope}`,
    });
    await expect(resolveInputRef(deps, 'toaster:x', 'input.target')).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'input.target',
      message: expect.stringMatching(/^input\.target: unknown kind "toaster"/),
    });
    await expect(resolveInputRef(deps, `vm:db-${scope}`, 'input.resourceId')).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'input.resourceId',
      message: expect.stringMatching(new RegExp(`^input\\.resourceId: vm:db-${scope} is ambiguous: 2 resources match`)),
      details: { candidates: [ids.db, ids.vcDb] },
    });
  });

  it('an empty ref is refused in the field itself', async () => {
    await expect(resolveInputRef(deps, '', 'id')).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'id',
      message: 'id: give exactly one of id or slug',
    });
  });
});
