import { describe, expect, it } from 'vitest';
import { resolveInputRef, resolveRef } from '../../../src/services/resources.js';
import { fakeDeps } from './fake-deps.js';

const { deps } = fakeDeps([
  { id: 'proxmox:lab/qemu/101', kind: 'vm', provider: 'proxmox', name: 'web' },
  { id: 'proxmox:lab/qemu/102', kind: 'vm', provider: 'proxmox', name: 'db' },
  { id: 'vcenter:vc1/vm/vm-9', kind: 'vm', provider: 'vcenter', name: 'db' },
]);

describe('resolving a resource ref', () => {
  it('reads a provider-prefixed ref as an id and anything else as a kind:name slug', async () => {
    expect((await resolveRef(deps, 'proxmox:lab/qemu/101', 'id')).name).toBe('web');
    expect((await resolveRef(deps, 'vm:web', 'id')).id).toBe('proxmox:lab/qemu/101');
  });

  it('in a question, an unknown resource is NOT_FOUND naming the argument (a slug names `slug`)', async () => {
    await expect(resolveRef(deps, 'proxmox:lab/qemu/999', 'resourceId')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      field: 'resourceId',
      message: 'resourceId: resource proxmox:lab/qemu/999 not found',
    });
    await expect(resolveRef(deps, 'vm:nope', 'resourceId')).rejects.toMatchObject({ code: 'NOT_FOUND', field: 'slug' });
  });

  it('in input, unknown, malformed and ambiguous refs are BAD_USER_INPUT naming the input field', async () => {
    await expect(resolveInputRef(deps, 'manual:service/nope', 'input.source')).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'input.source',
      message: 'input.source: no resource manual:service/nope',
    });
    await expect(resolveInputRef(deps, 'vm:nope', 'input.target')).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'input.target',
      message: 'input.target: no resource vm:nope',
    });
    await expect(resolveInputRef(deps, 'toaster:x', 'input.target')).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'input.target',
      message: expect.stringMatching(/^input\.target: unknown kind "toaster"/),
    });
    await expect(resolveInputRef(deps, 'vm:db', 'input.resourceId')).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'input.resourceId',
      message: expect.stringMatching(/^input\.resourceId: vm:db is ambiguous: 2 resources match/),
      details: { candidates: ['proxmox:lab/qemu/102', 'vcenter:vc1/vm/vm-9'] },
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
