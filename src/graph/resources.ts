import type { Driver } from 'neo4j-driver';
import { badInput, describeZodIssues, notFound, AitiaError } from '../errors.js';
import { KIND_LABELS, parseSlug, ResourceInputSchema, type Kind, type ResourceInput } from '../model/index.js';
import { attributeProperties, resourceFromProperties, type ResourceRecord } from './resource-record.js';
import { isoNow } from './values.js';
import { groupBy } from '../util/group-by.js';

export interface UpsertOptions {
  /** The sync's update tag, written on every node it touches (stale items are found by tag). */
  updateTag?: string;
  /** When the provider reported these rows; ISO-8601. Defaults to now. */
  observedAt?: string;
  batchSize?: number;
}

/** A resource whose stored state differed from the one just written (the first sighting is not one). */
export interface StateChange {
  id: string;
  kind: Kind;
  from: string;
  to: string;
  rawState: string | null;
}

export interface UpsertResult {
  written: number;
  created: number;
  changes: StateChange[];
}

function chunk<T>(rows: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

/** Validates rows up front so a bad row fails the call before anything is written. */
export function validateResourceRows(rows: unknown[]): ResourceInput[] {
  return rows.map((row, i) => {
    const parsed = ResourceInputSchema.safeParse(row);
    if (!parsed.success) throw badInput(`resources[${i}]`, describeZodIssues(parsed.error.issues));
    return parsed.data;
  });
}

/** A resource's kind is fixed at creation; checked before any write so a clash changes nothing. */
async function refuseKindChanges(driver: Driver, rows: ResourceInput[]): Promise<void> {
  const { records } = await driver.executeQuery(
    'UNWIND $rows AS row MATCH (r:Resource {id: row.id}) WHERE r.kind <> row.kind RETURN row.id AS id, r.kind AS stored, row.kind AS given LIMIT 1',
    { rows: rows.map((r) => ({ id: r.id, kind: r.kind })) },
    { routing: 'READ' },
  );
  const clash = records[0];
  if (clash) {
    throw new AitiaError(
      'CONFLICT',
      `kind: ${clash.get('id')} is a ${clash.get('stored')}, not a ${clash.get('given')}; a resource's kind is fixed at creation`,
      {
        field: 'kind',
      },
    );
  }
}

/**
 * Batch upsert: one `UNWIND $rows` MERGE per kind and batch (labels come from KIND_LABELS, never
 * from input). Idempotent on `id`. Never touches health (scheduler-owned). Returns state changes.
 */
export async function upsertResources(
  driver: Driver,
  input: unknown[],
  options: UpsertOptions = {},
): Promise<UpsertResult> {
  const rows = validateResourceRows(input);
  const now = options.observedAt ?? isoNow();
  const result: UpsertResult = { written: 0, created: 0, changes: [] };
  await refuseKindChanges(driver, rows);
  const byKind = groupBy(rows, (r) => r.kind);
  for (const [kind, kindRows] of byKind) {
    const cypher = `
      UNWIND $rows AS row
      MERGE (r:Resource {id: row.id})
      ON CREATE SET r.kind = row.kind, r.provider = row.provider, r.firstSeen = datetime($now), r.created = true
      WITH r, row, r.state AS previous, coalesce(r.created, false) AS created
      WHERE r.kind = row.kind
      SET r:${KIND_LABELS[kind]}, r.name = row.name, r.state = row.state, r.rawState = row.rawState,
          r.lastSeen = datetime($now), r.updateTag = $tag, r.missingSince = null,
          r.lifecycle = CASE WHEN row.lifecycle IS NOT NULL THEN row.lifecycle
                             WHEN r.lifecycle IS NULL THEN 'active'
                             // Seen again: back to what it was before it went missing (deprecated stays deprecated).
                             WHEN r.lifecycle = 'missing' THEN coalesce(r.lifecycleBeforeMissing, 'active')
                             ELSE r.lifecycle END,
          r.lifecycleBeforeMissing = null
      SET r += row.attrs, r.providerAttrKeys = row.attrKeys
      REMOVE r.created
      RETURN row.id AS id, previous, row.state AS state, created`;
    for (const batch of chunk(kindRows, options.batchSize ?? 1000)) {
      const params = batch.map((r) => ({
        id: r.id,
        kind: r.kind,
        provider: r.provider,
        name: r.name,
        state: r.state,
        rawState: r.rawState ?? null,
        lifecycle: r.lifecycle ?? null,
        attrs: attributeProperties(r.attributes),
        // Keys the provider reports are provider-owned: agents cannot overwrite them.
        attrKeys: r.provider === 'manual' ? [] : Object.keys(r.attributes ?? {}),
      }));
      const res = await driver.executeQuery(cypher, { rows: params, now, tag: options.updateTag ?? null });
      for (const rec of res.records) {
        result.written++;
        if (rec.get('created')) result.created++;
        const previous = rec.get('previous') as string | null;
        const state = rec.get('state') as string;
        if (previous !== null && previous !== state) {
          const row = batch.find((r) => r.id === rec.get('id'));
          result.changes.push({ id: rec.get('id'), kind, from: previous, to: state, rawState: row?.rawState ?? null });
        }
      }
    }
  }
  return result;
}

/** One resource by id, or null. */
export async function getResourceById(driver: Driver, id: string): Promise<ResourceRecord | null> {
  const { records } = await driver.executeQuery(
    'MATCH (r:Resource {id: $id}) RETURN properties(r) AS p',
    { id },
    { routing: 'READ' },
  );
  return records[0] ? resourceFromProperties(records[0].get('p')) : null;
}

/** Many resources by id in one query, in no particular order (DataLoaders re-order). */
export async function getResourcesByIds(driver: Driver, ids: readonly string[]): Promise<ResourceRecord[]> {
  const { records } = await driver.executeQuery(
    'UNWIND $ids AS id MATCH (r:Resource {id: id}) RETURN properties(r) AS p',
    { ids: [...new Set(ids)] },
    { routing: 'READ' },
  );
  return records.map((r) => resourceFromProperties(r.get('p')));
}

/** Every resource a `kind:name` slug names (several providers may share a name). */
export async function getResourcesBySlug(driver: Driver, slug: string): Promise<ResourceRecord[]> {
  const parsed = parseSlug(slug);
  if (!parsed.ok) throw badInput('slug', parsed.reason);
  const { records } = await driver.executeQuery(
    'MATCH (r:Resource {name: $name}) WHERE r.kind = $kind RETURN properties(r) AS p ORDER BY r.id',
    { name: parsed.name, kind: parsed.kind },
    { routing: 'READ' },
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
  if (hasId) {
    const r = await getResourceById(driver, ref.id!);
    if (!r) throw notFound(field, `resource ${ref.id}`);
    return r;
  }
  const found = await getResourcesBySlug(driver, ref.slug!);
  if (found.length === 0) throw notFound('slug', `resource ${ref.slug}`);
  if (found.length > 1) {
    throw badInput(
      'slug',
      `${ref.slug} is ambiguous: ${found.length} resources match (${found.map((r) => r.id).join(', ')}); use one of these ids`,
      {
        candidates: found.map((r) => r.id),
      },
    );
  }
  return found[0]!;
}
