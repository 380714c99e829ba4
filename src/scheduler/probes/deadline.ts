import type { ProbeOutcome } from './outcome.js';

/**
 * Runs one probe under a deadline: `run` gets an AbortSignal that fires after `timeoutMs` or when
 * the caller's `signal` aborts, and a `settle` that resolves once (later calls are ignored), clears
 * the timer, and calls `cleanup` (destroy the socket or request). Probes never throw.
 */
export function withDeadline(
  timeoutMs: number,
  signal: AbortSignal | undefined,
  run: (abort: AbortSignal, settle: (outcome: ProbeOutcome) => void, onCleanup: (fn: () => void) => void) => void,
): Promise<ProbeOutcome> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const onOuterAbort = () => controller.abort();
  signal?.addEventListener('abort', onOuterAbort, { once: true });
  return new Promise<ProbeOutcome>((resolve) => {
    let settled = false;
    let cleanup: () => void = () => {};
    const settle = (outcome: ProbeOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onOuterAbort);
      cleanup();
      resolve(outcome);
    };
    run(controller.signal, settle, (fn) => (cleanup = fn));
  });
}
