/**
 * Reading resources: the node-to-record decoding every read shares, reads by id and slug, and the
 * ref resolution (an id or a `kind:name` slug to one resource) that reads and writes start from.
 */
import {
  badInput,
  type Health,
  type Kind,
  type Lifecycle,
  notFound,
  parseSlug,
  type Provider,
  type ResourceRecord,
  slugOf,
  ATTRIBUTE_PREFIX,
  ATTRIBUTE_WRITER_PREFIX,
  type Attributes,
  type AttributeWriter,
  parseWriterRecord,
} from '../../model/index.js';
import { coalescedRead } from '../db/coalesced-read.js';
import { readQuery, toPlain } from '../db/statements.js';
import type { Driver } from 'neo4j-driver';

/** The Cypher projection every read uses, so records come back in one shape. */
export const RESOURCE_PROJECTION = 'properties(r)';

/**
 * Builds a record from a node's properties; `attr.*` properties become `attributes`, `attrBy.*`
 * their writers (a writer of a key no longer stored is left out).
 */
export function resourceFromProperties(raw: unknown): ResourceRecord {
  const p = toPlain(raw) as Record<string, unknown>;
  const attributes: Attributes = {};
  const attributeWriters: Record<string, AttributeWriter> = {};
  for (const k in p) {
    if (k.startsWith(ATTRIBUTE_PREFIX)) attributes[k.slice(ATTRIBUTE_PREFIX.length)] = p[k] as Attributes[string];
  }
  for (const k in p) {
    const key = k.startsWith(ATTRIBUTE_WRITER_PREFIX) ? k.slice(ATTRIBUTE_WRITER_PREFIX.length) : null;
    const writer = key !== null && Object.hasOwn(attributes, key) ? parseWriterRecord(p[k]) : null;
    if (writer) attributeWriters[key!] = writer;
  }
  return {
    ...identityResource(String(p.id), p.kind as Kind, String(p.name ?? ''), p.provider as Provider),
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
    declaration:
      p.provenance === 'declared'
        ? {
            by: String(p.declaredBy ?? ''),
            evidence: (p.evidence as string | null) ?? null,
            at: (p.firstSeen as string | null) ?? null,
          }
        : null,
    entityTypeBy: typeof p.entityTypeBy === 'string' ? p.entityTypeBy : null,
    attributeWriters,
  };
}

/**
 * A record of what identifies a resource (a walk's identity view), the other fields as a node
 * without them reads: what {@link resourceFromProperties} gives for `{id, kind, name, provider}`.
 */
export function identityResource(id: string, kind: Kind, name: string, provider: Provider): ResourceRecord {
  return {
    id,
    kind,
    provider,
    name,
    slug: slugOf(kind, name),
    state: 'unknown',
    rawState: null,
    lifecycle: 'active',
    attributes: {},
    health: 'unknown',
    lastCheckAt: null,
    firstSeen: null,
    lastSeen: null,
    missingSince: null,
    providerAttributeKeys: [],
    entityTypeBy: null,
    declaration: null,
    attributeWriters: {},
  };
}

/** One resource by id, or null. */
export async function getResourceById(driver: Driver, id: string): Promise<ResourceRecord | null> {
  const { records } = await coalescedRead(driver, 'MATCH (r:Resource {id: $id}) RETURN properties(r) AS p', { id }, [
    'id',
  ]);
  return records[0] ? resourceFromProperties(records[0].get('p')) : null;
}

/** Many resources by id in one query, in no particular order (DataLoaders re-order). */
export async function getResourcesByIds(driver: Driver, ids: readonly string[]): Promise<ResourceRecord[]> {
  const { records } = await readQuery(
    driver,
    'UNWIND $ids AS id MATCH (r:Resource {id: id}) RETURN properties(r) AS p',
    {
      ids: [...new Set(ids)],
    },
  );
  return records.map((r) => resourceFromProperties(r.get('p')));
}

/** Every resource a `kind:name` slug names (several providers may share a name). */
export async function getResourcesBySlug(driver: Driver, slug: string): Promise<ResourceRecord[]> {
  const parsed = parseSlug(slug);
  if (!parsed.ok) throw badInput('slug', parsed.reason);
  // The hint keeps the seek on the name index: with stale index statistics (just after a large
  // load) the planner otherwise scans the whole kind index — every VM for one VM's slug.
  const { records } = await coalescedRead(
    driver,
    'MATCH (r:Resource {name: $name}) USING INDEX r:Resource(name) WHERE r.kind = $kind RETURN properties(r) AS p ORDER BY r.id',
    { name: parsed.name, kind: parsed.kind },
    ['name', 'kind'],
  );
  return records.map((r) => resourceFromProperties(r.get('p')));
}

/**
 * Resolves exactly one of id or slug to one resource. An ambiguous slug is an error that lists the
 * candidates' ids, so the caller can retry with the one it meant.
 */
export async function resolveResource(
  driver: Driver,
  ref: { id?: string | null; slug?: string | null },
  field = 'id',
): Promise<ResourceRecord> {
  const hasId = ref.id != null && ref.id !== '';
  const hasSlug = ref.slug != null && ref.slug !== '';
  if (hasId === hasSlug) throw badInput(field, 'give exactly one of id or slug');
  const found = hasId
    ? [await getResourceById(driver, ref.id!)].filter((r) => r !== null)
    : await getResourcesBySlug(driver, ref.slug!);
  const id = oneRefId(
    found.map((r) => r.id),
    hasId ? { id: ref.id! } : { slug: ref.slug! },
    field,
  );
  return found.find((r) => r.id === id)!;
}

/** A reference to one resource, as input gives it. */
export type ResourceRef = { id: string } | { slug: string };

/**
 * The start of a read that resolves a ref in the same statement: binds `rids` to the ids it names
 * (an id, when stored; a slug, every match in id order). `oneRefId` then picks or refuses.
 */
export function refIdsCypher(ref: ResourceRef): { cypher: string; params: Record<string, unknown> } {
  if ('id' in ref) {
    return {
      cypher: 'OPTIONAL MATCH (ref:Resource {id: $refId}) WITH collect(ref.id) AS rids',
      params: { refId: ref.id },
    };
  }
  const parsed = parseSlug(ref.slug);
  if (!parsed.ok) throw badInput('slug', parsed.reason);
  return {
    cypher: `OPTIONAL MATCH (ref:Resource {name: $refName}) USING INDEX ref:Resource(name) WHERE ref.kind = $refKind
             WITH ref ORDER BY ref.id WITH collect(ref.id) AS rids`,
    params: { refName: parsed.name, refKind: parsed.kind },
  };
}

/** The one id a ref names among `ids`; none is NOT_FOUND, several (a shared name) lists the candidates. */
export function oneRefId(ids: readonly string[], ref: ResourceRef, field = 'id'): string {
  if ('id' in ref) {
    if (ids.length === 0) throw notFound(field, `resource ${ref.id}`);
    return ids[0]!;
  }
  if (ids.length === 0) throw notFound('slug', `resource ${ref.slug}`);
  if (ids.length > 1) {
    throw badInput(
      'slug',
      `${ref.slug} is ambiguous: ${ids.length} resources match (${ids.join(', ')}); use one of these ids`,
      { candidates: [...ids] },
    );
  }
  return ids[0]!;
}
