import net from 'node:net';
import { type CheckNetworkPolicy, STRICT_CHECK_POLICY, type TcpCheckSpec } from '../../model/index.js';
import { withDeadline } from './deadline.js';
import { connectFailure, refusedByPolicy, timeoutFailure, type ProbeOutcome } from './outcome.js';
import { vetTarget } from './vet-target.js';

/**
 * Opens a TCP connection and closes it at once: pass when the connection is accepted. A timeout
 * (spec.timeoutMs, via an AbortController) means nothing answered: unreachable. The host is
 * resolved and vetted first (vet-target.ts) and the connection goes to the vetted address; a
 * refused address is never connected to. Never throws.
 */
export function probeTcp(
  spec: TcpCheckSpec,
  signal?: AbortSignal,
  policy: CheckNetworkPolicy = STRICT_CHECK_POLICY,
): Promise<ProbeOutcome> {
  const target = `${spec.host}:${spec.port}`;
  return withDeadline(spec.timeoutMs, signal, (abort, settle, onCleanup) => {
    abort.addEventListener('abort', () => settle(timeoutFailure(target, spec.timeoutMs, false)), { once: true });
    void vetTarget(policy, spec.host, spec.port).then((vetted) => {
      if (abort.aborted) return;
      if (!vetted.ok) {
        settle(vetted.refused ? refusedByPolicy(vetted.reason) : connectFailure(vetted.error, target));
        return;
      }
      const socket = net.connect({ host: vetted.address, port: spec.port, signal: abort });
      onCleanup(() => socket.destroy());
      socket.once('connect', () => settle({ status: 'pass', reason: null, unreachable: false }));
      socket.once('error', (err) => {
        if (abort.aborted) settle(timeoutFailure(target, spec.timeoutMs, false));
        else settle(connectFailure(err, target));
      });
    });
  });
}
