import type { Logger } from '../log.js';
import type { CorrelationDeps } from '../pipeline/correlate.js';
import { skippedTicks } from './skipped-ticks.js';
import type { ObservationSource } from '../ingest/source.js';
import { formatObservation, observe, type Observation } from '../pipeline/observe.js';

/** A running poller. `stop()` cancels the next pass and waits for one in flight to finish. */
export interface Poller {
  stop(): Promise<void>;
  /** Passes completed so far. */
  readonly passes: number;
}

/**
 * Runs `pass` every `intervalSeconds`, first pass at once. Passes never overlap: the next one is
 * scheduled only when the current one has finished (a slow pass delays the next, it does not
 * stack). A pass that throws is logged and the poller carries on; one that finds Neo4j unavailable
 * is a skipped tick, logged once per outage.
 */
export function startPoller<R>(options: {
  name: string;
  /** Seconds from the start of one pass to the start of the next. */
  intervalSeconds: number;
  log: Logger;
  pass: () => Promise<R>;
  onResult?: (result: R) => void | Promise<void>;
}): Poller {
  // A floor against a busy loop from a zero or negative interval.
  const intervalMs = Math.max(10, options.intervalSeconds * 1000);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | null = null;
  let passes = 0;
  const outage = skippedTicks(options.log, options.name);

  const pass = async () => {
    const started = Date.now();
    try {
      await options.onResult?.(await options.pass());
      outage.completed();
    } catch (err) {
      if (!outage.skipped(err)) options.log.error({ err, poller: options.name }, `${options.name}: pass failed`);
    } finally {
      passes++;
    }
    if (!stopped) timer = setTimeout(tick, Math.max(0, intervalMs - (Date.now() - started)));
  };
  const tick = () => {
    inFlight = pass().finally(() => {
      inFlight = null;
    });
  };
  tick();

  return {
    get passes() {
      return passes;
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await inFlight;
    },
  };
}

/** Logs one observation: the inventory stage (a partial pass marks nothing), each line, each error. */
export function logObservation<Extra>(log: Logger, source: ObservationSource<Extra>, o: Observation<Extra>): void {
  const { report } = o;
  const summary = {
    scope: report.scope,
    complete: report.complete,
    resources: report.resources,
    edges: report.edges,
    errors: report.errors.length,
    skipped: report.skipped.length,
    stateChanges: report.stateChanges.length,
    markedMissing: report.markedMissing,
    durationMs: report.durationMs,
    requests: report.requests,
  };
  if (report.complete) log.info(summary, `${source.name}: inventory pass`);
  else
    log.warn(
      { ...summary, firstErrors: report.errors.slice(0, 3) },
      `${source.name}: inventory pass incomplete: nothing marked missing`,
    );
  const created = o.correlation.created.map((t) => ({
    id: t.id,
    confidence: t.attribution.confidence,
    decision: t.decision.decision,
  }));
  for (const line of formatObservation(source, o))
    log.info({ scope: report.scope, ...(line.includes(' transitions: ') ? { created } : {}) }, line);
  for (const e of o.correlation.errors) log.error(e, 'transition not explained or not stored');
}

/** Observes `source` every `intervalSeconds` through the one pipeline, logging each observation. */
export function startObservationPoller<Extra>(options: {
  deps: CorrelationDeps;
  source: ObservationSource<Extra>;
  intervalSeconds: number;
  log: Logger;
  onObservation?: (o: Observation<Extra>) => void | Promise<void>;
}): Poller {
  return startPoller({
    name: options.source.name,
    intervalSeconds: options.intervalSeconds,
    log: options.log,
    pass: () => observe(options.deps, options.source),
    onResult: async (o) => {
      logObservation(options.log, options.source, o);
      await options.onObservation?.(o);
    },
  });
}
