import { DateTime } from 'luxon';
import type { Driver } from 'neo4j-driver';
import {
  healthWithoutChecks,
  orphanedCheckConditions,
  staleUnmonitored,
  unmonitoredResourceIds,
  writeHealth,
} from '../graph/checks.js';
import { openCondition, resolveCondition } from '../graph/conditions.js';
import { pruneFeed } from '../graph/feed.js';
import { mapLimit } from '../ingest/map-limit.js';
import { SCHEDULER_SOURCE } from './condition-plan.js';
import { deriveHealth, summariseHealth } from './health-rule.js';
import { ignoreVanished, type TickSettings } from './tick-types.js';

/** How long the feed keeps entries: a subscriber away longer reads history through the queries instead. */
export const FEED_RETENTION_DAYS = 7;

/** The evidence of an `unmonitored` condition: reporting only, and it says so. */
export const UNMONITORED_EVIDENCE = {
  source: SCHEDULER_SOURCE,
  reason: 'no check is defined for this resource: its health cannot be known',
  reportingOnly: true,
  remediation: 'none: this condition is reported, never remediated. An operator can add a check with createCheck.',
} as const;

/**
 * What a removed or added check cannot report itself, kept true once per tick, each step bounded
 * by `sweepLimit`:
 * - `unmonitored` opened on resources with no check (not missing/destroyed), resolved once one has
 *   a check (or is missing/destroyed);
 * - scheduler-opened `check_failing`/`unreachable` resolved where no check keeps them open any more
 *   (the failing check was removed);
 * - health returned to unknown where the last check was removed;
 * - feed entries older than FEED_RETENTION_DAYS deleted.
 */
export async function runSweeps(
  driver: Driver,
  settings: Pick<TickSettings, 'concurrency' | 'sweepLimit'>,
): Promise<{ opened: string[]; resolved: string[]; healthWritten: number }> {
  const opened: string[] = [];
  const resolved: string[] = [];
  const resolve = async (
    resourceId: string,
    type: 'unmonitored' | 'check_failing' | 'unreachable',
    evidence: unknown,
  ) => {
    const r = await resolveCondition(driver, { resourceId, type, evidence });
    if (r.resolved && r.condition) resolved.push(r.condition.id);
  };

  const unmonitored = await unmonitoredResourceIds(driver, settings.sweepLimit);
  await mapLimit(unmonitored, settings.concurrency, async (resourceId) => {
    const done = await ignoreVanished(
      openCondition(driver, { resourceId, type: 'unmonitored', evidence: UNMONITORED_EVIDENCE }),
    );
    if (done?.opened) opened.push(done.condition.id);
  });
  const stale = await staleUnmonitored(driver, settings.sweepLimit);
  await mapLimit(stale, settings.concurrency, (s) =>
    resolve(s.resourceId, 'unmonitored', {
      source: SCHEDULER_SOURCE,
      reason: s.checkIds.length > 0 ? 'a check was added' : `the resource is ${s.lifecycle}`,
      checkIds: s.checkIds,
    }),
  );
  for (const type of ['check_failing', 'unreachable'] as const) {
    const orphaned = await orphanedCheckConditions(driver, type, `"source":"${SCHEDULER_SOURCE}"`, settings.sweepLimit);
    await mapLimit(orphaned, settings.concurrency, (resourceId) =>
      resolve(resourceId, type, {
        source: SCHEDULER_SOURCE,
        reason: 'no check keeps it open any more: the check that opened it was removed',
      }),
    );
  }
  const lost = await healthWithoutChecks(driver, settings.sweepLimit);
  const at = DateTime.utc().toISO();
  // The feed is for catching up after a disconnect, not history: entries older than a week go.
  await pruneFeed(driver, DateTime.utc().minus({ days: FEED_RETENTION_DAYS }).toISO(), settings.sweepLimit * 20);
  const healthWritten = await writeHealth(
    driver,
    lost.map((resourceId) => ({
      resourceId,
      health: 'unknown' as const,
      lastCheck: summariseHealth(deriveHealth([]), null),
      at,
    })),
  );
  return { opened, resolved, healthWritten };
}
