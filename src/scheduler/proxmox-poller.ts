import type { Driver } from 'neo4j-driver';
import type { Logger } from '../log.js';
import type { ProxmoxClient } from '../ingest/proxmox/client.js';
import { syncProxmox, type SyncProxmoxOptions } from '../ingest/proxmox/sync.js';
import type { IngestReport } from '../ingest/report.js';

/** What the poller polls, how often, and where reports go. */
export interface ProxmoxPollerOptions {
  driver: Driver;
  client: ProxmoxClient;
  /** Seconds from the start of one pass to the start of the next (AITIA_PROXMOX_POLL_SECONDS). */
  intervalSeconds: number;
  log: Logger;
  /** Called with each pass's report (e.g. to hand state changes to the correlator). */
  onReport?: (report: IngestReport) => void | Promise<void>;
  sync?: SyncProxmoxOptions;
  /** The pass itself; default {@link syncProxmox}. A caller may wrap it (tasks + inventory + correlation). */
  run?: (driver: Driver, client: ProxmoxClient, options: SyncProxmoxOptions) => Promise<IngestReport>;
}

/** A running poller. `stop()` cancels the next pass and waits for one in flight to finish. */
export interface ProxmoxPoller {
  stop(): Promise<void>;
  /** Passes completed so far. */
  readonly passes: number;
}

/**
 * Polls Proxmox every `intervalSeconds`, first pass at once. Passes never overlap: the next one is
 * scheduled only when the current one has finished (a slow pass delays the next, it does not
 * stack). A pass that throws (e.g. Neo4j down) is logged and the poller carries on.
 */
export function startProxmoxPoller(options: ProxmoxPollerOptions): ProxmoxPoller {
  const run = options.run ?? syncProxmox;
  // A floor against a busy loop from a zero or negative interval.
  const intervalMs = Math.max(10, options.intervalSeconds * 1000);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | null = null;
  let passes = 0;

  const pass = async () => {
    const started = Date.now();
    try {
      const report = await run(options.driver, options.client, options.sync ?? {});
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
      };
      if (report.complete) options.log.info(summary, 'proxmox inventory pass');
      else
        options.log.warn(
          { ...summary, firstErrors: report.errors.slice(0, 3) },
          'proxmox inventory pass incomplete: nothing marked missing',
        );
      await options.onReport?.(report);
    } catch (err) {
      options.log.error({ err }, 'proxmox inventory pass failed');
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
