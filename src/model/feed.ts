/**
 * The feed: every change a subscriber may want (a transition observed, a condition opened,
 * suppressed or resolved, a health change, an approval requested, decided, expired or its grant
 * redeemed or refused, the kill switch or breaker changed, an Alertmanager alert received and
 * enriched), stored with a monotonic sequence in the same
 * transaction as the change, so a client that reconnects resumes from its last sequence and
 * misses nothing, and every process serving subscribers reads the same order.
 */
export const FEED_TOPICS = ['transition', 'condition', 'health', 'approval', 'autonomy', 'alert'] as const;
export type FeedTopic = (typeof FEED_TOPICS)[number];

/** One stored feed entry. `payload` is the changed thing as its topic's record (JSON). */
export interface FeedEntry {
  seq: number;
  topic: FeedTopic;
  resourceId: string;
  /** What happened: `observed` | `reexplained`; `opened` | `suppressed` | `resolved` | `reattributed`; `changed`; an ApprovalChangeKind; `halted` | `resumed` | `breaker_opened` | …; `received`. */
  change: string;
  at: string;
  payload: unknown;
}
