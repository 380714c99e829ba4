import type { Driver } from 'neo4j-driver';
import { toPlain } from './db/statements.js';

/**
 * Where an incremental ingest left off: `(:IngestCursor {id, position, updatedAt, …})`. The id
 * names the stream (`proxmox:<cluster>/node/<node>#tasks`); `position` is the stream's own
 * measure (for Proxmox task lists: the newest task start seen, epoch seconds). Kept in the graph
 * so a restart resumes where the last complete pass ended.
 */
export interface IngestCursor {
  id: string;
  position: number;
  updatedAt: string;
  /** What the pass that set it read (free-form counts, for operators). */
  detail: Record<string, unknown>;
}

/** The cursor of one stream, or null before its first complete pass. */
export async function getIngestCursor(driver: Driver, id: string): Promise<IngestCursor | null> {
  const { records } = await driver.executeQuery(
    'MATCH (c:IngestCursor {id: $id}) RETURN properties(c) AS c',
    { id },
    { routing: 'READ' },
  );
  const rec = records[0];
  if (!rec) return null;
  const p = toPlain(rec.get('c')) as Record<string, unknown>;
  let detail: Record<string, unknown>;
  try {
    detail = typeof p.detail === 'string' ? (JSON.parse(p.detail) as Record<string, unknown>) : {};
  } catch {
    detail = {};
  }
  return { id, position: Number(p.position), updatedAt: String(p.updatedAt), detail };
}

/**
 * Sets a cursor; it never moves backwards (two passes racing, or a pass that read less, cannot
 * rewind it). Returns the position now stored.
 */
export async function saveIngestCursor(
  driver: Driver,
  input: { id: string; position: number; at: string; detail?: Record<string, unknown> },
): Promise<number> {
  if (!Number.isFinite(input.position)) throw new Error(`ingest cursor ${input.id}: position must be a finite number`);
  const { records } = await driver.executeQuery(
    `MERGE (c:IngestCursor {id: $id})
     SET c.position = CASE WHEN c.position IS NULL OR c.position < $position THEN $position ELSE c.position END,
         c.updatedAt = datetime($at), c.detail = $detail
     RETURN c.position AS position`,
    { id: input.id, position: input.position, at: input.at, detail: JSON.stringify(input.detail ?? {}) },
  );
  return Number(records[0]!.get('position'));
}
