import net from 'node:net';
import type { TcpCheckSpec } from '../../model/index.js';
import { withDeadline } from './deadline.js';
import { connectFailure, timeoutFailure, type ProbeOutcome } from './outcome.js';

/**
 * Opens a TCP connection and closes it at once: pass when the connection is accepted. A timeout
 * (spec.timeoutMs, via an AbortController) means nothing answered: unreachable. Never throws.
 */
export function probeTcp(spec: TcpCheckSpec, signal?: AbortSignal): Promise<ProbeOutcome> {
  const target = `${spec.host}:${spec.port}`;
  return withDeadline(spec.timeoutMs, signal, (abort, settle, onCleanup) => {
    const socket = net.connect({ host: spec.host.replace(/^\[|\]$/g, ''), port: spec.port, signal: abort });
    onCleanup(() => socket.destroy());
    socket.once('connect', () => settle({ status: 'pass', reason: null, unreachable: false }));
    socket.once('error', (err) => {
      if (abort.aborted) settle(timeoutFailure(target, spec.timeoutMs, false));
      else settle(connectFailure(err, target));
    });
  });
}
