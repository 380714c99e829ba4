import { describe, expect, it } from 'vitest';
import {
  ResourceIdSchema,
  ResourceInputSchema,
  isResourceId,
  parseSlug,
  providerOfId,
  resourceId,
  slugOf,
} from '../../../src/model/index.js';

describe('resource ids and slugs', () => {
  it('builds provider-scoped natural keys', () => {
    expect(resourceId('proxmox', 'lab', 'qemu', 101)).toBe('proxmox:lab/qemu/101');
    expect(resourceId('vcenter', 'vc1.lan', 'vm', 'vm-42')).toBe('vcenter:vc1.lan/vm/vm-42');
    expect(providerOfId('manual:service/dns')).toBe('manual');
    expect(providerOfId('nope:x')).toBeNull();
    expect(() => resourceId('proxmox', 'lab', '')).toThrow(/empty/);
    expect(ResourceIdSchema.safeParse('proxmox:lab/qemu/101').success).toBe(true);
    expect(ResourceIdSchema.safeParse('web-01').success).toBe(false);
  });

  it('tells ids from slugs by the provider prefix alone', () => {
    expect(isResourceId('proxmox:lab/qemu/101')).toBe(true);
    expect(isResourceId('vcenter:vc1.lan/vm/vm-42')).toBe(true);
    expect(isResourceId('manual:')).toBe(true);
    expect(isResourceId('vm:web-01')).toBe(false);
    expect(isResourceId('proxmox')).toBe(false);
    expect(isResourceId(' proxmox:lab/qemu/101')).toBe(false);
    expect(isResourceId('')).toBe(false);
  });

  it('parses kind:name slugs and explains bad ones', () => {
    expect(slugOf('vm', 'zimaos')).toBe('vm:zimaos');
    expect(parseSlug('vm:zimaos')).toEqual({ ok: true, kind: 'vm', name: 'zimaos' });
    expect(parseSlug('service:a:b')).toEqual({ ok: true, kind: 'service', name: 'a:b' });
    expect(parseSlug('zimaos')).toMatchObject({ ok: false });
    expect(parseSlug('toaster:x')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('unknown kind "toaster"'),
    });
  });

  it('refuses a state outside the kind and a provider that does not own the id', () => {
    const r = ResourceInputSchema.safeParse({
      id: 'proxmox:lab/qemu/1',
      kind: 'vm',
      provider: 'vcenter',
      name: 'a',
      state: 'online',
    });
    expect(r.success).toBe(false);
    const messages = r.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^state: "online" is not a vm state/),
        expect.stringMatching(/^provider:/),
      ]),
    );
  });
});
