/**
 * A provider's rows written as resources: validation up front, the fixed-kind check, the SET every
 * observed row shares (also the inventory load's), and the batched upsert that reports state changes.
 */
import {
  AitiaError,
  describeZodIssues,
  groupBy,
  type Kind,
  KIND_LABELS,
  type ResourceInput,
  ResourceInputSchema,
  badInput,
} from '../../model/index.js';
import { inBatches, isoNow, readQuery } from '../db/statements.js';
import { attributeProperties, PROVIDER_WRITE_CLEARS_WRITERS } from './attributes.js';
import type { Driver } from 'neo4j-driver';

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

/** Validates rows up front so a bad row fails the call before anything is written. */
export function validateResourceRows(rows: unknown[]): ResourceInput[] {
  return rows.map((row, i) => {
    const parsed = ResourceInputSchema.safeParse(row);
    if (!parsed.success) throw badInput(`resources[${i}]`, describeZodIssues(parsed.error.issues));
    return parsed.data;
  });
}

/**
 * A resource's kind is fixed at creation; checked before any write so a clash changes nothing.
 * Returns the ids already stored (with the row's kind): a loader creates the others outright.
 */
export async function refuseKindChanges(driver: Driver, rows: ResourceInput[]): Promise<Set<string>> {
  // Ids grouped by kind: a list of strings per kind is far less to send than a map per row.
  const groups = [...groupBy(rows, (r) => r.kind)].map(([kind, rs]) => ({ kind, ids: rs.map((r) => r.id) }));
  const { records } = await readQuery(
    driver,
    `UNWIND $groups AS g
     CALL (g) {
       UNWIND g.ids AS id
       MATCH (r:Resource {id: id})
       RETURN collect(CASE WHEN r.kind = g.kind THEN id END) AS stored,
              collect(CASE WHEN r.kind <> g.kind THEN [id, r.kind] END)[0] AS clash
     }
     RETURN g.kind AS given, stored, clash`,
    { groups },
  );
  const stored = new Set<string>();
  for (const rec of records) {
    const clash = rec.get('clash') as [string, string] | null;
    if (clash)
      throw new AitiaError(
        'CONFLICT',
        `kind: ${clash[0]} is a ${clash[1]}, not a ${rec.get('given') as string}; a resource's kind is fixed at creation`,
        { field: 'kind' },
      );
    for (const id of rec.get('stored') as string[]) stored.add(id);
  }
  return stored;
}

/**
 * Whether any resource id lies in [min, max]: one seek of the id constraint's range index, so a
 * loader can tell a chunk of ids none of which is stored without looking each one up.
 */
export async function anyResourceBetween(driver: Driver, min: string, max: string): Promise<boolean> {
  const { records } = await readQuery(
    driver,
    'RETURN EXISTS { MATCH (r:Resource) WHERE r.id >= $min AND r.id <= $max } AS any',
    { min, max },
  );
  return records[0]?.get('any') === true;
}

/**
 * What a provider's row writes on its resource (upsertResources and the load pass share it): the
 * kind label, the row's fields, seen now, a missing mark lifted, lifecycle, provider attribute keys
 * and attributes. `now` is a Cypher expression for the observation time.
 */
export function observedResourceSet(kind: Kind, now: string): string {
  return `SET r:${KIND_LABELS[kind]}, r.name = row.name, r.state = row.state, r.rawState = row.rawState,
        r.lastSeen = ${now}, r.updateTag = $tag, r.missingSince = null,
        r.lifecycle = CASE WHEN row.lifecycle IS NOT NULL THEN row.lifecycle
                           WHEN r.lifecycle IS NULL THEN 'active'
                           // Seen again: back to what it was before it went missing (deprecated stays deprecated).
                           WHEN r.lifecycle = 'missing' THEN coalesce(r.lifecycleBeforeMissing, 'active')
                           ELSE r.lifecycle END,
        r.lifecycleBeforeMissing = null
    // providerAttrKeys: every key whose stored value a provider wrote (this pass's, and earlier
    // ones still stored: a partial read leaves them as they were). Readers that take a fact as
    // authority (the gate's preflight, the identity resolver) read only these.
    SET r.providerAttrKeys = [k IN coalesce(r.providerAttrKeys, [])
                              WHERE NOT k IN row.attrKeys AND r['attr.' + k] IS NOT NULL] + row.attrKeys
    SET r += row.attrs
    ${PROVIDER_WRITE_CLEARS_WRITERS}
    // An entity_type its provider's rows carry is the provider's (the gate trusts it; see target-ref.ts).
    SET r.entityTypeBy = CASE WHEN row.attrs['attr.entity_type'] IS NULL THEN r.entityTypeBy
                              ELSE 'provider:' + r.provider END`;
}

/** The attribute keys a row makes provider-owned (`row.attrKeys` above): agents cannot overwrite them. */
export function providerAttrKeys(r: ResourceInput): string[] {
  return r.provider === 'manual' ? [] : Object.keys(r.attributes ?? {});
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
      ${observedResourceSet(kind, 'datetime($now)')}
      REMOVE r.created
      RETURN row.id AS id, previous, row.state AS state, created`;
    await inBatches(kindRows, options.batchSize ?? 1000, async (batch) => {
      const params = batch.map((r) => ({
        id: r.id,
        kind: r.kind,
        provider: r.provider,
        name: r.name,
        state: r.state,
        rawState: r.rawState ?? null,
        lifecycle: r.lifecycle ?? null,
        attrs: attributeProperties(r.attributes),
        attrKeys: providerAttrKeys(r),
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
    });
  }
  return result;
}
