import { z } from 'zod';
import type { Attributes } from './attributes.js';
import type { Declaration } from './declared.js';
import type { Provider } from './kinds.js';
import type { Role } from './roles.js';

/*
 * Who owns each of a resource's attributes, read side: the write side (who may write a key) is
 * attribute-ownership.ts. Each key a principal writes through the service records its writer on
 * the node (`attrBy.<key>`, beside `attr.<key>`); a provider's or a declaration's write of the key
 * clears that record, so the last writer is the owner.
 */

export const ATTRIBUTE_OWNER_KINDS = ['provider', 'operator', 'agent', 'declared'] as const;
export const AttributeOwnerKindSchema = z
  .enum(ATTRIBUTE_OWNER_KINDS)
  .describe(
    "Who wrote an attribute: its provider's ingest, an operator, an agent, or declared (with a declared resource by its declarer, or by a principal aitia did not record: written before writers were recorded).",
  );
export type AttributeOwnerKind = z.infer<typeof AttributeOwnerKindSchema>;

/** Writer records live on the node as `attrBy.<key>` properties: `[by, name, at]`. */
export const ATTRIBUTE_WRITER_PREFIX = 'attrBy.';

/** Who last wrote a key: a principal's role, or `declarer` for the attributes a declaration carried. */
export interface AttributeWriter {
  by: Role | 'declarer';
  name: string;
  /** ISO-8601, UTC. */
  at: string;
}

/** One attribute's owner, as the API answers it. */
export interface AttributeOwnerEntry {
  key: string;
  owner: AttributeOwnerKind;
  /** The writer's name, or the provider (`proxmox`); null when nobody was recorded. */
  principal: string | null;
  at: string | null;
}

/** A writer record as stored (a list of three strings). */
export function writerRecord(w: AttributeWriter): string[] {
  return [w.by, w.name, w.at];
}

/** A stored writer record, or null when it is not one (so a damaged record reads as unrecorded). */
export function parseWriterRecord(raw: unknown): AttributeWriter | null {
  if (!Array.isArray(raw) || raw.length !== 3 || !raw.every((x) => typeof x === 'string')) return null;
  const [by, name, at] = raw as [string, string, string];
  const known = ['agent', 'scheduler', 'ingester', 'operator', 'declarer'];
  return known.includes(by) ? { by: by as AttributeWriter['by'], name, at } : null;
}

/** What the owner rule reads of a resource. */
export interface AttributeOwnerFacts {
  provider: Provider;
  attributes: Attributes;
  providerAttributeKeys: readonly string[];
  attributeWriters?: Readonly<Record<string, AttributeWriter>>;
  declaration?: Declaration | null;
  /** `role:name` of entity_type's writer, recorded before per-key writers were (see target-ref.ts). */
  entityTypeBy?: string | null;
}

function ownerOfRole(by: string): AttributeOwnerKind {
  return by === 'operator' ? 'operator' : by === 'declarer' ? 'declared' : by === 'provider' ? 'provider' : 'agent';
}

/**
 * The owner of one key: its recorded writer; else, for entity_type, who `entityTypeBy` names; else
 * the provider when its ingest wrote the key; else declared (by the declarer of a declared
 * resource, or by someone unrecorded).
 */
export function ownerOfAttribute(key: string, r: AttributeOwnerFacts): AttributeOwnerEntry {
  const w = r.attributeWriters?.[key];
  if (w) return { key, owner: ownerOfRole(w.by), principal: w.name, at: w.at };
  if (key === 'entity_type' && r.entityTypeBy) {
    const at = r.entityTypeBy.indexOf(':');
    if (at > 0) {
      const by = r.entityTypeBy.slice(0, at);
      return { key, owner: ownerOfRole(by), principal: r.entityTypeBy.slice(at + 1), at: null };
    }
  }
  if (r.provider !== 'manual' && r.providerAttributeKeys.includes(key))
    return { key, owner: 'provider', principal: r.provider, at: null };
  return { key, owner: 'declared', principal: r.declaration?.by || null, at: null };
}

/** Every current attribute's owner, by key. */
export function attributeOwners(r: AttributeOwnerFacts): AttributeOwnerEntry[] {
  return Object.keys(r.attributes)
    .sort()
    .map((k) => ownerOfAttribute(k, r));
}
