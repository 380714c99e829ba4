import http from 'node:http';
import https from 'node:https';
import type { HttpCheckSpec } from '../../model/index.js';
import { withDeadline } from './deadline.js';
import { connectFailure, timeoutFailure, type ProbeOutcome } from './outcome.js';

/**
 * GET the URL once on a fresh connection (no keep-alive: each probe proves the service accepts a
 * new connection) and compare the status with the expected one. The body is not read. Timeout:
 * spec.timeoutMs for the whole exchange, via an AbortController; `signal` aborts early (stop).
 * Never throws: every failure is a `fail` with its reason.
 */
export function probeHttp(spec: HttpCheckSpec, signal?: AbortSignal): Promise<ProbeOutcome> {
  const url = new URL(spec.url);
  const target = url.host;
  let connected = false;
  return withDeadline(spec.timeoutMs, signal, (abort, settle, onCleanup) => {
    const lib = url.protocol === 'https:' ? https : http;
    const req = lib.request(url, {
      method: 'GET',
      agent: false,
      signal: abort,
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
}
