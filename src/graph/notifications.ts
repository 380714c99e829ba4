import type { Driver } from 'neo4j-driver';
import type { NotificationDeliveryRecord, NotificationDeliveryStatus } from '../model/notifications.js';
import { int, toPlain } from './db/statements.js';

/**
 * The notifier's state in the graph, shared by every replica (only the leader writes it):
 * - `(:NotificationCursor {target, seq, updatedAt})`: the last feed sequence delivered (or passed
 *   over) for a target; MERGEd on the target's name, only ever moved forward. A target seen for
 *   the first time starts at the feed's newest entry: it is told what happens from then on.
 * - `(:NotificationDelivery {id, target, seq, event, resourceId, message, status, attempts,
 *   lastError, at, ...})`: a dead letter (status dead), a replay an operator asked for (queued),
 *   or one sent again (replayed). `message` is the notification as JSON, so replay needs no feed.
 */

/** The target's cursor, created at the feed's newest sequence when it has none. */
export async function ensureNotificationCursor(driver: Driver, target: string): Promise<number> {
  const { records } = await driver.executeQuery(
    `OPTIONAL MATCH (f:FeedCounter {id: 'feed'})
     WITH coalesce(f.seq, 0) AS latest
     MERGE (c:NotificationCursor {target: $target})
       ON CREATE SET c.seq = latest, c.updatedAt = datetime()
     RETURN c.seq AS seq`,
    { target },
  );
  return Number(records[0]?.get('seq') ?? 0);
}

/** Moves the target's cursor to `seq` (never back). */
export async function advanceNotificationCursor(driver: Driver, target: string, seq: number): Promise<void> {
  await driver.executeQuery(
    `MERGE (c:NotificationCursor {target: $target}) ON CREATE SET c.seq = 0
     SET c.seq = CASE WHEN $seq > c.seq THEN $seq ELSE c.seq END, c.updatedAt = datetime()`,
    { target, seq: int(seq) },
  );
}

/** A dead letter to keep, with the message that could not be delivered. */
export interface DeadLetter {
  id: string;
  target: string;
  seq: number;
  event: string;
  resourceId: string;
  message: unknown;
  attempts: number;
  lastError: string;
  at: string;
}

/** Keeps the dead letter and moves the cursor past it, in one transaction. */
export async function recordDeadLetter(driver: Driver, d: DeadLetter): Promise<void> {
  await driver.executeQuery(
    `MERGE (n:NotificationDelivery {id: $id})
     SET n.target = $target, n.seq = $seq, n.event = $event, n.resourceId = $rid, n.message = $message,
         n.status = 'dead', n.attempts = $attempts, n.lastError = $error, n.at = datetime($at)
     WITH n
     MERGE (c:NotificationCursor {target: $target}) ON CREATE SET c.seq = 0
     SET c.seq = CASE WHEN $seq > c.seq THEN $seq ELSE c.seq END, c.updatedAt = datetime()`,
    {
      id: d.id,
      target: d.target,
      seq: int(d.seq),
      event: d.event,
      rid: d.resourceId,
      message: JSON.stringify(d.message),
      attempts: int(d.attempts),
      error: d.lastError.slice(0, 2000),
      at: d.at,
    },
  );
}

function deliveryOf(raw: unknown): NotificationDeliveryRecord & { message: unknown } {
  const p = toPlain(raw) as Record<string, unknown>;
  let message: unknown = null;
  try {
    message = JSON.parse(String(p.message));
  } catch {
    // An unreadable message cannot be replayed; it is still listed.
  }
  return {
    id: String(p.id),
    target: String(p.target),
    seq: Number(p.seq),
    event: String(p.event),
    resourceId: String(p.resourceId),
    status: p.status as NotificationDeliveryStatus,
    attempts: Number(p.attempts),
    lastError: String(p.lastError ?? ''),
    at: String(p.at),
    replayRequestedBy: (p.replayRequestedBy as string | undefined) ?? null,
    replayRequestedAt: (p.replayRequestedAt as string | undefined) ?? null,
    replayedAt: (p.replayedAt as string | undefined) ?? null,
    message,
  };
}

/** Deliveries kept, oldest first by target and sequence, optionally of one target and one status. */
export async function listNotificationDeliveries(
  driver: Driver,
  filter: { target: string | null; status: NotificationDeliveryStatus | null; limit: number },
): Promise<Array<NotificationDeliveryRecord & { message: unknown }>> {
  const { records } = await driver.executeQuery(
    `MATCH (n:NotificationDelivery)
     WHERE ($target IS NULL OR n.target = $target) AND ($status IS NULL OR n.status = $status)
     RETURN properties(n) AS n ORDER BY n.target, n.seq LIMIT $limit`,
    { target: filter.target, status: filter.status, limit: int(filter.limit) },
    { routing: 'READ' },
  );
  return records.map((r) => deliveryOf(r.get('n')));
}

/** Queues a replay of a dead (or already replayed) delivery; null when there is none with that id. */
export async function queueNotificationReplay(
  driver: Driver,
  id: string,
  by: string,
  at: string,
): Promise<NotificationDeliveryRecord | null> {
  const { records } = await driver.executeQuery(
    `MATCH (n:NotificationDelivery {id: $id})
     SET n.status = 'queued', n.replayRequestedBy = $by, n.replayRequestedAt = datetime($at)
     RETURN properties(n) AS n`,
    { id, by, at },
  );
  if (records.length === 0) return null;
  const { message: _m, ...rest } = deliveryOf(records[0]!.get('n'));
  return rest;
}

/** How a queued replay ended: delivered (replayed) or failed again (dead, one attempt more). */
export async function settleNotificationReplay(
  driver: Driver,
  id: string,
  outcome: { ok: true; at: string } | { ok: false; at: string; error: string },
): Promise<void> {
  await driver.executeQuery(
    outcome.ok
      ? `MATCH (n:NotificationDelivery {id: $id, status: 'queued'})
         SET n.status = 'replayed', n.replayedAt = datetime($at), n.attempts = n.attempts + 1`
      : `MATCH (n:NotificationDelivery {id: $id, status: 'queued'})
         SET n.status = 'dead', n.at = datetime($at), n.lastError = $error, n.attempts = n.attempts + 1`,
    { id, at: outcome.at, error: outcome.ok ? null : outcome.error.slice(0, 2000) },
  );
}
