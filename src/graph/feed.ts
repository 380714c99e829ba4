import type { Driver, ManagedTransaction } from 'neo4j-driver';
import type { FeedEntry, FeedTopic } from '../model/index.js';
import { int, toPlain } from './db/statements.js';

/**
 * The feed repository: `(:FeedEntry {seq, topic, resourceId, change, at, payload (JSON)})`.
 * Entries are appended in the transaction of the change they report; the sequence comes from one
 * counter node whose write lock is held to commit, so sequence order is commit order: a reader
 * that has seen `seq` n never later finds a new entry below n.
 */

/** One change to report. */
export interface FeedAppend {
  topic: FeedTopic;
  resourceId: string;
  change: string;
  at: string;
  payload: unknown;
}

function entryOf(raw: unknown): FeedEntry {
  const p = toPlain(raw) as Record<string, unknown>;
  let payload: unknown = null;
  try {
    payload = JSON.parse(String(p.payload));
  } catch {
    // An unreadable payload is reported as null rather than failing the whole read.
  }
  return {
    seq: Number(p.seq),
    topic: p.topic as FeedTopic,
    resourceId: String(p.resourceId),
    change: String(p.change),
    at: String(p.at),
    payload,
  };
}

/** Appends entries inside the caller's transaction; returns them with their sequence numbers. */
export async function appendFeedTx(tx: ManagedTransaction, entries: readonly FeedAppend[]): Promise<FeedEntry[]> {
  if (entries.length === 0) return [];
  const res = await tx.run(
    `MERGE (c:FeedCounter {id: 'feed'}) ON CREATE SET c.seq = 0
     SET c.seq = c.seq + size($rows)
     WITH c.seq - size($rows) AS base
     UNWIND range(0, size($rows) - 1) AS i
     WITH base, i, $rows[i] AS row
     CREATE (f:FeedEntry {seq: base + i + 1, topic: row.topic, resourceId: row.rid, change: row.change,
                          at: datetime(row.at), payload: row.payload})
     RETURN properties(f) AS f ORDER BY f.seq`,
    {
      rows: entries.map((e) => ({
        topic: e.topic,
        rid: e.resourceId,
        change: e.change,
        at: e.at,
        payload: JSON.stringify(e.payload),
      })),
    },
  );
  return res.records.map((r) => entryOf(r.get('f')));
}

/** Entries after `afterSeq`, oldest first, at most `limit`, optionally of some topics and one resource. */
export async function readFeed(
  driver: Driver,
  query: { afterSeq: number; limit: number; topics?: readonly FeedTopic[] | null; resourceId?: string | null },
): Promise<FeedEntry[]> {
  const { records } = await driver.executeQuery(
    `MATCH (f:FeedEntry) WHERE f.seq > $after
       AND ($topics IS NULL OR f.topic IN $topics) AND ($rid IS NULL OR f.resourceId = $rid)
     RETURN properties(f) AS f ORDER BY f.seq LIMIT $limit`,
    {
      after: int(query.afterSeq),
      limit: int(query.limit),
      topics: query.topics ?? null,
      rid: query.resourceId ?? null,
    },
    { routing: 'READ' },
  );
  return records.map((r) => entryOf(r.get('f')));
}

/** The newest sequence number, or 0 for an empty feed. */
export async function latestFeedSeq(driver: Driver): Promise<number> {
  const { records } = await driver.executeQuery(
    "MATCH (c:FeedCounter {id: 'feed'}) RETURN c.seq AS seq",
    {},
    {
      routing: 'READ',
    },
  );
  return Number(records[0]?.get('seq') ?? 0);
}

/** Deletes entries older than `before` (the feed is for catching up, not history), in bounded batches. */
export async function pruneFeed(driver: Driver, before: string, batch = 10_000): Promise<number> {
  const { records } = await driver.executeQuery(
    `MATCH (f:FeedEntry) WHERE f.at < datetime($before)
     WITH f LIMIT $batch DETACH DELETE f RETURN count(*) AS n`,
    { before, batch: int(batch) },
  );
  return Number(records[0]?.get('n') ?? 0);
}
