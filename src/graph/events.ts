import {
  type ActorKind,
  ActorKindSchema,
  badInput,
  type EventRecord,
  type EventType,
  EventTypeSchema,
  type Kind,
  type StatusClass,
  StatusClassSchema,
  type StoredEventRecord,
} from '../model/index.js';
import { inBatches, int, isoNow, toPlain } from './db/statements.js';
import { DateTime } from 'luxon';
import type { Driver } from 'neo4j-driver';

const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Builds a record from an Event node's properties (datetimes come back as ISO-8601 UTC). */
export function eventFromProperties(raw: unknown): StoredEventRecord {
  const p = toPlain(raw) as Record<string, unknown>;
  return {
    id: String(p.id),
    provider: p.provider === 'vcenter' ? 'vcenter' : 'proxmox',
    resourceId: str(p.resourceId),
    resourceKind: (str(p.resourceKind) as Kind | null) ?? null,
    objectId: str(p.objectId),
    hostId: str(p.hostId),
    node: str(p.node),
    sourceNode: str(p.sourceNode),
    type: String(p.type) as EventType,
    rawType: String(p.rawType),
    actor: str(p.actor),
    actorKind: String(p.actorKind) as ActorKind,
    tokenId: str(p.tokenId),
    startedAt: String(p.startedAt),
    endedAt: str(p.endedAt),
    statusClass: String(p.statusClass) as StatusClass,
    statusText: str(p.statusText),
    chainId: str(p.chainId),
    message: str(p.message),
    pid: num(p.pid),
    pstart: num(p.pstart),
    ingestedAt: str(p.ingestedAt),
    updatedAt: str(p.updatedAt),
  };
}

/** One event as an `UNWIND $rows` row: its identity, resource, times and the properties `SET` with it. */
export function eventRow(e: EventRecord) {
  return {
    id: e.id,
    resourceId: e.resourceId,
    resourceKind: e.resourceKind,
    startedAt: e.startedAt,
    endedAt: e.endedAt,
    props: eventProperties(e),
  };
}

/**
 * The properties written with `SET e += row.props`. Times travel beside them (converted to datetimes
 * in Cypher); `resourceId` / `resourceKind` too, because a later read must not unset a known resource.
 */
export function eventProperties(e: EventRecord): Record<string, unknown> {
  return {
    provider: e.provider,
    objectId: e.objectId,
    hostId: e.hostId,
    node: e.node,
    sourceNode: e.sourceNode,
    type: e.type,
    rawType: e.rawType,
    actor: e.actor,
    actorKind: e.actorKind,
    tokenId: e.tokenId,
    statusClass: e.statusClass,
    statusText: e.statusText,
    chainId: e.chainId,
    message: e.message,
    // Integers, not Bolt floats: pid and pstart are identities, compared exactly.
    pid: e.pid === null ? null : int(e.pid),
    pstart: e.pstart === null ? null : int(e.pstart),
  };
}

/**
 * The Event repository (write side; reads are in event-queries.ts): `(:Event {id})` per provider
 * log entry, MERGEd on its id (the UPID, or `vcenter:<server>/event/<key>`), linked
 * `-[:CONCERNS]->(:Resource)` when that resource exists. `resourceId` stays a property either way:
 * the correlator's look-up is on the (resourceId, startedAt) index, not on the edge.
 */

export interface UpsertEventsOptions {
  /** Rows per UNWIND statement (one transaction each). Default 10 000. */
  batchSize?: number;
  /** Stamped as `ingestedAt` on new events and `updatedAt` on changed ones. Default now. */
  at?: string;
}

export interface UpsertEventsResult {
  written: number;
  created: number;
  /** Existing events whose outcome (status, end) or resource changed: a running task seen finished. */
  updated: number;
  /** Resource ids named by events whose resource does not exist yet (linked later by {@link linkEventsToResources}). */
  unlinkedResourceIds: string[];
  /** Ids of the events this call created or whose outcome or resource it changed (not the unchanged re-reads). */
  touchedIds: string[];
}

const isIso = (v: unknown): v is string => typeof v === 'string' && DateTime.fromISO(v, { setZone: true }).isValid;

/** Checks what the graph relies on; a bad row fails the call before anything is written. */
export function validateEventRecords(events: readonly EventRecord[]): void {
  events.forEach((e, i) => {
    const at = (f: string) => `events[${i}].${f}`;
    if (typeof e?.id !== 'string' || e.id.trim() === '') throw badInput(at('id'), 'must be a non-empty string');
    if (e.provider !== 'proxmox' && e.provider !== 'vcenter')
      throw badInput(at('provider'), 'must be proxmox or vcenter');
    if (!EventTypeSchema.safeParse(e.type).success)
      throw badInput(at('type'), `unknown event type ${JSON.stringify(e.type)}`);
    if (!StatusClassSchema.safeParse(e.statusClass).success)
      throw badInput(at('statusClass'), `unknown status class ${JSON.stringify(e.statusClass)}`);
    if (!ActorKindSchema.safeParse(e.actorKind).success)
      throw badInput(at('actorKind'), `unknown actor kind ${JSON.stringify(e.actorKind)}`);
    if (!isIso(e.startedAt)) throw badInput(at('startedAt'), 'must be an ISO-8601 time');
    if (e.endedAt !== null && !isIso(e.endedAt)) throw badInput(at('endedAt'), 'must be null or an ISO-8601 time');
  });
}

// Everything is decided from the stored values read before the write (no read-after-write, so
// the plan stays streaming): `stale` = a stored finished task would be turned back into a running
// one by an older read (kept as is); `changed` = the outcome (status, end) or the resource really
// changes, so re-ingesting the same event changes nothing, not even `updatedAt`.
const UPSERT = `
  UNWIND $rows AS row
  MERGE (e:Event {id: row.id})
  ON CREATE SET e.ingestedAt = datetime($now), e.isNew = true
  WITH e, row, coalesce(e.isNew, false) AS created, e.resourceId AS oldRid,
       (e.statusClass IS NOT NULL AND e.statusClass <> 'running' AND row.props.statusClass = 'running') AS stale,
       coalesce(e.statusClass, '') + '|' + coalesce(e.statusText, '') + '|' + coalesce(toString(e.endedAt), '') AS before
  WITH e, row, created, oldRid, stale, coalesce(row.resourceId, oldRid) AS rid,
       CASE WHEN row.endedAt IS NULL THEN null ELSE datetime(row.endedAt) END AS endedAt,
       before <> coalesce(row.props.statusClass, '') + '|' + coalesce(row.props.statusText, '') + '|' + coalesce(toString(datetime(row.endedAt)), '') AS outcomeChanged
  WITH e, row, created, oldRid, stale, rid, endedAt,
       NOT created AND ((NOT stale AND outcomeChanged) OR coalesce(oldRid, '') <> coalesce(rid, '')) AS changed
  FOREACH (_ IN CASE WHEN stale THEN [] ELSE [1] END |
    SET e += row.props, e.startedAt = datetime(row.startedAt), e.endedAt = endedAt)
  SET e.resourceId = rid, e.resourceKind = coalesce(row.resourceKind, e.resourceKind)
  REMOVE e.isNew
  FOREACH (_ IN CASE WHEN changed THEN [1] ELSE [] END | SET e.updatedAt = datetime($now))
  WITH e, created, changed, rid, oldRid
  CALL (e, rid, oldRid) {
    // Only when an event moves to another resource (a corrected guest kind): drop the old link.
    MATCH (e)-[old:CONCERNS]->(o:Resource) WHERE oldRid IS NOT NULL AND oldRid <> rid AND o.id <> rid
    DELETE old
  }
  OPTIONAL MATCH (r:Resource {id: rid})
  FOREACH (_ IN CASE WHEN r IS NULL THEN [] ELSE [1] END | MERGE (e)-[:CONCERNS]->(r))
  RETURN e.id AS id, created, changed, rid, r IS NOT NULL AS linked`;

/**
 * Batched, idempotent upsert of events (UNWIND, one transaction per batch). The same event twice
 * is one event and the second write changes nothing; a running task seen finished later is
 * updated in place (`updated`). Rows are validated first: a bad one fails the call, nothing written.
 */
export async function upsertEvents(
  driver: Driver,
  events: readonly EventRecord[],
  options: UpsertEventsOptions = {},
): Promise<UpsertEventsResult> {
  validateEventRecords(events);
  // The same id twice in one call: the last one wins, as it would in two calls.
  const unique = [...new Map(events.map((e) => [e.id, e])).values()];
  const now = options.at ?? isoNow();
  const result: UpsertEventsResult = { written: 0, created: 0, updated: 0, unlinkedResourceIds: [], touchedIds: [] };
  const unlinked = new Set<string>();
  await inBatches(unique, options.batchSize ?? 10_000, async (batch) => {
    const rows = batch.map(eventRow);
    const { records } = await driver.executeQuery(UPSERT, { rows, now });
    for (const r of records) {
      result.written++;
      if (r.get('created')) result.created++;
      else if (r.get('changed')) result.updated++;
      if (r.get('created') || r.get('changed')) result.touchedIds.push(r.get('id') as string);
      const rid = r.get('rid') as string | null;
      if (rid && !r.get('linked')) unlinked.add(rid);
    }
  });
  result.unlinkedResourceIds = [...unlinked].sort();
  return result;
}

/**
 * Links stored events to resources that appeared after them (a first poll ingests tasks before the
 * inventory). Uses the (resourceId, startedAt) index; idempotent. Returns how many links were made.
 */
export async function linkEventsToResources(driver: Driver, resourceIds: readonly string[]): Promise<number> {
  if (resourceIds.length === 0) return 0;
  const { records } = await driver.executeQuery(
    `UNWIND $ids AS rid
     MATCH (r:Resource {id: rid})
     MATCH (e:Event) WHERE e.resourceId = rid AND e.startedAt IS NOT NULL AND NOT (e)-[:CONCERNS]->(r)
     MERGE (e)-[:CONCERNS]->(r)
     RETURN count(e) AS n`,
    { ids: [...new Set(resourceIds)] },
  );
  return Number(records[0]?.get('n') ?? 0);
}

/** A range on `startedAt` (ISO-8601, inclusive), e.g. from correlator/window.ts candidateWindow(). */
export interface StartRange {
  from: string;
  to: string;
}

/**
 * Candidate events of one resource for one observation, as UNION branches of a COLLECT subquery
 * over `rid`, `from` and `to` (Cypher expressions): two index seeks, never a label scan — events
 * of the resource that started in the window (event_resource_time), and its tasks still running
 * that started before it (a migration or backup can run for hours; bounded by the resource's own
 * history). The pure core then places every interval against the observation. Shared by the single
 * and the batched reads.
 */
export function candidateEventBranches(rid: string, from: string, to: string): string {
  return `MATCH (e:Event) WHERE e.resourceId = ${rid} AND e.startedAt >= datetime(${from}) AND e.startedAt <= datetime(${to})
    RETURN e
    UNION
    MATCH (e:Event) WHERE e.resourceId = ${rid} AND e.startedAt < datetime(${from}) AND e.statusClass = 'running'
    RETURN e`;
}

/** Orders events as the correlator reads them: by start, then id. */
export function byStart(a: StoredEventRecord, b: StoredEventRecord): number {
  return a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Candidate events of one resource for one observation: started within `range`, or still running. */
export async function findCandidateEvents(
  driver: Driver,
  resourceId: string,
  range: StartRange,
): Promise<StoredEventRecord[]> {
  const { records } = await driver.executeQuery(
    `RETURN [e IN COLLECT { ${candidateEventBranches('$rid', '$from', '$to')} } | properties(e)] AS events`,
    { rid: resourceId, from: range.from, to: range.to },
    { routing: 'READ' },
  );
  return ((records[0]?.get('events') as unknown[]) ?? []).map(eventFromProperties).sort(byStart);
}

/**
 * Provider-level activity for `low`: events on one node/host (by name, on event_node_time) that
 * started within `range`, narrowed to that host's id (node names repeat across clusters).
 */
export async function findNodeEvents(
  driver: Driver,
  host: { hostId: string; node: string },
  range: StartRange,
): Promise<StoredEventRecord[]> {
  const { records } = await driver.executeQuery(
    `MATCH (e:Event) WHERE e.node = $node AND e.startedAt >= datetime($from) AND e.startedAt <= datetime($to) AND e.hostId = $hostId
     RETURN properties(e) AS e ORDER BY e.startedAt, e.id`,
    { node: host.node, hostId: host.hostId, from: range.from, to: range.to },
    { routing: 'READ' },
  );
  return records.map((r) => eventFromProperties(r.get('e')));
}

/** Events by id, in the order asked; unknown ids are left out. */
export async function getEventsByIds(driver: Driver, ids: readonly string[]): Promise<StoredEventRecord[]> {
  if (ids.length === 0) return [];
  const { records } = await driver.executeQuery(
    'UNWIND $ids AS id MATCH (e:Event {id: id}) RETURN properties(e) AS e',
    { ids: [...new Set(ids)] },
    { routing: 'READ' },
  );
  const byId = new Map(records.map((r) => eventFromProperties(r.get('e'))).map((e) => [e.id, e]));
  return ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
}

/** Events of one resource, newest start first, optionally since a time; at most `first` (1–500). */
export async function listEvents(
  driver: Driver,
  options: { resourceId: string; since?: string | null; until?: string | null; first?: number },
): Promise<StoredEventRecord[]> {
  const first = options.first ?? 50;
  if (!Number.isInteger(first) || first < 1 || first > 500) throw badInput('first', 'must be an integer from 1 to 500');
  for (const f of ['since', 'until'] as const) {
    const v = options[f];
    if (v != null && !DateTime.fromISO(v, { setZone: true }).isValid) throw badInput(f, 'must be an ISO-8601 time');
  }
  const { records } = await driver.executeQuery(
    `MATCH (e:Event) WHERE e.resourceId = $rid AND e.startedAt >= datetime(coalesce($since, '0001-01-01T00:00:00Z'))
       AND e.startedAt <= datetime(coalesce($until, '9999-12-31T23:59:59Z'))
     RETURN properties(e) AS e ORDER BY e.startedAt DESC, e.id DESC LIMIT $limit`,
    { rid: options.resourceId, since: options.since ?? null, until: options.until ?? null, limit: int(first) },
    { routing: 'READ' },
  );
  return records.map((r) => eventFromProperties(r.get('e')));
}

/** Stored running events on one node (by host id): the ones a task sync must re-check. */
export async function runningEventsOnHost(driver: Driver, hostId: string): Promise<StoredEventRecord[]> {
  const { records } = await driver.executeQuery(
    `MATCH (e:Event) WHERE e.statusClass = 'running' AND e.hostId = $hostId RETURN properties(e) AS e ORDER BY e.startedAt`,
    { hostId },
    { routing: 'READ' },
  );
  return records.map((r) => eventFromProperties(r.get('e')));
}
