import type { CheckNetworkPolicy } from '../model/index.js';
import type { ConditionPolicy } from '../pipeline/conditions.js';

/** Settings of one tick (validated by startHealthScheduler). */
export interface TickSettings {
  concurrency: number;
  k: number;
  historySize: number;
  /** At most this many checks per tick; the rest stay due for the next one. */
  maxChecksPerTick: number;
  /** At most this many conditions opened/resolved by each sweep per tick. */
  sweepLimit: number;
  /** How conditions open: the policy's suppression mode and digest, and the cause window. */
  conditions: ConditionPolicy;
  /** Where http/tcp checks may connect (AITIA_CHECK_ALLOW, aitia's own Neo4j); default refuses loopback & co. */
  network?: CheckNetworkPolicy;
}

/** What one tick did, for logs and tests. */
export interface TickReport {
  checksRun: number;
  pass: number;
  fail: number;
  unknown: number;
  healthWritten: number;
  opened: string[];
  resolved: string[];
  durationMs: number;
}
