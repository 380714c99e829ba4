import { z } from 'zod';
import { KINDS, type Kind, type Provider, PROVIDERS } from './kinds.js';

/**
 * Resource ids are provider-scoped natural keys that survive renames:
 * `proxmox:<cluster>/qemu/<vmid>`, `proxmox:<cluster>/node/<node>`, `vcenter:<server>/vm/<moref>`,
 * `manual:service/<name>`. The first segment is always the provider.
 */
export const ResourceIdSchema = z
  .string()
  .regex(
    /^(proxmox|vcenter|manual):[^\s/][^\s]*$/,
    'must look like <provider>:<scope>/<type>/<key>, e.g. proxmox:lab/qemu/101',
  );

/**
 * Whether a reference names a resource by id (it starts with a provider prefix) rather than by its
 * `kind:name` slug: what agents type is read as one or the other by this test alone. No provider
 * is a kind, so a slug never passes it.
 */
export function isResourceId(ref: string): boolean {
  return PROVIDERS.some((p) => ref.startsWith(`${p}:`));
}

/** Builds `<provider>:<path segments joined by />`; segments may not be empty or contain spaces. */
export function resourceId(provider: Provider, ...segments: Array<string | number>): string {
  for (const s of segments) {
    const text = String(s);
    if (text === '' || /\s/.test(text))
      throw new Error(`resource id segment ${JSON.stringify(text)} is empty or has whitespace`);
  }
  return `${provider}:${segments.join('/')}`;
}

/** The provider named by an id's prefix. */
export function providerOfId(id: string): Provider | null {
  // Called for every resource a walk reaches: a slice, not split's array.
  const prefix = id.slice(0, id.indexOf(':'));
  return prefix === 'proxmox' || prefix === 'vcenter' || prefix === 'manual' ? prefix : null;
}

/** A `kind:name` slug (`vm:zimaos`): what agents type. Several resources may share one. */
export function slugOf(kind: Kind, name: string): string {
  return `${kind}:${name}`;
}

/** Splits a slug into kind and name, or explains why it is not one. */
export function parseSlug(slug: string): { ok: true; kind: Kind; name: string } | { ok: false; reason: string } {
  const at = slug.indexOf(':');
  if (at <= 0 || at === slug.length - 1) return { ok: false, reason: 'must look like <kind>:<name>, e.g. vm:web-01' };
  const kind = slug.slice(0, at);
  if (!(KINDS as readonly string[]).includes(kind)) {
    return { ok: false, reason: `unknown kind "${kind}" (kinds: ${KINDS.join(', ')})` };
  }
  return { ok: true, kind: kind as Kind, name: slug.slice(at + 1) };
}
