import type { Driver } from 'neo4j-driver';
import { int, toPlain } from './db/statements.js';

/**
 * What the Alertmanager silencer keeps in the graph:
 * - its place on the feed, `(:IntegrationCursor {id: 'alertmanager-silencer', seq, updatedAt})`,
 *   moved only after every entry up to it was handled, so nothing is skipped across a restart or
 *   an outage of Alertmanager;
 * - each silence it made, `(:AlertmanagerSilence {id: <condition id>|<resource id>, conditionId,
 *   resourceId, silenceId, state, createdAt, expiredAt})`, MERGEd on that natural key: one silence
 *   per condition and resource, whichever replica or restart made it;
 * - its state beside the sources (`(:IngestSource {name: 'alertmanager', kind: 'alertmanager'})`),
 *   so `sources` shows Alertmanager's last pass and error as it shows a cluster's.
 */

export const SILENCER_CURSOR = 'alertmanager-silencer';

/** The cursor's feed sequence, or null before the silencer's first pass. */
export async function silencerCursor(driver: Driver, id: string = SILENCER_CURSOR): Promise<number | null> {
  const { records } = await driver.executeQuery(
    'MATCH (c:IntegrationCursor {id: $id}) RETURN c.seq AS seq',
    { id },
    { routing: 'READ' },
  );
  const seq = records[0]?.get('seq') as unknown;
  return seq === undefined || seq === null ? null : Number(seq);
}

/** Moves the cursor forward (never back: a slower replica's late write cannot rewind it). */
export async function saveSilencerCursor(
  driver: Driver,
  seq: number,
  at: string,
  id: string = SILENCER_CURSOR,
): Promise<void> {
  await driver.executeQuery(
    `MERGE (c:IntegrationCursor {id: $id})
     SET c.seq = CASE WHEN c.seq IS NULL OR c.seq < $seq THEN $seq ELSE c.seq END, c.updatedAt = datetime($at)`,
    { id, seq: int(seq), at },
  );
}

/** A condition's status now (open or resolved), or null when it is not in the graph. */
export async function conditionStatusNow(driver: Driver, id: string): Promise<'open' | 'resolved' | null> {
  const { records } = await driver.executeQuery(
    'MATCH (c:Condition {id: $id}) RETURN c.status AS status',
    { id },
    { routing: 'READ' },
  );
  const status = records[0]?.get('status') as unknown;
  return status === 'open' || status === 'resolved' ? status : null;
}

export interface SilenceRecord {
  conditionId: string;
  resourceId: string;
  silenceId: string;
  state: 'active' | 'expired';
}

function recordOf(raw: unknown): SilenceRecord {
  const p = toPlain(raw) as Record<string, unknown>;
  return {
    conditionId: String(p.conditionId),
    resourceId: String(p.resourceId),
    silenceId: String(p.silenceId),
    state: p.state === 'expired' ? 'expired' : 'active',
  };
}

/** Records a silence made (or found again) for a condition and resource. */
export async function recordSilence(
  driver: Driver,
  s: { conditionId: string; resourceId: string; silenceId: string; at: string },
): Promise<void> {
  await driver.executeQuery(
    `MERGE (m:AlertmanagerSilence {id: $conditionId + '|' + $resourceId})
     ON CREATE SET m.createdAt = datetime($at)
     SET m.conditionId = $conditionId, m.resourceId = $resourceId, m.silenceId = $silenceId, m.state = 'active'`,
    s,
  );
}

export async function markSilenceExpired(
  driver: Driver,
  s: { conditionId: string; resourceId: string; at: string },
): Promise<void> {
  await driver.executeQuery(
    `MATCH (m:AlertmanagerSilence {id: $conditionId + '|' + $resourceId})
     SET m.state = 'expired', m.expiredAt = datetime($at)`,
    s,
  );
}

/** The silences recorded for a condition, or for the open conditions of a resource (either may be null). */
export async function silencesOf(
  driver: Driver,
  query: { conditionId?: string | null; conditionResourceId?: string | null },
): Promise<SilenceRecord[]> {
  const { records } = await driver.executeQuery(
    `MATCH (m:AlertmanagerSilence)
     WHERE ($cid IS NULL OR m.conditionId = $cid)
       AND ($rid IS NULL OR EXISTS { MATCH (c:Condition {id: m.conditionId, resourceId: $rid}) })
     RETURN properties(m) AS m ORDER BY m.id`,
    { cid: query.conditionId ?? null, rid: query.conditionResourceId ?? null },
    { routing: 'READ' },
  );
  return records.map((r) => recordOf(r.get('m')));
}

/** Of these conditions, those that opened after `at` (a change before them cannot end them). */
export async function conditionsOpenedAfter(driver: Driver, ids: readonly string[], at: string): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { records } = await driver.executeQuery(
    'MATCH (c:Condition) WHERE c.id IN $ids AND c.openedAt > datetime($at) RETURN c.id AS id',
    { ids: [...new Set(ids)], at },
    { routing: 'READ' },
  );
  return new Set(records.map((r) => r.get('id') as string));
}

/** Records a pass of the silencer beside the sources: when, and its error (null when clean). */
export async function recordSilencerPass(
  driver: Driver,
  input: { url: string; at: string; error: string | null },
): Promise<void> {
  await driver.executeQuery(
    `MERGE (s:IngestSource {name: 'alertmanager'})
     SET s.id = 'source:alertmanager', s.kind = 'alertmanager', s.url = $url, s.status = 'polling',
         s.lastPassAt = datetime($at), s.lastError = $error,
         s.lastCompletePass = CASE WHEN $error IS NULL THEN datetime($at) ELSE s.lastCompletePass END`,
    input,
  );
}
