import type { Driver } from 'neo4j-driver';
import { expireApprovals } from '../graph/approvals.js';
import type { Logger } from '../log.js';
import { type LeaseSettings, runUnderLease } from './lease-keeper.js';

/**
 * The expiry sweep: every tick it marks the pending approvals whose `expiresAt` has passed
 * expired, in batches, each with its `approval` feed entry (change `expired`) in the batch's
 * transaction — what the approvalChanged subscription, the console's inbox and the
 * `approval.expired` notification read. Leader-only, like the notifier: it runs while this replica
 * holds the `approval-expiry` lease, its writes fenced by the term, and a request once marked is
 * never matched again (src/graph/approvals.ts), so two replicas or a restart report it once.
 */

export const APPROVAL_EXPIRY_LEASE = 'approval-expiry';

export interface ExpirySweepOptions {
  driver: Driver;
  log: Logger;
  /** Between sweeps; default 5 s (an expiry is reported at most this late). */
  tickMs?: number;
  /** Requests marked per transaction; default 200. */
  batch?: number;
  now?: () => string;
}

export interface ExpirySweep {
  /** One sweep, batch after batch until none is due; the number marked. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

/** The sweep on its own timer (or, with tickMs 0, only when runOnce is called). */
export function startExpirySweep(o: ExpirySweepOptions): ExpirySweep {
  const tickMs = o.tickMs ?? 5000;
  const batch = o.batch ?? 200;
  const now = o.now ?? (() => new Date().toISOString());
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> = Promise.resolve(0);

  const sweep = async (): Promise<number> => {
    let marked = 0;
    for (;;) {
      if (stopped) return marked;
      const expired = await expireApprovals(o.driver, now(), batch);
      marked += expired.length;
      if (expired.length > 0)
        o.log.info({ expired: expired.map((a) => a.id) }, `approvals: ${expired.length} expired undecided`);
      if (expired.length < batch) return marked;
    }
  };
  const runOnce = (): Promise<number> => {
    running = running.catch(() => 0).then(sweep);
    return running;
  };
  const tick = () => {
    if (stopped) return;
    runOnce()
      .catch((err: unknown) => o.log.warn({ err }, 'approvals: expiry sweep failed; trying again'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, tickMs);
      });
  };
  if (tickMs > 0) tick();
  return {
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running.catch(() => 0);
    },
  };
}

/** The sweep as a leader-only loop under its lease, for `aitia serve`. */
export function startApprovalExpiry(options: { driver: Driver; lease: LeaseSettings; log: Logger; tickMs?: number }): {
  stop(): Promise<void>;
} {
  return runUnderLease({
    driver: options.driver,
    name: APPROVAL_EXPIRY_LEASE,
    lease: options.lease,
    log: options.log,
    start: (driver) => startExpirySweep({ driver, log: options.log, tickMs: options.tickMs }),
  });
}
