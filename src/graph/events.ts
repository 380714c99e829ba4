import { DateTime } from 'luxon';
import type { Driver } from 'neo4j-driver';
import { badInput } from '../errors.js';
import { ActorKindSchema, EventTypeSchema, StatusClassSchema, type EventRecord } from '../model/events.js';
import { eventProperties } from './event-record.js';
import { isoNow } from './values.js';

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
  RETURN created, changed, rid, r IS NOT NULL AS linked`;

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
  const size = Math.max(1, options.batchSize ?? 10_000);
  const now = options.at ?? isoNow();
  const result: UpsertEventsResult = { written: 0, created: 0, updated: 0, unlinkedResourceIds: [] };
  const unlinked = new Set<string>();
  for (let i = 0; i < unique.length; i += size) {
    const rows = unique.slice(i, i + size).map((e) => ({
      id: e.id,
      resourceId: e.resourceId,
      resourceKind: e.resourceKind,
      startedAt: e.startedAt,
      endedAt: e.endedAt,
      props: eventProperties(e),
    }));
    const { records } = await driver.executeQuery(UPSERT, { rows, now });
    for (const r of records) {
      result.written++;
      if (r.get('created')) result.created++;
      else if (r.get('changed')) result.updated++;
      const rid = r.get('rid') as string | null;
      if (rid && !r.get('linked')) unlinked.add(rid);
    }
  }
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
