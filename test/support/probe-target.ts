import net from 'node:net';
import { loadConfig } from '../../src/config.js';
import type { CheckNetworkPolicy } from '../../src/model/index.js';

/**
 * A target for health probes on 127.0.0.1 that the test controls: one TCP port whose behaviour
 * is switched between up (HTTP 200), status (HTTP with another status), slow (accepts, never
 * answers), garbage (not HTTP), hangup (closes without a word) and down (nothing listens: the
 * connection is refused). The port stays the same across modes, so a check keeps its URL.
 */
export type TargetMode = 'up' | 'status' | 'slow' | 'garbage' | 'hangup' | 'down';

export interface ProbeTarget {
  port: number;
  url: string;
  /** Connections accepted so far. */
  accepted(): number;
  /** When each connection was accepted (performance.now()), oldest first. */
  acceptTimes(): number[];
  set(mode: TargetMode, status?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startProbeTarget(): Promise<ProbeTarget> {
  let mode: TargetMode = 'up';
  let status = 200;
  let accepted = 0;
  const times: number[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    accepted++;
    sockets.add(socket);
    times.push(performance.now());
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    const answer = (code: number) =>
      socket.end(
        `HTTP/1.1 ${code} ${code === 200 ? 'OK' : 'Status'}\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok`,
      );
    // Answer after the request arrives, as a real server does.
    socket.once('data', () => {
      if (mode === 'up') answer(200);
      else if (mode === 'status') answer(status);
      else if (mode === 'garbage') socket.end('this is not HTTP at all\r\n\r\n');
      else if (mode === 'hangup') socket.destroy();
      // slow: say nothing; the probe's timeout ends it
    });
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: '127.0.0.1', port }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const stopListening = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return {
    port,
    url: `http://127.0.0.1:${port}/health`,
    accepted: () => accepted,
    acceptTimes: () => [...times],
    async set(next, nextStatus) {
      if (next === 'down' && mode !== 'down') await stopListening();
      if (next !== 'down' && mode === 'down') await listen(port);
      mode = next;
      if (nextStatus !== undefined) status = nextStatus;
    },
    async close() {
      if (mode !== 'down') await stopListening();
      mode = 'down';
    },
  };
}

/**
 * What an operator sets to let checks probe targets on this machine: AITIA_CHECK_ALLOW, parsed
 * as `aitia serve` parses it. Loopback is refused without it; tests that probe 127.0.0.1 ask.
 */
export function checkNetworkAllowing(allow = '127.0.0.1'): CheckNetworkPolicy {
  return { allow: loadConfig({ AITIA_CHECK_ALLOW: allow }).checkAllow, protectedEndpoints: [] };
}
