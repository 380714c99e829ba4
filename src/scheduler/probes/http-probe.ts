import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { type CheckNetworkPolicy, type HttpCheckSpec, STRICT_CHECK_POLICY } from '../../model/index.js';
import { withDeadline } from './deadline.js';
import { connectFailure, refusedByPolicy, timeoutFailure, type ProbeOutcome } from './outcome.js';
import { vetTarget } from './vet-target.js';

/** A lookup that answers only the vetted address: the connection cannot resolve the name again. */
function pinned(address: string, family: 4 | 6): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

/**
 * GET the URL once on a fresh connection (no keep-alive: each probe proves the service accepts a
 * new connection) and compare the status with the expected one. The body is not read and
 * redirects are not followed (a 3xx is the status). The host is resolved and vetted first
 * (vet-target.ts); the connection goes to the vetted address (TLS still verifies the URL's name).
 * Timeout: spec.timeoutMs for the whole exchange, via an AbortController; `signal` aborts early
 * (stop). Never throws: every failure is a `fail` with its reason, a refusal `unknown`.
 */
export function probeHttp(
  spec: HttpCheckSpec,
  signal?: AbortSignal,
  policy: CheckNetworkPolicy = STRICT_CHECK_POLICY,
): Promise<ProbeOutcome> {
  const url = new URL(spec.url);
  const target = url.host;
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  let connected = false;
  return withDeadline(spec.timeoutMs, signal, (abort, settle, onCleanup) => {
    const onAbort = () => settle(timeoutFailure(target, spec.timeoutMs, connected));
    abort.addEventListener('abort', onAbort, { once: true });
    void vetTarget(policy, url.hostname, port).then((vetted) => {
      if (abort.aborted) return;
      if (!vetted.ok) {
        settle(vetted.refused ? refusedByPolicy(vetted.reason) : connectFailure(vetted.error, target));
        return;
      }
      const lib = url.protocol === 'https:' ? https : http;
      const req = lib.request(url, {
        method: 'GET',
        agent: false,
        signal: abort,
        lookup: pinned(vetted.address, vetted.family),
        headers: { 'user-agent': 'aitia-health-check', connection: 'close' },
      });
      onCleanup(() => req.destroy());
      req.on('socket', (socket) => {
        if (!socket.connecting) connected = true;
        socket.once('connect', () => (connected = true));
      });
      req.on('response', (res) => {
        const got = res.statusCode ?? 0;
        res.destroy();
        settle(
          got === spec.expectedStatus
            ? { status: 'pass', reason: null, unreachable: false }
            : { status: 'fail', reason: `expected status ${spec.expectedStatus}, got ${got}`, unreachable: false },
        );
      });
      req.on('error', (err) => {
        if (abort.aborted) settle(timeoutFailure(target, spec.timeoutMs, connected));
        else settle(connectFailure(err, target));
      });
      req.end();
    });
  });
}
