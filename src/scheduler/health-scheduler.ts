import type { Driver } from 'neo4j-driver';
import type { Logger } from '../log.js';
import type { CheckNetworkPolicy } from '../model/index.js';
import { DEFAULT_CONDITION_POLICY, type ConditionPolicy } from '../pipeline/conditions.js';
import { runHealthTick } from './health-tick.js';
import { skippedTicks } from './skipped-ticks.js';
import type { TickReport, TickSettings } from './tick-types.js';

/** Options of {@link startHealthScheduler}; every number has a default. */
export interface HealthSchedulerOptions {
  driver: Driver;
  log: Logger;
  /** Seconds between ticks (each tick runs only the checks that are due). Default 10. */
  tickSeconds?: number;
  /** Probes in flight at once. Default 8. */
  concurrency?: number;
  /** Flapping control: fails (passes) in a row before a condition opens (resolves). Default 3. */
  k?: number;
  /** Results kept per check (at least k). Default 20. */
  historySize?: number;
  /** Checks per tick at most. Default 1000. */
  maxChecksPerTick?: number;
  /** Conditions per sweep per tick at most. Default 500. */
  sweepLimit?: number;
  /** false: no timer; ticks only through runOnce() (tests). Default true. */
  autoTick?: boolean;
  /** The policy's attribution settings for the conditions checks open. Default: shadow, 900 s. */
  conditions?: ConditionPolicy;
  /** Where http/tcp checks may connect: the allow-list (AITIA_CHECK_ALLOW) and aitia's Neo4j. Default: nothing local. */
  network?: CheckNetworkPolicy;
}

export interface HealthScheduler {
  /** Runs one tick now (after any running one); `all` runs every check, due or not. */
  runOnce(options?: { all?: boolean }): Promise<TickReport>;
  /** Stops the timer, aborts probes in flight and waits for the running tick. */
  stop(): Promise<void>;
}

function bounded(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new RangeError(`health scheduler ${name}: must be an integer from ${min} to ${max}, got ${value}`);
  return value;
}

/**
 * Starts the health scheduler — the only writer of health. Ticks never overlap: a tick that
 * outlasts the interval delays the next one. A failing tick is logged and the loop goes on; one
 * that finds Neo4j unavailable is skipped, logged once per outage.
 */
export function startHealthScheduler(options: HealthSchedulerOptions): HealthScheduler {
  const tickSeconds = bounded('tickSeconds', options.tickSeconds ?? 10, 1, 3600);
  const k = bounded('k', options.k ?? 3, 1, 50);
  const settings: TickSettings = {
    concurrency: bounded('concurrency', options.concurrency ?? 8, 1, 256),
    k,
    historySize: bounded('historySize', options.historySize ?? 20, k, 500),
    maxChecksPerTick: bounded('maxChecksPerTick', options.maxChecksPerTick ?? 1000, 1, 100_000),
    sweepLimit: bounded('sweepLimit', options.sweepLimit ?? 500, 1, 100_000),
    conditions: options.conditions ?? DEFAULT_CONDITION_POLICY,
    ...(options.network ? { network: options.network } : {}),
  };
  const { driver, log } = options;
  const abort = new AbortController();
  let chain: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const runOnce = (o: { all?: boolean } = {}): Promise<TickReport> => {
    const run = chain.then(() => runHealthTick(driver, settings, { all: o.all ?? false, signal: abort.signal }));
    chain = run.catch(() => undefined);
    return run;
  };

  const outage = skippedTicks(log, 'health scheduler');
  const loop = async () => {
    try {
      const report = await runOnce();
      outage.completed();
      const level = report.opened.length + report.resolved.length > 0 ? 'info' : 'debug';
      log[level]({ health: report }, 'health tick');
    } catch (err) {
      if (!outage.skipped(err)) log.error({ err }, 'health tick failed');
    }
    if (!stopped) timer = setTimeout(() => void loop(), tickSeconds * 1000);
  };
  if (options.autoTick ?? true) timer = setTimeout(() => void loop(), 0);

  return {
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      abort.abort();
      await chain;
    },
  };
}
