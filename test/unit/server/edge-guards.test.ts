import { createServer, get, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../../src/log.js';
import { DEFAULT_EDGE_LIMITS, hardenServer, serverOptions } from '../../../src/server/edge-guards.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let server: Server | null = null;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = null;
});

async function start(perAddress: number): Promise<number> {
  const limits = { ...DEFAULT_EDGE_LIMITS, maxConnections: 100, maxConnectionsPerAddress: perAddress };
  server = createServer(serverOptions(limits), (_req, res) => res.end('ok'));
  hardenServer(server, limits, quiet);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return (server.address() as { port: number }).port;
}

/** An idle socket from `from` (any 127/8 address is this host on Linux): resolves once connected. */
async function idle(port: number, from: string): Promise<{ socket: Socket; closed: () => boolean }> {
  const socket = connect({ port, host: '127.0.0.1', localAddress: from });
  sockets.push(socket);
  let closed = false;
  socket.on('error', () => undefined);
  socket.on('close', () => (closed = true));
  await new Promise((r) => socket.once('connect', r));
  return { socket, closed: () => closed };
}

const answers = (port: number, from: string) =>
  new Promise<number>((resolve, reject) => {
    const req = get({ host: '127.0.0.1', port, path: '/', localAddress: from, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.setTimeout(1000, () => req.destroy(new Error('no answer within 1 s')));
  });

describe('hardenServer: one client cannot fill the connection table for everyone', () => {
  it('past its own cap an address has new sockets closed at once; other addresses are still served', async () => {
    const port = await start(3);
    const held = [];
    for (let i = 0; i < 3; i++) held.push(await idle(port, '127.0.0.2'));
    const extra = await idle(port, '127.0.0.2');
    await sleep(100);
    expect(extra.closed()).toBe(true);
    expect(held.map((h) => h.closed())).toEqual([false, false, false]);
    // Another client is served while the first holds all it may.
    expect(await answers(port, '127.0.0.3')).toBe(200);
    // A socket let go frees its place for the same address.
    held[0]!.socket.destroy();
    await sleep(100);
    expect(await answers(port, '127.0.0.2')).toBe(200);
  });

  it('an address at its cap gets no answer on a new socket; another address does', async () => {
    const port = await start(2);
    await idle(port, '127.0.0.2');
    await idle(port, '127.0.0.2');
    await expect(answers(port, '127.0.0.2')).rejects.toThrow();
    expect(await answers(port, '127.0.0.1')).toBe(200);
  });
});
