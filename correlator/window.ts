import { isoMillis, utcIso } from '../src/model/iso-millis.js';
import { DEFAULT_ATTRIBUTE_OPTIONS, DEFAULT_MAX_CHANGE_INTERVAL_SECONDS } from './types.js';

/** How far around an observation the runner fetches candidate events; all in seconds. */
export interface CandidateWindowOptions {
  lookbackSeconds: number;
  clockSkewSeconds: number;
  /**
   * The longest task whose interval still counts: a task that started this long before the
   * look-back can still have ended inside it (a shutdown waits up to its timeout, a migration
   * takes minutes). Running tasks are fetched separately, whatever their start.
   */
  maxTaskSeconds: number;
  /**
   * The longest interval since the previous observation that is fetched (default one hour,
   * {@link DEFAULT_MAX_CHANGE_INTERVAL_SECONDS}): a poller that was down for a day does not fetch
   * the day; the ladder cuts the interval the same way (AttributeOptions.maxChangeIntervalSeconds).
   */
  maxChangeIntervalSeconds?: number;
}

/** One hour covers shutdown timeouts and ordinary live migrations; longer tasks that finished are not fetched. */
export const DEFAULT_MAX_TASK_SECONDS = 3600;

export const DEFAULT_CANDIDATE_WINDOW: Readonly<CandidateWindowOptions> = {
  lookbackSeconds: DEFAULT_ATTRIBUTE_OPTIONS.lookbackSeconds,
  clockSkewSeconds: DEFAULT_ATTRIBUTE_OPTIONS.clockSkewSeconds,
  maxTaskSeconds: DEFAULT_MAX_TASK_SECONDS,
};

/** A range on `startedAt`, ISO-8601 UTC, both ends inclusive. */
export interface StartWindow {
  from: string;
  to: string;
}

/**
 * The range of task **start** times that can matter for an observation at `observedAt`:
 * [changeFrom − lookback − maxTask − skew, observedAt + skew], where changeFrom is the previous
 * observation (`previousObservedAt`: the change happened after it), at most
 * `maxChangeIntervalSeconds` (1 h) before `observedAt`, or `observedAt` itself without one. Filtering
 * on the start keeps the look-up on the (resourceId, startedAt) index; the pure core then places
 * each task's whole interval. A cause cannot start after its effect, except for clock skew between
 * nodes. Returns null when `observedAt` is not an ISO-8601 time; an unusable `previousObservedAt`
 * (unparseable, or not before `observedAt`) is ignored, as the ladder ignores it.
 */
export function candidateWindow(
  observedAt: string,
  options: Partial<CandidateWindowOptions> = {},
  previousObservedAt: string | null = null,
): StartWindow | null {
  const o = { ...DEFAULT_CANDIDATE_WINDOW, ...options };
  // Epoch milliseconds, not luxon's plus/minus: a Duration per call is most of this function's CPU.
  const atMs = isoMillis(observedAt);
  if (atMs === null) return null;
  const previousMs = isoMillis(previousObservedAt);
  const maxInterval = o.maxChangeIntervalSeconds ?? DEFAULT_MAX_CHANGE_INTERVAL_SECONDS;
  const intervalSeconds =
    previousMs !== null && previousMs < atMs ? Math.min(maxInterval, (atMs - previousMs) / 1000) : 0;
  return {
    from: utcIso(atMs - (intervalSeconds + o.lookbackSeconds + o.maxTaskSeconds + o.clockSkewSeconds) * 1000),
    to: utcIso(atMs + o.clockSkewSeconds * 1000),
  };
}
