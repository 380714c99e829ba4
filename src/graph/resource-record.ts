import {
  ATTRIBUTE_PREFIX,
  slugOf,
  type Attributes,
  type Health,
  type Kind,
  type Lifecycle,
  type Provider,
} from '../model/index.js';
import { toPlain } from './values.js';

/** A Resource as the graph returns it. */
export interface ResourceRecord {
  id: string;
  kind: Kind;
  provider: Provider;
  name: string;
  slug: string;
  state: string;
  rawState: string | null;
  lifecycle: Lifecycle;
  attributes: Attributes;
  health: Health;
  lastCheckAt: string | null;
  firstSeen: string | null;
  lastSeen: string | null;
  missingSince: string | null;
  /** Attribute keys the provider reported; agents cannot overwrite them. */
  providerAttributeKeys: string[];
}

/** The Cypher projection every read uses, so records come back in one shape. */
export const RESOURCE_PROJECTION = 'properties(r)';

/** Builds a record from a node's properties; `attr.*` properties become `attributes`. */
export function resourceFromProperties(raw: unknown): ResourceRecord {
  const p = toPlain(raw) as Record<string, unknown>;
  const attributes: Attributes = {};
  for (const [k, v] of Object.entries(p)) {
    if (k.startsWith(ATTRIBUTE_PREFIX)) attributes[k.slice(ATTRIBUTE_PREFIX.length)] = v as Attributes[string];
  }
  const kind = p.kind as Kind;
  const name = String(p.name ?? '');
  return {
    id: String(p.id),
    kind,
    provider: p.provider as Provider,
    name,
    slug: slugOf(kind, name),
    state: String(p.state ?? 'unknown'),
    rawState: (p.rawState as string | null) ?? null,
    lifecycle: (p.lifecycle as Lifecycle | null) ?? 'active',
    attributes,
    health: (p.health as Health | null) ?? 'unknown',
    lastCheckAt: (p.lastCheckAt as string | null) ?? null,
    firstSeen: (p.firstSeen as string | null) ?? null,
    lastSeen: (p.lastSeen as string | null) ?? null,
    missingSince: (p.missingSince as string | null) ?? null,
    providerAttributeKeys: (p.providerAttrKeys as string[] | null) ?? [],
  };
}

/** Attributes as node properties (`attr.<key>`), for `SET r += $props`. */
export function attributeProperties(attributes: Attributes | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(attributes ?? {}).map(([k, v]) => [ATTRIBUTE_PREFIX + k, v]));
}
