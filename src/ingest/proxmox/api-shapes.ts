import { z } from 'zod';

/**
 * The Proxmox answers inventory reads, validated at the edge. Objects are loose (Proxmox adds
 * fields between releases); numbers may arrive as strings from some endpoints, so they are coerced.
 * Required fields are the ones an id or a state is built from; everything else is optional.
 */
const num = z.union([
  z.number(),
  z
    .string()
    .regex(/^-?\d+(?:\.\d+)?$/)
    .transform(Number),
]);
const flag = z.union([z.boolean(), num]).transform((v) => v === true || v === 1);
const text = z.string();

/** `/cluster/status` entry of type `cluster` (absent on a single, unclustered node). */
export const ClusterEntrySchema = z.looseObject({
  type: z.literal('cluster'),
  name: text.regex(/^\S+$/, 'cluster name must not contain whitespace'),
  quorate: flag.optional(),
  nodes: num.optional(),
  version: num.optional(),
});
export type ClusterEntry = z.infer<typeof ClusterEntrySchema>;

/** `/cluster/status` entry of type `node`. */
export const ClusterNodeSchema = z.looseObject({
  type: z.literal('node'),
  name: text.min(1),
  nodeid: num.optional(),
  ip: text.optional(),
  online: flag.optional(),
  local: flag.optional(),
  level: text.optional(),
});
export type ClusterNode = z.infer<typeof ClusterNodeSchema>;

/** `/cluster/resources` node entry. */
export const NodeEntrySchema = z.looseObject({
  type: z.literal('node'),
  node: text,
  status: text.optional(),
  maxcpu: num.optional(),
  maxmem: num.optional(),
  maxdisk: num.optional(),
  level: text.optional(),
});
export type NodeEntry = z.infer<typeof NodeEntrySchema>;

/** `/cluster/resources` guest entry (`qemu` or `lxc`); `hastate` and `lock` only when set. */
export const GuestEntrySchema = z.looseObject({
  type: z.enum(['qemu', 'lxc']),
  vmid: num.pipe(z.number().int().positive()),
  node: text.min(1),
  status: text.optional(),
  name: text.optional(),
  template: flag.optional(),
  hastate: text.optional(),
  lock: text.optional(),
  tags: text.optional(),
  maxmem: num.optional(),
  maxcpu: num.optional(),
  maxdisk: num.optional(),
});
export type GuestEntry = z.infer<typeof GuestEntrySchema>;

/** `/cluster/resources` storage entry: one per (node, storage). */
export const StorageEntrySchema = z.looseObject({
  type: z.literal('storage'),
  storage: text.min(1),
  node: text.min(1),
  status: text.optional(),
  plugintype: text.optional(),
  content: text.optional(),
  shared: flag.optional(),
  maxdisk: num.optional(),
});
export type StorageEntry = z.infer<typeof StorageEntrySchema>;

/** `…/status/current` of a guest: the finer state (`qmpstatus`, `lock`), `agent`, `ha`. */
export const GuestStatusSchema = z.looseObject({
  status: text,
  qmpstatus: text.optional(),
  lock: text.optional(),
  agent: flag.optional(),
  template: flag.optional(),
  name: text.optional(),
  tags: text.optional(),
  ha: z.looseObject({ managed: flag.optional(), state: text.optional() }).optional(),
});
export type GuestStatus = z.infer<typeof GuestStatusSchema>;

/**
 * An entry of `GET /nodes/{node}/qemu?full=1` or `GET /nodes/{node}/lxc`: the same `vmstatus` hash
 * status/current starts from (qemu-server `vmstatus_return_properties`, pve-container
 * `PVE::LXC::vmstatus`): `status`, `qmpstatus` (QEMU with `full=1`), `lock`, `template`, `name`,
 * `tags`. Without status/current's additions: `ha` (the listing's `hastate` says it), `agent` (the
 * config says it), `spice`, `clipboard`. LXC lists may send `vmid` as a string.
 */
export const NodeGuestEntrySchema = GuestStatusSchema.extend({
  vmid: num.pipe(z.number().int().positive()),
});
export type NodeGuestEntry = z.infer<typeof NodeGuestEntrySchema>;

/** `…/config`: a flat map of option → value (property strings, numbers). */
export const GuestConfigSchema = z.record(z.string(), z.unknown());
