import type { Driver } from 'neo4j-driver';
import { claimLease, fencedDriver, releaseLease } from '../graph/db/leases.js';
import type { Logger } from '../log.js';
import { claimIntervalMs, type Fence, stillHolds } from '../model/lease.js';

/** Who claims and for how long: this replica's name and the lease length (AITIA_REPLICA_ID, AITIA_LEASE_SECONDS). */
export interface LeaseSettings {
  holder: string;
  seconds: number;
}

/** A loop that runs only while this replica holds its lease. */
export interface LeasedLoop {
  /** The fence of the running term, or null while another replica (or nobody) holds the lease. */
  readonly fence: Fence | null;
  /** Terms this replica has held the lease so far. */
  readonly terms: number;
  /** Stops the loop, waits for it, and releases the lease so another replica takes over at once. */
  stop(): Promise<void>;
}

/**
 * Runs `start` while this replica holds the lease `name`, through a driver whose every write
 * carries the term's fence. Claims every third of the lease (acquire or renew in one locked
 * transaction). The loop is stopped when another replica holds the lease, when a renewal has not
 * succeeded for a whole lease (Neo4j away: the lease may have passed on), or at once when one of
 * its writes is refused by the fence; it starts again with a new token when this replica
 * acquires the lease again.
 */
export function runUnderLease(options: {
  driver: Driver;
  name: string;
  lease: LeaseSettings;
  log: Logger;
  start: (driver: Driver, fence: Fence) => { stop(): Promise<void> };
}): LeasedLoop {
  const { driver, name, log } = options;
  const { holder, seconds } = options.lease;
  type Term = { fence: Fence; loop: { stop(): Promise<void> } };
  let running: Term | null = null;
  // Read through a function: halt() and begin() change it between awaits, out of the compiler's sight.
  const term = (): Term | null => running;
  let halting: Promise<void> = Promise.resolve();
  let terms = 0;
  let stopped = false;
  let confirmedAt = 0;
  let watchdog: NodeJS.Timeout | undefined;
  let sleep: { timer: NodeJS.Timeout; wake: () => void } | undefined;

  const halt = (reason: string, detail: Record<string, unknown> = {}): Promise<void> => {
    const ending = running;
    if (!ending) return halting;
    running = null;
    clearTimeout(watchdog);
    log[reason === 'stopping' ? 'info' : 'warn'](
      { lease: name, holder, token: ending.fence.token, reason, ...detail },
      `lease ${name}: stopped (${reason})`,
    );
    halting = halting
      .then(() => ending.loop.stop())
      .catch((err: unknown) => log.error({ err, lease: name }, 'stop failed'));
    return halting;
  };
  const armWatchdog = () => {
    clearTimeout(watchdog);
    const left = confirmedAt + seconds * 1000 - Date.now();
    watchdog = setTimeout(
      () => {
        if (!stillHolds(confirmedAt, Date.now(), seconds)) void halt('not renewed within the lease');
        else armWatchdog();
      },
      Math.max(0, left),
    );
  };
  const begin = (token: number) => {
    const fence: Fence = { lease: name, holder, token };
    const fenced = fencedDriver(
      driver,
      fence,
      (err) => void halt('a write was refused by the fence', { current: err.current }),
    );
    terms++;
    log.info({ lease: name, holder, token }, `lease ${name}: acquired (token ${token}) — running`);
    try {
      running = { fence, loop: options.start(fenced, fence) };
    } catch (err) {
      log.error({ err, lease: name }, `lease ${name}: the loop did not start`);
    }
  };

  // The claim loop never waits for a term to stop (a pass may take long): claims go on meanwhile,
  // and a new term begins once the old one has stopped, if the lease is still this replica's.
  let claimed = 0;
  // The token this replica holds by its last claim (null: another holds it, or none yet).
  let held: number | null = null;
  let starting = false;
  const beginAfterHalt = () => {
    if (starting) return;
    starting = true;
    void halting.then(() => {
      starting = false;
      if (!stopped && !term() && stillHolds(confirmedAt, Date.now(), seconds)) begin(claimed);
    });
  };
  const loop = (async () => {
    while (!stopped) {
      const sentAt = Date.now();
      try {
        const claim = await claimLease(driver, { name, holder, seconds });
        if (stopped) break;
        if (claim.action === 'wait') {
          held = null;
          void halt(`held by ${claim.holder}`, { by: claim.holder, current: claim.token });
        } else {
          const current = term();
          if (current && current.fence.token !== claim.token) void halt('re-acquired with a new token');
          claimed = held = claim.token;
          confirmedAt = sentAt;
          armWatchdog();
          if (!term()) beginAfterHalt();
        }
      } catch (err) {
        if (!stopped) log.warn({ err, lease: name }, `lease ${name}: claim failed`);
      }
      if (stopped) break;
      await new Promise<void>((wake) => {
        sleep = { wake, timer: setTimeout(wake, claimIntervalMs(seconds)) };
      });
    }
  })();

  return {
    get fence() {
      return running?.fence ?? null;
    },
    get terms() {
      return terms;
    },
    async stop() {
      stopped = true;
      if (sleep) {
        clearTimeout(sleep.timer);
        sleep.wake();
      }
      await loop;
      await halt('stopping');
      await halting;
      clearTimeout(watchdog);
      // Released only with the token this replica holds: a lease another took meanwhile stays theirs.
      if (held !== null)
        await releaseLease(driver, { lease: name, holder, token: held }).catch((err: unknown) =>
          log.warn({ err, lease: name }, 'release failed'),
        );
    },
  };
}
