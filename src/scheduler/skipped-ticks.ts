import type { Logger } from '../log.js';
import { isUnavailable } from '../model/index.js';

/** What a timer loop does with each tick's outcome while Neo4j comes and goes. */
export interface SkippedTicks {
  /** True when `err` means Neo4j was unavailable: the tick counts as skipped (logged once per outage). */
  skipped(err: unknown): boolean;
  /** A tick completed: an outage in progress is over (logged with the ticks it skipped). */
  completed(): void;
}

/**
 * One warning when a loop (a poller, the health scheduler) first finds Neo4j unavailable, one line
 * when it completes a tick again; the ticks in between are skipped quietly (debug), not errors.
 * Ticks never pile up: each loop schedules its next tick only after the last one settled.
 */
export function skippedTicks(log: Logger, loop: string): SkippedTicks {
  let skips = 0;
  return {
    skipped(err) {
      if (!isUnavailable(err)) return false;
      if (skips++ === 0) log.warn({ loop }, `${loop}: Neo4j unavailable, skipping ticks until it answers`);
      else log.debug({ loop, skipped: skips }, `${loop}: tick skipped (Neo4j unavailable)`);
      return true;
    },
    completed() {
      if (skips > 0) log.info({ loop, skipped: skips }, `${loop}: Neo4j answers again, ticks resumed`);
      skips = 0;
    },
  };
}
