import type { CheckResultStatus } from '../../model/index.js';

/** What a probe concludes; the runner adds the time and duration. */
export interface ProbeOutcome {
  status: CheckResultStatus;
  /** Why it failed or is unknown, in words an operator can act on; null on pass. */
  reason: string | null;
  /** The address did not answer at all (see connectFailure). */
  unreachable: boolean;
}

/**
 * Socket errors that mean the address did not answer at all: no route, host down, or (our own
 * timeout) no connection within the time. A refused connection is NOT one of them: the host
 * answered with a reset, so it is reachable and only the service is down. A name that does not
 * resolve is not one either: that is a configuration or DNS problem, not evidence about the host.
 */
const UNREACHABLE_CODES = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ETIMEDOUT']);

/** Describes a socket-level error; `unreachable` per the rule above. */
export function connectFailure(err: unknown, target: string): ProbeOutcome {
  const code = (err as { code?: string } | null)?.code ?? '';
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'ECONNREFUSED') return { status: 'fail', reason: `connection refused by ${target}`, unreachable: false };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return { status: 'fail', reason: `cannot resolve ${target} (${code})`, unreachable: false };
  if (UNREACHABLE_CODES.has(code))
    return { status: 'fail', reason: `${target} unreachable (${code})`, unreachable: true };
  if (code === 'ECONNRESET') return { status: 'fail', reason: `connection reset by ${target}`, unreachable: false };
  if (code.startsWith('HPE_'))
    return { status: 'fail', reason: `invalid HTTP response from ${target} (${code})`, unreachable: false };
  return { status: 'fail', reason: `${target}: ${code ? `${code} ` : ''}${message}`.slice(0, 300), unreachable: false };
}

/** A timeout: unreachable only if no connection was ever made. */
export function timeoutFailure(target: string, timeoutMs: number, connected: boolean): ProbeOutcome {
  return connected
    ? { status: 'fail', reason: `timed out after ${timeoutMs} ms waiting for ${target} to answer`, unreachable: false }
    : { status: 'fail', reason: `timed out after ${timeoutMs} ms connecting to ${target}`, unreachable: true };
}

/**
 * The policy refused the address (vet-target.ts): nothing was connected to, so nothing is known
 * about the resource — unknown, not fail, and the reason says it was a refusal.
 */
export function refusedByPolicy(reason: string): ProbeOutcome {
  return { status: 'unknown', reason, unreachable: false };
}
