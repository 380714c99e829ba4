import { type EmbeddedNeo4j, type EmbeddedNeo4jOptions, startEmbeddedNeo4j } from './launcher.js';
import { boltAnswers } from './ports.js';

/** A supervised embedded Neo4j: the same URI and credentials across restarts; `pid` is the current JVM's. */
export interface SupervisedNeo4j extends Omit<EmbeddedNeo4j, 'pid' | 'exited'> {
  readonly pid: number | undefined;
  /** Restarts so far (after unexpected exits). */
  readonly restarts: number;
}

export interface SupervisorOptions extends EmbeddedNeo4jOptions {
  /** Wait before the first restart after a crash; doubles per failed or short-lived attempt. Default 1 s. */
  initialBackoffMs?: number;
  /** The longest wait between restarts. Default 30 s. */
  maxBackoffMs?: number;
  /** Up this long, a Neo4j that dies again is restarted after `initialBackoffMs` again. Default 60 s. */
  stableMs?: number;
  /**
   * A running Neo4j that has not answered the Bolt handshake for this long (frozen: SIGSTOP, a
   * stuck JVM) is killed (SIGKILL) and so restarted like a dead one. Default 30 s; 0 disables.
   */
  unresponsiveMs?: number;
  /** How often it is asked. Default 2 s. */
  livenessEveryMs?: number;
}

/**
 * Starts the embedded Neo4j and keeps it running: when the JVM exits without `stop()` (killed,
 * out of memory), it is started again on the same store, port and password file after a backoff
 * (1 s, 2 s, 4 s … up to 30 s; back to 1 s once a start stayed up a minute). Each exit and
 * restart is logged. A JVM that still exists but has not answered the Bolt handshake for
 * `unresponsiveMs` (frozen) is killed, and so restarted the same way. `stop()` cancels a pending
 * restart and shuts down the running JVM.
 */
export async function startSupervisedNeo4j(options: SupervisorOptions): Promise<SupervisedNeo4j> {
  const log = options.log ?? (() => {});
  const initial = options.initialBackoffMs ?? 1000;
  const max = options.maxBackoffMs ?? 30_000;
  const stableMs = options.stableMs ?? 60_000;
  const unresponsiveMs = options.unresponsiveMs ?? 30_000;
  const everyMs = options.livenessEveryMs ?? 2000;
  let current = await startEmbeddedNeo4j(options);
  // Later starts reuse the port: the driver and the advertised URI keep pointing at it.
  const again: EmbeddedNeo4jOptions = { ...options, port: current.port };
  let upSince = Date.now();
  /** The wait before the next restart attempt. */
  let next = initial;
  let restarts = 0;
  /** The current JVM exited and a restart is pending; when it last answered the Bolt handshake. */
  let exited = false;
  let answeredAt = Date.now();
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let starting: Promise<unknown> = Promise.resolve();

  /** Waits `next`, then restarts; the wait after that is twice as long (capped). */
  const schedule = (): number => {
    const wait = next;
    next = Math.min(next * 2, max);
    timer = setTimeout(() => {
      starting = restart();
    }, wait);
    return wait;
  };
  const restart = async () => {
    if (stopping) return;
    const began = Date.now();
    try {
      const neo = await startEmbeddedNeo4j(again);
      if (stopping) return await neo.stop();
      current = neo;
      upSince = Date.now();
      answeredAt = upSince;
      exited = false;
      restarts++;
      log(
        `embedded Neo4j restarted (restart ${restarts}, pid ${neo.pid}, ${((upSince - began) / 1000).toFixed(1)} s to start)`,
      );
      watch(neo);
    } catch (err) {
      if (stopping) return;
      const wait = schedule();
      log(`embedded Neo4j restart failed: ${(err as Error).message.split('\n')[0]}; next attempt in ${wait / 1000} s`);
    }
  };
  const watch = (neo: EmbeddedNeo4j) => {
    void neo.exited.then(({ code, signal }) => {
      if (stopping || neo !== current) return;
      exited = true;
      if (Date.now() - upSince >= stableMs) next = initial;
      const wait = schedule();
      log(
        `embedded Neo4j exited unexpectedly (${signal ? `signal ${signal}` : `code ${code}`}, pid ${neo.pid}); restarting in ${wait / 1000} s (log ${neo.logFile})`,
      );
    });
  };
  watch(current);

  // Liveness: a dead JVM is seen by its exit; a frozen one only by not answering. Asked only while
  // the current JVM runs (not while a restart is pending), one question at a time.
  let asking = false;
  const liveness = setInterval(() => {
    if (stopping || exited || asking || unresponsiveMs <= 0) return;
    asking = true;
    const neo = current;
    void boltAnswers(neo.port, Math.min(everyMs, 1500)).then((ok) => {
      asking = false;
      if (stopping || exited || neo !== current) return;
      if (ok) return void (answeredAt = Date.now());
      const silentMs = Date.now() - answeredAt;
      if (silentMs < unresponsiveMs || neo.pid === undefined) return;
      log(
        `embedded Neo4j unresponsive for ${(silentMs / 1000).toFixed(0)} s (pid ${neo.pid} still there): killing it (SIGKILL) to restart it`,
      );
      answeredAt = Date.now();
      try {
        process.kill(neo.pid, 'SIGKILL');
      } catch {
        // Gone meanwhile: its exit restarts it.
      }
    });
  }, everyMs);
  liveness.unref();

  return {
    uri: current.uri,
    port: current.port,
    user: current.user,
    password: current.password,
    passwordFile: current.passwordFile,
    logFile: current.logFile,
    get pid() {
      return current.pid;
    },
    get restarts() {
      return restarts;
    },
    async stop() {
      stopping = true;
      clearTimeout(timer);
      clearInterval(liveness);
      await starting;
      await current.stop();
    },
  };
}
