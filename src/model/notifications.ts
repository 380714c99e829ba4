/**
 * A notification delivery that did not go through: after its retry budget, the delivery of one
 * feed entry to one target is kept as a dead letter (its message with it, so a replay does not
 * depend on the feed, which is pruned) until an operator replays it. A replay is queued here and
 * sent by the leader's notifier, which marks it replayed once the target answered 2xx.
 */
export const NOTIFICATION_DELIVERY_STATUSES = ['dead', 'queued', 'replayed'] as const;
export type NotificationDeliveryStatus = (typeof NOTIFICATION_DELIVERY_STATUSES)[number];

export interface NotificationDeliveryRecord {
  /** The idempotency key: `<target>:<feed seq>`. */
  id: string;
  target: string;
  seq: number;
  event: string;
  resourceId: string;
  status: NotificationDeliveryStatus;
  attempts: number;
  lastError: string;
  /** When it was last tried (or, for a queued replay, when it failed last). */
  at: string;
  replayRequestedBy: string | null;
  replayRequestedAt: string | null;
  replayedAt: string | null;
}
