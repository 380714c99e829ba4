import { DateTime } from 'luxon';
import type { Driver } from 'neo4j-driver';
import { badInput } from '../errors.js';
import { eventFromProperties, type StoredEventRecord } from './event-record.js';
import { int } from './values.js';

/** A range on `startedAt` (ISO-8601, inclusive), e.g. from correlator/window.ts candidateWindow(). */
export interface StartRange {
  from: string;
  to: string;
}

// Two index seeks, never a label scan: events of the resource that started in the window
// (event_resource_time), and its tasks still running that started before it (a migration or
// backup can run for hours; event_resource_time again, bounded by the resource's own history, or
// event_status). The pure core then places every interval against the observation.
const CANDIDATES = `
  CALL () {
    MATCH (e:Event) WHERE e.resourceId = $rid AND e.startedAt >= datetime($from) AND e.startedAt <= datetime($to)
    RETURN e
    UNION
    MATCH (e:Event) WHERE e.resourceId = $rid AND e.startedAt < datetime($from) AND e.statusClass = 'running'
    RETURN e
  }
  RETURN properties(e) AS e ORDER BY e.startedAt, e.id`;

/** Candidate events of one resource for one observation: started within `range`, or still running. */
export async function findCandidateEvents(
  driver: Driver,
  resourceId: string,
  range: StartRange,
): Promise<StoredEventRecord[]> {
  const { records } = await driver.executeQuery(
    CANDIDATES,
    { rid: resourceId, from: range.from, to: range.to },
    { routing: 'READ' },
  );
  return records.map((r) => eventFromProperties(r.get('e')));
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
