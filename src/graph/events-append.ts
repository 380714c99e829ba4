import { DateTime } from 'luxon';
import type { Driver } from 'neo4j-driver';
import { badInput, EVENT_CONTENT_FIELDS, type EventRecord } from '../model/index.js';
import { eventRow, type UpsertEventsOptions, type UpsertEventsResult, validateEventRecords } from './events.js';
import { inBatches, int, isoNow } from './db/statements.js';

/**
 * Append-only events (vCenter's event log is history): beside upsertEvents, which updates a
 * Proxmox task seen finished later, this write never changes a stored event's content.
 */

// The comparison is inside the write: MERGE on the unique id serialises concurrent creates of one
// key (the second waits, then finds the first's node), and `ON MATCH SET` locks a stored event
// before its content is read, so no other write can slip between the check and the act. A row
// whose content differs from the stored event writes nothing and returns the differing fields.
// Times are compared as instants (one event in two zone notations is the same event).
const APPEND = `
  UNWIND $rows AS row
  MERGE (e:Event {id: row.id})
  ON CREATE SET e += row.props, e.startedAt = datetime(row.startedAt),
    e.endedAt = CASE WHEN row.endedAt IS NULL THEN null ELSE datetime(row.endedAt) END,
    e.resourceId = row.resourceId, e.resourceKind = row.resourceKind,
    e.ingestedAt = datetime($now), e.isNew = true
  ON MATCH SET e.isNew = false
  WITH e, row, e.isNew AS created, e.resourceId AS oldRid
  REMOVE e.isNew
  WITH e, row, created, oldRid,
    CASE WHEN created THEN [] ELSE [f IN $fields WHERE NOT (
      CASE WHEN f IN ['startedAt', 'endedAt']
        THEN coalesce(e[f].epochMillis = row.millis[f], e[f] IS NULL AND row.millis[f] IS NULL)
        ELSE coalesce(e[f] = row.props[f], e[f] IS NULL AND row.props[f] IS NULL) END)] END AS differs
  WITH e, row, created, oldRid, differs, CASE WHEN differs = [] THEN coalesce(row.resourceId, oldRid) ELSE oldRid END AS rid
  // The same event again may still name a resource that was not known (linking is not content).
  FOREACH (_ IN CASE WHEN differs = [] AND NOT created THEN [1] ELSE [] END |
    SET e.resourceId = rid, e.resourceKind = coalesce(row.resourceKind, e.resourceKind))
  WITH e, created, differs, rid, oldRid,
       NOT created AND differs = [] AND coalesce(oldRid, '') <> coalesce(rid, '') AS changed
  FOREACH (_ IN CASE WHEN changed THEN [1] ELSE [] END | SET e.updatedAt = datetime($now))
  WITH e, created, changed, differs, rid, oldRid
  CALL (e, rid, oldRid) {
    MATCH (e)-[old:CONCERNS]->(o:Resource) WHERE oldRid IS NOT NULL AND oldRid <> rid AND o.id <> rid
    DELETE old
  }
  OPTIONAL MATCH (r:Resource {id: rid})
  FOREACH (_ IN CASE WHEN r IS NULL OR differs <> [] THEN [] ELSE [1] END | MERGE (e)-[:CONCERNS]->(r))
  RETURN e.id AS id, created, changed, differs, rid, r IS NOT NULL AS linked`;

export interface AppendEventsResult extends UpsertEventsResult {
  /** Events already stored with other content: nothing written for them; the fields that differ. */
  conflicts: Array<{ id: string; fields: string[] }>;
}

const millisOf = (iso: string | null) =>
  iso === null ? null : int(DateTime.fromISO(iso, { setZone: true }).toMillis());

/**
 * Append-only write of events (history: vCenter's event log): a new id is created, the same
 * content again changes nothing (it may link a resource found since), and other content under a
 * stored id is refused per row (`conflicts`), decided inside the write statement, so concurrent
 * writers of one id store exactly one content. Batched (UNWIND, one transaction per batch). Rows
 * are validated first, and each id may appear once per call: a bad row fails the call, nothing
 * written.
 */
export async function appendEvents(
  driver: Driver,
  events: readonly EventRecord[],
  options: UpsertEventsOptions = {},
): Promise<AppendEventsResult> {
  validateEventRecords(events);
  const first = new Map<string, number>();
  events.forEach((e, i) => {
    const j = first.get(e.id);
    if (j !== undefined)
      throw badInput(`events[${i}].id`, `${e.id} is also events[${j}]: give each event once (dedupe first)`);
    first.set(e.id, i);
  });
  const now = options.at ?? isoNow();
  const result: AppendEventsResult = {
    written: 0,
    created: 0,
    updated: 0,
    unlinkedResourceIds: [],
    touchedIds: [],
    conflicts: [],
  };
  const unlinked = new Set<string>();
  await inBatches(events, options.batchSize ?? 10_000, async (batch) => {
    const rows = batch.map((e) => ({
      ...eventRow(e),
      millis: { startedAt: millisOf(e.startedAt), endedAt: millisOf(e.endedAt) },
    }));
    const { records } = await driver.executeQuery(APPEND, { rows, now, fields: [...EVENT_CONTENT_FIELDS] });
    for (const r of records) {
      const id = r.get('id') as string;
      const differs = r.get('differs') as string[];
      if (differs.length > 0) {
        result.conflicts.push({ id, fields: differs });
        continue;
      }
      result.written++;
      if (r.get('created')) result.created++;
      else if (r.get('changed')) result.updated++;
      if (r.get('created') || r.get('changed')) result.touchedIds.push(id);
      const rid = r.get('rid') as string | null;
      if (rid && !r.get('linked')) unlinked.add(rid);
    }
  });
  result.unlinkedResourceIds = [...unlinked].sort();
  return result;
}
