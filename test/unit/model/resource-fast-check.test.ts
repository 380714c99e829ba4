import { describe, expect, it } from 'vitest';
import { checkResourceInput, ResourceInputSchema } from '../../../src/model/index.js';

const ok = { id: 'proxmox:lab/qemu/101', kind: 'vm', provider: 'proxmox', name: 'web', state: 'running' };

describe('checkResourceInput', () => {
  it.each([
    ['minimal', ok],
    [
      'with attributes, rawState and lifecycle',
      {
        ...ok,
        rawState: 'running',
        lifecycle: 'active',
        attributes: { vmid: 101, tags: ['a', 'b'], 'ha.state': 'started', on: true },
      },
    ],
    ['a null rawState', { ...ok, rawState: null }],
  ])('accepts what the schema accepts, unchanged: %s', (_, row) => {
    const checked = checkResourceInput(row);
    expect(checked).toEqual({ ok: true, data: ResourceInputSchema.parse(row) });
  });

  it.each([
    ['a state of another kind', { ...ok, state: 'online' }],
    ['an id of another provider', { ...ok, id: 'vcenter:vc/vm/1' }],
    ['an empty name', { ...ok, name: '' }],
    ['a bad attribute key', { ...ok, attributes: { '1x': 1 } }],
    ['a mixed list', { ...ok, attributes: { l: [1, 'a'] } }],
    ['an unsafe integer', { ...ok, attributes: { n: 2 ** 60 } }],
    ['a map value', { ...ok, attributes: { m: { a: 1 } } }],
    ['an unknown lifecycle', { ...ok, lifecycle: 'gone' }],
    ['a long rawState', { ...ok, rawState: 'x'.repeat(513) }],
  ])('refuses with the schema’s own issues: %s', (_, row) => {
    const checked = checkResourceInput(row);
    const parsed = ResourceInputSchema.safeParse(row);
    expect(parsed.success).toBe(false);
    expect(checked).toEqual({ ok: false, issues: parsed.error!.issues });
  });

  it('leaves a long string value to the schema, which measures its bytes', () => {
    const row = { ...ok, attributes: { big: 'é'.repeat(5000) } };
    expect(checkResourceInput(row).ok).toBe(ResourceInputSchema.safeParse(row).success);
  });
});
