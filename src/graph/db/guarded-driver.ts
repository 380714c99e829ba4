import type { Driver, Session } from 'neo4j-driver';
import { isUnavailable, unavailable } from '../../model/index.js';

/** How long a call may wait on Neo4j before it answers `UNAVAILABLE` (AITIA_NEO4J_* in src/config.ts). */
export interface DriverBounds {
  /** Opening a TCP connection (the driver's connectionTimeout). */
  connectTimeoutMs: number;
  /** Waiting for a pooled connection (connectionAcquisitionTimeout). */
  acquireTimeoutMs: number;
  /** Retrying lost connections and transient errors inside one call (maxTransactionRetryTime). */
  retryMs: number;
  /** A call unanswered this long makes aitia ask Neo4j whether it answers at all. */
  stallMs: number;
  /** How long that question may take before Neo4j counts as unavailable. */
  probeMs: number;
}

/** Defaults keep every call during an outage under ~5 s: stall 3 s + probe 1.5 s. */
export const DEFAULT_DRIVER_BOUNDS: DriverBounds = {
  connectTimeoutMs: 2000,
  acquireTimeoutMs: 3000,
  retryMs: 2000,
  stallMs: 3000,
  probeMs: 1500,
};

/** While Neo4j is known to be down, calls fail at once; it is asked again at most this often. */
const RECHECK_MS = 1000;

/** Told when Neo4j stops or starts answering (for one log line per outage). */
export type AvailabilityListener = (available: boolean, detail: { downMs?: number }) => void;

/**
 * What a whole request's deadline asks of a guarded driver (src/services/deadline.ts): whether
 * Neo4j had trouble since a moment, and whether it answers now (the shared probe).
 */
export interface Neo4jHealth {
  readonly bounds: DriverBounds;
  /**
   * True while Neo4j is down or was back less than {@link WARMUP_MS} ago, or when it was down or out
   * of pooled connections at any time since `sinceMs` (epoch ms).
   */
  troubledSince(sinceMs: number): boolean;
  /** Asks Neo4j `RETURN 1` (one question in flight, shared); false when unanswered within probeMs. */
  answers(): Promise<boolean>;
}

/** A restarted Neo4j answers its first calls slowly (measured up to ~13 s): counted as trouble still. */
const WARMUP_MS = 30_000;

const healthByDriver = new WeakMap<Driver, Neo4jHealth>();

/** The health of a driver made by {@link guardDriver}; undefined for any other driver. */
export function healthOf(driver: Driver): Neo4jHealth | undefined {
  return healthByDriver.get(driver);
}

/** Neo4j's code for a transaction it aborted to break a lock cycle (retryable). */
export const DEADLOCK = 'Neo.TransientError.Transaction.DeadlockDetected';

/**
 * Which driver errors mean Neo4j cannot answer now: `down` (connection refused or lost), or
 * `busy` (a transient error, or no pooled connection free in time, after the driver's retries).
 */
function outageKind(err: unknown): 'down' | 'busy' | null {
  if (typeof err !== 'object' || err === null || (err as { name?: unknown }).name !== 'Neo4jError') return null;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (code === 'ServiceUnavailable' || code === 'SessionExpired') return 'down';
  // A deadlock is two of our own transactions in each other's way, not Neo4j failing to answer.
  if (code === DEADLOCK) return null;
  if (typeof code === 'string' && code.startsWith('Neo.TransientError.')) return 'busy';
  if (typeof message === 'string' && message.startsWith('Connection acquisition timed out')) return 'busy';
  return null;
}

/**
 * Wraps a driver so that no call waits on an unavailable Neo4j for long. Each call
 * (executeQuery, a session's executeRead/executeWrite/run) that is still unanswered after `stallMs`
 * asks `probe` (its own small pool, so a saturated main pool is not mistaken for an outage)
 * whether Neo4j answers `RETURN 1` within `probeMs`: if not, the call answers `UNAVAILABLE` and
 * its work is abandoned; if so, it goes on waiting (a long query is not an outage). This covers a
 * frozen server too, which keeps its sockets open and never answers. Driver errors that mean
 * "unreachable" or "try again" become `UNAVAILABLE` as well. While Neo4j is known to be down,
 * calls fail at once, and Neo4j is asked again at most once a second, so recovery is noticed
 * within about a second without restarting anything.
 */
export function guardDriver(
  driver: Driver,
  probeDriver: Driver,
  bounds: DriverBounds,
  onAvailability: AvailabilityListener = () => {},
): Driver {
  let down: { since: number; checkedAt: number } | null = null;
  let probing: Promise<boolean> | null = null;
  // When Neo4j was last seen down, back, or out of connections (epoch ms; 0: never).
  let downAt = 0;
  let upAt = 0;
  let busyAt = 0;

  const markDown = () => {
    const now = Date.now();
    downAt = now;
    if (down) down.checkedAt = now;
    else {
      down = { since: now, checkedAt: now };
      onAvailability(false, {});
    }
  };
  const markUp = () => {
    if (!down) return;
    const downMs = Date.now() - down.since;
    upAt = Date.now();
    down = null;
    onAvailability(true, { downMs });
  };

  const probe = (): Promise<boolean> =>
    (probing ??= (async () => {
      let timer: NodeJS.Timeout | undefined;
      const answered = probeDriver.executeQuery('RETURN 1').then(
        () => true,
        () => false,
      );
      const late = new Promise<boolean>((res) => (timer = setTimeout(() => res(false), bounds.probeMs)));
      const ok = await Promise.race([answered, late]);
      clearTimeout(timer);
      if (ok) markUp();
      else markDown();
      return ok;
    })().finally(() => (probing = null)));

  const translate = (err: unknown): unknown => {
    const kind = outageKind(err);
    if (kind === 'down') markDown();
    if (kind === 'busy') busyAt = Date.now();
    return kind ? unavailable(err) : err;
  };

  const guarded = async <T>(work: () => Promise<T>): Promise<T> => {
    if (down) {
      if (Date.now() - down.checkedAt < RECHECK_MS && !probing) throw unavailable();
      if (!(await probe())) throw unavailable();
    }
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const arm = () => {
        timer = setTimeout(() => {
          void probe().then((ok) => {
            if (settled) return;
            if (ok) return arm();
            settled = true;
            reject(unavailable());
          });
        }, bounds.stallMs);
      };
      arm();
      work().then(
        (value) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(value);
        },
        (err: unknown) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          reject(translate(err));
        },
      );
    });
  };

  /* eslint-disable @typescript-eslint/no-explicit-any -- a transparent Proxy over the driver's own types */
  const guardSession = (session: Session): Session => {
    let abandoned = false;
    // An auto-commit `run` is guarded as the promise of its whole result (readQuery awaits it so),
    // with its column names (`keys`), which a Result only gives through its own promise.
    const whole = async (...args: unknown[]) => {
      const result = (session.run as any)(...args);
      return { ...(await result), keys: await result.keys() };
    };
    const run =
      (method: 'executeRead' | 'executeWrite' | 'run') =>
      (...args: unknown[]) =>
        guarded(() => (method === 'run' ? whole(...args) : (session[method] as any)(...args))).catch((err: unknown) => {
          abandoned ||= isUnavailable(err);
          throw err;
        });
    // Closing waits for the session's connection to be released, which a frozen Neo4j never
    // answers: after an abandoned call, or while Neo4j is down, it is left to finish on its own.
    const close = async () => {
      const closing = session.close().catch((err: unknown) => {
        if (!outageKind(err)) throw err;
      });
      if (abandoned || down) return void closing.catch(() => {});
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([closing, new Promise<void>((res) => (timer = setTimeout(res, bounds.stallMs)))]);
      clearTimeout(timer);
    };
    return new Proxy(session, {
      get(target, prop) {
        if (prop === 'executeRead' || prop === 'executeWrite' || prop === 'run') return run(prop);
        if (prop === 'close') return close;
        const v = Reflect.get(target, prop);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
  };

  const guardedDriver = new Proxy(driver, {
    get(target, prop) {
      if (prop === 'executeQuery') return (...args: unknown[]) => guarded(() => (target.executeQuery as any)(...args));
      if (prop === 'session') return (...args: unknown[]) => guardSession((target.session as any)(...args));
      if (prop === 'close') return () => Promise.all([target.close(), probeDriver.close()]).then(() => undefined);
      const v = Reflect.get(target, prop);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  /* eslint-enable @typescript-eslint/no-explicit-any */
  healthByDriver.set(guardedDriver, {
    bounds,
    troubledSince: (sinceMs) =>
      down !== null || downAt >= sinceMs || busyAt >= sinceMs || (upAt > 0 && Date.now() - upAt < WARMUP_MS),
    answers: probe,
  });
  return guardedDriver;
}
