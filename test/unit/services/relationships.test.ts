import { describe, expect, it } from 'vitest';
import { createRelationship, removeRelationship } from '../../../src/services/relationships.js';
import { agent, fakeDeps, scheduler } from './fake-deps.js';

const resources = [
  { id: 'manual:service/web', kind: 'service', provider: 'manual', name: 'web' },
  { id: 'proxmox:lab/qemu/101', kind: 'vm', provider: 'proxmox', name: 'db', lifecycle: 'active' },
  { id: 'proxmox:lab/qemu/102', kind: 'vm', provider: 'proxmox', name: 'old', lifecycle: 'deprecated' },
  { id: 'proxmox:lab/qemu/103', kind: 'vm', provider: 'proxmox', name: 'gone', lifecycle: 'destroyed' },
];

describe('createRelationship decides before it writes', () => {
  it.each([
    [
      'service:web',
      'manual:service/web',
      'input.target',
      /^input\.target: a DEPENDS_ON edge from manual:service\/web to itself/,
    ],
    ['service:web', 'vm:old', 'input.target', /vm:old is deprecated: new dependencies on it are refused/],
    ['service:web', 'vm:gone', 'input.target', /vm:gone is destroyed: nothing may depend on it/],
    ['vm:nope', 'vm:db', 'input.source', /^input\.source: no resource vm:nope$/],
  ])('%s DEPENDS_ON %s → BAD_USER_INPUT %s, audited as refused', async (source, target, field, message) => {
    const { deps, audit } = fakeDeps(resources);
    await expect(createRelationship(deps, agent, { source, target, type: 'DEPENDS_ON' })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      field,
      message: expect.stringMatching(message),
    });
    expect(audit).toEqual([
      expect.objectContaining({
        principal: 'unit-agent',
        operation: 'createRelationship',
        targetIds: [source, target],
        outcome: 'refused',
        detail: expect.stringMatching(/^BAD_USER_INPUT: /),
      }),
    ]);
  });

  it('lets a deprecated resource take part in identity (MANIFESTS_AS is no dependency)', async () => {
    const { deps, audit } = fakeDeps(resources);
    await expect(
      createRelationship(deps, agent, { source: 'vm:db', target: 'vm:old', type: 'MANIFESTS_AS' }),
    ).rejects.toThrow('write reached the graph');
    expect(audit[0]).toMatchObject({ outcome: 'error', detail: 'internal error' });
  });

  it('asks for relationship:declare before reading anything', async () => {
    const { deps, audit } = fakeDeps([]);
    await expect(
      createRelationship(deps, scheduler, { source: 'vm:a', target: 'vm:b', type: 'DEPENDS_ON' }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN', details: { permission: 'relationship:declare' } });
    expect(audit[0]).toMatchObject({ outcome: 'refused', role: 'scheduler' });
  });
});

describe('removeRelationship', () => {
  it('is for operators only', async () => {
    const { deps } = fakeDeps(resources);
    await expect(
      removeRelationship(deps, agent, { source: 'service:web', target: 'vm:db', type: 'DEPENDS_ON' }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN', details: { permission: 'relationship:remove' } });
  });
});
