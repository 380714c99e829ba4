import { DateTime } from 'luxon';
import { sourceOf, streamCoverages, streamCoveragesOf } from '../graph/coverage.js';
import { transitionCoverageCounts, type TransitionCoverageCounts } from '../graph/transitions/coverage-stats.js';
import { badInput, coveredSeconds, type LogGap, type StreamCoverage, uncoveredParts } from '../model/index.js';
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
const SOURCE_PREFIX = /^(proxmox|vcenter):[^/\s]+\//;
/** An unread tail this short at the end of an incident window is the next poll's, not a gap. */
const INCIDENT_TAIL_SLACK_SECONDS = 120;
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
  return { ...window, source, ...counts, streams: sharesOf(streams, window) };
}

/**
 * Each stream's share of [since, until] read completely, with the failed reads overlapping it. An
 * unread tail shorter than `tailSlackSeconds` (the poll not yet due) is not counted against it. Pure.
 */
export function sharesOf(
  streams: readonly StreamCoverage[],
  window: { since: string; until: string },
  tailSlackSeconds = 0,
): StreamCoverageAnswer[] {
  const fromMs = DateTime.fromISO(window.since).toMillis();
  const toMs = DateTime.fromISO(window.until).toMillis();
  const windowSeconds = Math.max(0, (toMs - fromMs) / 1000);
  return streams.map((s) => {
    const tail = uncoveredParts(fromMs, toMs, s.intervals).at(-1);
    const slack = tail && tail.toMs === toMs && tail.toMs - tail.fromMs < tailSlackSeconds * 1000 ? tail : null;
    const covered = coveredSeconds(fromMs, toMs, s.intervals) + (slack ? (slack.toMs - slack.fromMs) / 1000 : 0);
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
  });
}

/**
 * The coverage an incident window states: the streams of every provider source among `resourceIds`,
 * with their shares of the window (cut at now). One read.
 */
export async function coverageOfResources(
  deps: ServiceDeps,
  resourceIds: readonly string[],
  window: { since: string; until: string },
): Promise<StreamCoverageAnswer[]> {
  const sources = [...new Set(resourceIds.filter((id) => SOURCE_PREFIX.test(id)).map(sourceOf))].sort();
  if (sources.length === 0) return [];
  const now = DateTime.utc();
  const until = DateTime.fromISO(window.until) > now ? isoOf(now) : window.until;
  const cut = { since: window.since, until: until < window.since ? window.since : until };
  // A window ending now: the last seconds are read by the next poll, not missing.
  return sharesOf(await streamCoveragesOf(deps.driver, { sources, ...cut }), cut, INCIDENT_TAIL_SLACK_SECONDS);
}
