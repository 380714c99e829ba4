import {
  AitiaError,
  ATTRIBUTE_PREFIX,
  AttributeKeySchema,
  type AttributePlan,
  type Attributes,
  badInput,
  type ConditionType,
  describeZodIssues,
  groupBy,
  type Health,
  type Kind,
  KIND_LABELS,
  type Lifecycle,
  notFound,
  parseSlug,
  planAttributeUpdate,
  type Provider,
  type ResourceInput,
  ResourceInputSchema,
  type ResourceRecord,
  type Role,
  slugOf,
  type EdgeRecord,
} from '../model/index.js';
import { type AuditInput, writeWithAudit } from './audit.js';
import { resolveConditionsTx } from './conditions.js';
import { mergeEdgeTx } from './edges.js';
import { coalescedRead } from './db/coalesced-read.js';
import { inBatches, int, isoNow, readQuery, toPlain } from './db/statements.js';
import type { Driver } from 'neo4j-driver';

/** The Cypher projection every read uses, so records come back in one shape. */
export const RESOURCE_PROJECTION = 'properties(r)';

/** Builds a record from a node's properties; `attr.*` properties become `attributes`. */
export function resourceFromProperties(raw: unknown): ResourceRecord {
  const p = toPlain(raw) as Record<string, unknown>;
  const attributes: Attributes = {};
  for (const k in p) {
    if (k.startsWith(ATTRIBUTE_PREFIX)) attributes[k.slice(ATTRIBUTE_PREFIX.length)] = p[k] as Attributes[string];
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
  };
}

/** Attributes as node properties (`attr.<key>`), for `SET r += $props`. */
export function attributeProperties(attributes: Attributes | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(attributes ?? {}).map(([k, v]) => [ATTRIBUTE_PREFIX + k, v]));
}

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

/**
 * Merges an agent's or operator's attributes into a resource. Owned keys are stripped and listed;
 * an invalid key or value refuses the whole update (nothing written), an operator-owned key from
 * anyone else is FORBIDDEN. Writing `entity_type` records who did (`entityTypeBy`), so the gate
 * can tell an operator's refinement from one it cannot vouch for.
 */
export async function updateAttributes(
  driver: Driver,
  id: string,
  input: unknown,
  audit?: () => AuditInput,
  writer: { name: string; role: Role } = { name: 'unknown', role: 'agent' },
): Promise<{ resource: ResourceRecord; ignored: AttributePlan['ignored']; message: string }> {
  const current = await getResourceById(driver, id);
  if (!current) throw notFound('id', `resource ${id}`);
  const planned = planAttributeUpdate(input, current, writer);
  if (!planned.ok && planned.code === 'FORBIDDEN')
    throw new AitiaError('FORBIDDEN', `${planned.field}: ${planned.reason}`, { field: planned.field });
  if (!planned.ok) throw badInput(planned.field, planned.reason);
  const { plan } = planned;
  const props: Record<string, unknown> = Object.fromEntries(
    Object.entries(plan.set).map(([k, v]) => [ATTRIBUTE_PREFIX + k, v]),
  );
  if (Object.hasOwn(plan.set, 'entity_type'))
    props.entityTypeBy = plan.set.entity_type === null ? null : `${writer.role}:${writer.name}`;
  let resource = current;
  if (Object.keys(props).length > 0) {
    const { records } = await writeWithAudit(
      driver,
      (tx) => tx.run('MATCH (r:Resource {id: $id}) SET r += $props RETURN properties(r) AS p', { id, props }),
      audit,
    );
    resource = resourceFromProperties(records[0]!.get('p'));
  }
  return { resource, ignored: plan.ignored, message: plan.message };
}

/**
 * Removes attributes a provider stopped reporting (a lock that ended, tags removed), batched.
 * `upsertResources` only adds and overwrites (`SET r += …`); setting a property to null through
 * the same map removes it. Keys are validated: they become property names.
 */
export async function clearAttributes(
  driver: Driver,
  rows: ReadonlyArray<{ id: string; keys: readonly string[] }>,
  options: { batchSize?: number } = {},
): Promise<number> {
  const params = rows
    .filter((r) => r.keys.length > 0)
    .map((r) => {
      for (const k of r.keys) {
        if (!AttributeKeySchema.safeParse(k).success) throw new Error(`not an attribute key: ${JSON.stringify(k)}`);
      }
      return {
        id: r.id,
        keys: [...r.keys],
        nulls: Object.fromEntries(r.keys.map((k) => [ATTRIBUTE_PREFIX + k, null])),
      };
    });
  let touched = 0;
  await inBatches(params, options.batchSize ?? 1000, async (batch) => {
    const { records } = await driver.executeQuery(
      `UNWIND $rows AS row MATCH (r:Resource {id: row.id})
       SET r += row.nulls, r.providerAttrKeys = [k IN coalesce(r.providerAttrKeys, []) WHERE NOT k IN row.keys]
       RETURN count(r) AS n`,
      { rows: batch },
    );
    touched += Number(records[0]?.get('n') ?? 0);
  });
  return touched;
}

/** A lifecycle an operator set, with who, why and when. */
export interface LifecycleChange {
  lifecycle: Lifecycle;
  reason: string;
  /** The principal that set it. */
  by: string;
  at?: string;
}

/**
 * Sets a resource's lifecycle and keeps the reason, the principal and the time on the node
 * (`lifecycleReason`, `lifecycleSetBy`, `lifecycleSetAt`). Idempotent: setting the lifecycle the
 * resource already has writes nothing. Returns null when there is no such resource.
 */
export async function setResourceLifecycle(
  driver: Driver,
  id: string,
  change: LifecycleChange,
  audit?: () => AuditInput,
): Promise<{ resource: ResourceRecord; previous: Lifecycle } | null> {
  // The audit line is written with the change, and only when there was a resource to change.
  const { records } = await writeWithAudit(
    driver,
    (tx) =>
      tx.run(
        `MATCH (r:Resource {id: $id})
     WITH r, coalesce(r.lifecycle, 'active') AS previous
     FOREACH (_ IN CASE WHEN previous <> $lifecycle THEN [1] ELSE [] END |
       SET r.lifecycle = $lifecycle, r.lifecycleReason = $reason, r.lifecycleSetBy = $by, r.lifecycleSetAt = datetime($at))
     RETURN previous, properties(r) AS p`,
        { id, lifecycle: change.lifecycle, reason: change.reason, by: change.by, at: change.at ?? isoNow() },
      ),
    (res) => (res.records.length > 0 ? (audit?.() ?? null) : null),
  );
  const record = records[0];
  if (!record) return null;
  return { resource: resourceFromProperties(record.get('p')), previous: record.get('previous') as Lifecycle };
}

/**
 * Deletes everything of one scope: resources whose id starts with one of `prefixes` or is one of
 * `ids`, and the events, transitions, conditions, checks and cursors that belong to them, whoever
 * wrote them. Only for tests' clean-up: the demo deletes only its own (graph/demo-scope.ts).
 * Refuses a prefix that is not a whole scope.
 */
export async function resetScope(
  driver: Driver,
  prefixes: readonly string[],
  ids: readonly string[] = [],
): Promise<number> {
  for (const p of prefixes)
    if (!/^(proxmox|vcenter|manual):[^\s]+\/$/.test(p))
      throw badInput('prefixes', `${p} must be a scope ending in / (e.g. proxmox:homelab/)`);
  let deleted = 0;
  for (;;) {
    const { records } = await driver.executeQuery(
      `MATCH (n) WHERE any(p IN $prefixes WHERE n.id STARTS WITH p OR n.resourceId STARTS WITH p OR n.hostId STARTS WITH p)
          OR n.id IN $ids OR n.resourceId IN $ids
       WITH n LIMIT 5000 DETACH DELETE n RETURN count(*) AS n`,
      { prefixes: [...prefixes], ids: [...ids] },
    );
    const n = Number(records[0]?.get('n') ?? 0);
    deleted += n;
    if (n === 0) return deleted;
  }
}

/**
 * Staleness, never deletion. Only a complete, successful sync of a scope may call the marking
 * functions here (Cartography's cleanup after a partial fetch deleted valid data: aitia marks, and
 * only after a complete fetch). A resource seen again is un-marked by upsertResources.
 */

/** A scope is an id prefix such as `proxmox:lab` (matched as `proxmox:lab/…`). */
function prefixOf(scope: string): string {
  return scope.endsWith('/') ? scope : `${scope}/`;
}

/**
 * Marks resources of the scope that the sync tagged `updateTag` did not touch: `missingSince`
 * (kept from the first time) and lifecycle `missing`. `kinds` narrows the scope (an import that
 * only carried VMs must not mark hosts). Destroyed resources are left alone.
 */
export async function markUnseenResourcesMissing(
  driver: Driver,
  options: { scope: string; updateTag: string; kinds?: readonly Kind[] | null; at?: string },
): Promise<{ marked: number; newlyMarked: number }> {
  const { records } = await driver.executeQuery(
    `MATCH (r:Resource)
     WHERE r.id STARTS WITH $prefix AND coalesce(r.updateTag, '') <> $tag
       AND ($kinds IS NULL OR r.kind IN $kinds) AND coalesce(r.lifecycle, 'active') <> 'destroyed'
     WITH r, r.missingSince IS NULL AS fresh
     SET r.missingSince = coalesce(r.missingSince, datetime($at)),
        r.lifecycleBeforeMissing = CASE WHEN r.lifecycle = 'missing' THEN r.lifecycleBeforeMissing ELSE coalesce(r.lifecycle, 'active') END,
        r.lifecycle = 'missing'
     RETURN count(r) AS marked, sum(CASE WHEN fresh THEN 1 ELSE 0 END) AS newly`,
    {
      prefix: prefixOf(options.scope),
      tag: options.updateTag,
      kinds: options.kinds ?? null,
      at: options.at ?? isoNow(),
    },
  );
  return { marked: Number(records[0]?.get('marked') ?? 0), newlyMarked: Number(records[0]?.get('newly') ?? 0) };
}

/**
 * Records that resources were seen by the sync tagged `updateTag` without rewriting their state or
 * attributes (a guest the listing showed whose detail calls failed): their existence is confirmed,
 * so a complete sync must not mark them missing, and a missing mark is lifted.
 */
export async function markResourcesSeen(
  driver: Driver,
  ids: readonly string[],
  options: { updateTag: string; at?: string },
): Promise<number> {
  if (ids.length === 0) return 0;
  const { records } = await driver.executeQuery(
    `UNWIND $ids AS id MATCH (r:Resource {id: id})
     SET r.updateTag = $tag, r.lastSeen = datetime($at), r.missingSince = null,
         r.lifecycle = CASE WHEN r.lifecycle = 'missing' THEN coalesce(r.lifecycleBeforeMissing, 'active') ELSE r.lifecycle END,
         r.lifecycleBeforeMissing = null
     RETURN count(r) AS n`,
    { ids: [...ids], tag: options.updateTag, at: options.at ?? isoNow() },
  );
  return Number(records[0]?.get('n') ?? 0);
}

/** Marks named resources missing (e.g. a placeholder superseded by the real cluster). */
export async function markResourcesMissing(
  driver: Driver,
  ids: readonly string[],
  at: string = isoNow(),
): Promise<number> {
  const { records } = await driver.executeQuery(
    `UNWIND $ids AS id MATCH (r:Resource {id: id})
     SET r.missingSince = coalesce(r.missingSince, datetime($at)),
        r.lifecycleBeforeMissing = CASE WHEN r.lifecycle = 'missing' THEN r.lifecycleBeforeMissing ELSE coalesce(r.lifecycle, 'active') END,
        r.lifecycle = 'missing'
     RETURN count(r) AS n`,
    { ids: [...ids], at },
  );
  return Number(records[0]?.get('n') ?? 0);
}

/**
 * Observed edges asserted by `source` from resources of the scope: those the sync tagged
 * `updateTag` lose any `missingSince`; when `markUnseen` (a complete sync) the others get one.
 * `kinds` narrows to edges leaving resources of those kinds (what a partial-kind import covered).
 * Edges are marked like resources, not deleted, so what was once observed stays auditable.
 */
export async function refreshEdgeStaleness(
  driver: Driver,
  options: {
    scope: string;
    source: string;
    updateTag: string;
    markUnseen: boolean;
    kinds?: readonly Kind[] | null;
    at?: string;
  },
): Promise<{ marked: number; cleared: number }> {
  const { records } = await driver.executeQuery(
    `MATCH (a:Resource)-[e]->(:Resource)
     WHERE a.id STARTS WITH $prefix AND e.source = $source AND e.provenance = 'observed'
       AND ($kinds IS NULL OR a.kind IN $kinds)
     WITH e, coalesce(e.updateTag = $tag, false) AS seen
     WHERE (seen AND e.missingSince IS NOT NULL) OR (NOT seen AND $mark AND e.missingSince IS NULL)
     SET e.missingSince = CASE WHEN seen THEN null ELSE datetime($at) END
     RETURN sum(CASE WHEN seen THEN 0 ELSE 1 END) AS marked, sum(CASE WHEN seen THEN 1 ELSE 0 END) AS cleared`,
    {
      prefix: prefixOf(options.scope),
      source: options.source,
      tag: options.updateTag,
      mark: options.markUnseen,
      kinds: options.kinds ?? null,
      at: options.at ?? isoNow(),
    },
  );
  return { marked: Number(records[0]?.get('marked') ?? 0), cleared: Number(records[0]?.get('cleared') ?? 0) };
}

/** Resources a complete sync no longer saw, oldest first: for operators to confirm or clean up. */
export async function listMissingResources(
  driver: Driver,
  options: { provider?: Provider | null; scope?: string | null; first?: number } = {},
): Promise<ResourceRecord[]> {
  const { records } = await driver.executeQuery(
    `MATCH (r:Resource) WHERE r.missingSince IS NOT NULL
       AND ($provider IS NULL OR r.provider = $provider)
       AND ($prefix IS NULL OR r.id STARTS WITH $prefix)
     RETURN properties(r) AS p ORDER BY r.missingSince, r.id LIMIT $first`,
    {
      provider: options.provider ?? null,
      prefix: options.scope ? prefixOf(options.scope) : null,
      first: int(Math.min(Math.max(options.first ?? 500, 1), 10_000)),
    },
    { routing: 'READ' },
  );
  return records.map((r) => resourceFromProperties(r.get('p')));
}

/** A resource an agent or operator declares (e.g. a service it discovered), with its placement. */
export interface DeclaredResourceInput {
  kind: Kind;
  name: string;
  /** What it runs on, by id; declared placement, kept apart from what providers observe. */
  runsOnId: string | null;
  /** Descriptive attributes only (the service checks them). */
  attributes: Attributes;
  declaredBy: string;
  evidence: string | null;
  at: string;
}

/**
 * The `manual:` resource already declared for (kind, name, runsOn), if any: declarations are
 * idempotent on that triple, whatever id they got.
 */
export async function findDeclaredResource(
  driver: Driver,
  key: { kind: Kind; name: string; runsOnId: string | null },
): Promise<ResourceRecord | null> {
  const { records } = await driver.executeQuery(
    `MATCH (r:Resource {name: $name}) USING INDEX r:Resource(name) WHERE r.kind = $kind AND r.provider = 'manual'
       AND CASE WHEN $runsOn IS NULL THEN NOT EXISTS { (r)-[:RUNS_ON]->() }
                ELSE EXISTS { (r)-[:RUNS_ON]->(:Resource {id: $runsOn}) } END
     RETURN properties(r) AS p ORDER BY r.id LIMIT 1`,
    { kind: key.kind, name: key.name, runsOn: key.runsOnId },
    { routing: 'READ' },
  );
  return records[0] ? resourceFromProperties(records[0].get('p')) : null;
}

/**
 * Creates (or refreshes) a declared `manual:` resource and its declared RUNS_ON edge in one
 * transaction: provenance `declared`, who declared it and the evidence on the node and the edge.
 */
export async function declareManualResource(
  driver: Driver,
  id: string,
  input: DeclaredResourceInput,
  audit?: () => AuditInput,
): Promise<{ resource: ResourceRecord; created: boolean; relationship: EdgeRecord | null }> {
  const label = KIND_LABELS[input.kind];
  return writeWithAudit(
    driver,
    async (tx) => {
      const res = await tx.run(
        `MERGE (r:Resource {id: $id})
         ON CREATE SET r:${label}, r.isNew = true, r.kind = $kind, r.provider = 'manual', r.name = $name,
           r.state = 'unknown', r.lifecycle = 'active', r.provenance = 'declared', r.declaredBy = $by,
           r.firstSeen = datetime($at)
         SET r += $attrs, r.evidence = $evidence, r.lastSeen = datetime($at)
         WITH r, coalesce(r.isNew, false) AS created
         REMOVE r.isNew
         RETURN properties(r) AS p, created`,
        {
          id,
          kind: input.kind,
          name: input.name,
          by: input.declaredBy,
          evidence: input.evidence,
          at: input.at,
          attrs: attributeProperties(input.attributes),
        },
      );
      const rec = res.records[0]!;
      const edge = input.runsOnId
        ? await mergeEdgeTx(
            tx,
            {
              type: 'RUNS_ON',
              fromId: id,
              toId: input.runsOnId,
              provenance: 'declared',
              source: input.declaredBy,
              evidence: input.evidence,
            },
            input.at,
          )
        : null;
      return {
        resource: resourceFromProperties(rec.get('p')),
        created: Boolean(rec.get('created')),
        relationship: edge?.relationship ?? null,
      };
    },
    audit,
  );
}

/** What removing a declared resource did. */
export interface DeclaredRemoval {
  /** Edges that went with it (its placement, and what others declared on it). */
  edges: number;
  /** Its open conditions, resolved (they stay as history). */
  resolvedConditions: number;
}

/**
 * Removes a declared (`manual:`) resource in one transaction: its open conditions are resolved
 * (kept as history, reported on the feed), then the node and its edges go. Provider resources are
 * never deleted (null), nor one that still has checks (their ids are returned: remove them first,
 * or the scheduler would keep probing something that no longer exists).
 */
export async function removeDeclaredResource(
  driver: Driver,
  id: string,
  removal: { by: string; at: string },
  audit?: () => AuditInput,
): Promise<{ removed: DeclaredRemoval } | { checks: string[] } | null> {
  return writeWithAudit(
    driver,
    async (tx): Promise<{ removed: DeclaredRemoval } | { checks: string[] } | null> => {
      const found = await tx.run(
        `MATCH (r:Resource {id: $id}) WHERE r.provider = 'manual'
         SET r.removing = true REMOVE r.removing
         RETURN [(k:Check)-[:CHECKS]->(r) | k.id] AS checks,
                [(c:Condition {status: 'open'})-[:CONDITION_OF]->(r) | c.type] AS open`,
        { id },
      );
      const rec = found.records[0];
      if (!rec) return null;
      const checks = (rec.get('checks') as string[]).sort();
      if (checks.length > 0) return { checks };
      const resolved = await resolveConditionsTx(
        tx,
        (rec.get('open') as ConditionType[]).map((type) => ({
          resourceId: id,
          type,
          evidence: { reason: `resource removed by ${removal.by}` },
          at: removal.at,
        })),
      );
      const gone = await tx.run(
        `MATCH (r:Resource {id: $id}) OPTIONAL MATCH (r)-[e]-(:Resource)
         WITH r, count(e) AS edges DETACH DELETE r RETURN edges`,
        { id },
      );
      return { removed: { edges: Number(gone.records[0]?.get('edges') ?? 0), resolvedConditions: resolved.length } };
    },
    // Only a removal is an effect to audit with; the refusals are audited by the caller.
    (result) => (result && 'removed' in result ? (audit?.() ?? null) : null),
  );
}
