import { DateTime } from 'luxon';
import type { Driver } from 'neo4j-driver';
import {
  healthWithoutChecks,
  orphanedCheckConditions,
  staleUnmonitored,
  unmonitoredResourceIds,
  writeHealth,
} from '../graph/checks.js';
import type { ConditionResolve } from '../graph/conditions.js';
import { pruneFeed } from '../graph/feed.js';
import { SCHEDULER_SOURCE } from './condition-plan.js';
import { deriveHealth, summariseHealth } from './health-rule.js';
import { writeConditions } from './condition-write.js';
import type { TickSettings } from './tick-types.js';

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
  settings: Pick<TickSettings, 'sweepLimit' | 'conditions'>,
): Promise<{ opened: string[]; resolved: string[]; healthWritten: number }> {
  const at = DateTime.utc().toISO();
  const unmonitored = await unmonitoredResourceIds(driver, settings.sweepLimit);
  const stale = await staleUnmonitored(driver, settings.sweepLimit);
  const resolve: ConditionResolve[] = stale.map((s) => ({
    resourceId: s.resourceId,
    type: 'unmonitored',
    evidence: {
      source: SCHEDULER_SOURCE,
      reason: s.checkIds.length > 0 ? 'a check was added' : `the resource is ${s.lifecycle}`,
      checkIds: s.checkIds,
    },
    at,
  }));
  for (const type of ['check_failing', 'unreachable'] as const) {
    const orphaned = await orphanedCheckConditions(driver, type, `"source":"${SCHEDULER_SOURCE}"`, settings.sweepLimit);
    for (const resourceId of orphaned) {
      resolve.push({
        resourceId,
        type,
        evidence: {
          source: SCHEDULER_SOURCE,
          reason: 'no check keeps it open any more: the check that opened it was removed',
        },
        at,
      });
    }
  }
  // One write for the sweeps' conditions; `unmonitored` is reporting only: opened as it is, no cause
  // looked up, never suppressed. A resource deleted meanwhile is left out.
  const written = await writeConditions(
    driver,
    settings.conditions,
    { name: SCHEDULER_SOURCE, role: 'scheduler' },
    {
      open: unmonitored.map((resourceId) => ({
        resourceId,
        type: 'unmonitored' as const,
        evidence: UNMONITORED_EVIDENCE,
        at,
        caused: false,
      })),
      resolve,
    },
  );
  const opened = written.opened.filter((o) => o.opened).map((o) => o.condition.id);
  const resolved = written.resolved.map((c) => c.id);
  const lost = await healthWithoutChecks(driver, settings.sweepLimit);
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
