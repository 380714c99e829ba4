import type { Logger } from '../log.js';

/**
 * The last resort of a serving process: a promise rejected with nobody waiting, or an exception
 * thrown past every handler, is logged with a running count and the process keeps serving. Nothing
 * should reach here: each HTTP route ends its own failures (edge-guards.ts `guarded`), and a count
 * above zero is a bug to fix, not a state to live with.
 */
let faults = 0;

/** Faults that reached the process since start. */
export function processFaults(): number {
  return faults;
}

/** Installs the handlers; returns a function that removes them. */
export function installLastResort(log: Logger): () => void {
  const onRejection = (reason: unknown) => {
    faults += 1;
    log.error({ err: reason, faults }, 'process: unhandled promise rejection (a bug: kept serving)');
  };
  const onException = (err: Error, origin: string) => {
    faults += 1;
    log.error({ err, origin, faults }, 'process: uncaught exception (a bug: kept serving)');
  };
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
}
