import net from 'node:net';
import type { TcpCheckSpec } from '../../model/index.js';
import { connectFailure, timeoutFailure, type ProbeOutcome } from './outcome.js';

/**
 * Opens a TCP connection and closes it at once: pass when the connection is accepted. A timeout
 * (spec.timeoutMs, via an AbortController) means nothing answered: unreachable. Never throws.
 */
export function probeTcp(spec: TcpCheckSpec, signal?: AbortSignal): Promise<ProbeOutcome> {
  const target = `${spec.host}:${spec.port}`;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), spec.timeoutMs);
  const onOuterAbort = () => controller.abort();
  signal?.addEventListener('abort', onOuterAbort, { once: true });
  return new Promise<ProbeOutcome>((resolve) => {
    let settled = false;
    const settle = (outcome: ProbeOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onOuterAbort);
      socket.destroy();
      resolve(outcome);
    };
    const socket = net.connect({ host: spec.host.replace(/^\[|\]$/g, ''), port: spec.port, signal: controller.signal });
    socket.once('connect', () => settle({ status: 'pass', reason: null, unreachable: false }));
    socket.once('error', (err) => {
      if (controller.signal.aborted) settle(timeoutFailure(target, spec.timeoutMs, false));
      else settle(connectFailure(err, target));
    });
  });
}
