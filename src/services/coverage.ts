import { DateTime } from 'luxon';
import { streamCoverages } from '../graph/coverage.js';
import { transitionCoverageCounts, type TransitionCoverageCounts } from '../graph/transitions/coverage-stats.js';
import { badInput, coveredSeconds, type LogGap } from '../model/index.js';
import type { ServiceDeps } from './deps.js';
import { assertCan, type Principal } from './permissions.js';

/** How much of the window one log stream was read completely. */
export interface StreamCoverageAnswer {
  stream: string;
  source: string;
  node: string | null;
  coveredSeconds: number;
  windowSeconds: number;
  share: number;
  gaps: LogGap[];
}

export interface AttributionCoverageAnswer extends TransitionCoverageCounts {
  since: string;
  until: string;
  source: string | null;
  streams: StreamCoverageAnswer[];
}

const SOURCE = /^(proxmox|vcenter):[^/\s]+$/;
const isoOf = (d: DateTime) => d.toUTC().toISO({ suppressMilliseconds: true })!;

/**
 * What aitia could know in [since, until] (`attributionCoverage`): the transitions observed in it by
 * confidence and by unknownBecause, and per log stream of the source (or of all) the share of the
 * window read completely, with the failed reads in it. A window reaching past now is cut at now
 * (nothing can have been read there yet). Reads only; whoever may read transitions.
 */
export async function attributionCoverage(
  deps: ServiceDeps,
  principal: Principal,
  input: { since: string; until?: string | null; source?: string | null },
): Promise<AttributionCoverageAnswer> {
  assertCan(principal, 'transition:read');
  const since = DateTime.fromISO(String(input.since), { setZone: true });
  if (!since.isValid) throw badInput('since', 'must be an ISO-8601 time');
  const now = DateTime.utc();
  const asked = input.until == null ? now : DateTime.fromISO(String(input.until), { setZone: true });
  if (!asked.isValid) throw badInput('until', 'must be an ISO-8601 time');
  if (asked < since) throw badInput('until', 'must not be before since');
  const source = input.source == null || input.source.trim() === '' ? null : input.source.trim();
  if (source !== null && !SOURCE.test(source))
    throw badInput('source', 'must be a source as `proxmox:<cluster>` or `vcenter:<server>`');
  const until = asked > now ? now : asked;
  const window = { since: isoOf(since), until: isoOf(until < since ? since : until) };
  const [counts, streams] = await Promise.all([
    transitionCoverageCounts(deps.driver, { ...window, source }),
    streamCoverages(deps.driver, { source, ...window }),
  ]);
  const fromMs = DateTime.fromISO(window.since).toMillis();
  const toMs = DateTime.fromISO(window.until).toMillis();
  const windowSeconds = Math.max(0, (toMs - fromMs) / 1000);
  return {
    ...window,
    source,
    ...counts,
    streams: streams.map((s) => {
      const covered = coveredSeconds(fromMs, toMs, s.intervals);
      return {
        stream: s.streamId,
        source: s.source,
        node: s.node,
        coveredSeconds: covered,
        windowSeconds,
        share: windowSeconds === 0 ? 1 : Math.round((covered / windowSeconds) * 1000) / 1000,
        gaps: s.gaps.filter(
          (g) => DateTime.fromISO(g.from).toMillis() <= toMs && DateTime.fromISO(g.to).toMillis() >= fromMs,
        ),
      };
    }),
  };
}
