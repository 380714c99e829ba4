import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToken } from '../../src/services/token-store.js';
import { builtCli, cliEnv } from '../support/cli.js';
import { useGraph } from '../support/graph.js';

/**
 * Issue 30 item 1 as it was found: `aitia serve` (a real process, no test runner's handlers) took
 * `POST /events/cloudevents` with Content-Length 1000, six bytes and a closed socket, and exited.
 * Here every endpoint gets cut-off bodies with and without a token; the same process answers an
 * authenticated query within a second after each, and its last resort logged nothing.
 */
const { scope } = useGraph();
let dir: string;
let child: ChildProcess;
let out = '';
let port: number;
let agent: string;
let ingester: string;

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const p = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return p;
}

beforeAll(async () => {
  const cli = await builtCli();
  dir = mkdtempSync(join(tmpdir(), 'aitia-edge-serve-'));
  agent = addToken(join(dir, 'tokens.json'), `${scope}-agent`, 'agent');
  ingester = addToken(join(dir, 'tokens.json'), `${scope}-ingester`, 'ingester');
  port = await freePort();
  child = spawn(process.execPath, [cli, 'serve'], {
    env: cliEnv({
      AITIA_HOST: '127.0.0.1',
      AITIA_PORT: String(port),
      AITIA_DATA_DIR: dir,
      AITIA_TOKENS_FILE: join(dir, 'tokens.json'),
      AITIA_LOG_LEVEL: 'info',
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`aitia serve exited ${child.exitCode}:\n${out}`);
    if (
      await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) throw new Error(`aitia serve not ready within 90 s:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  await ask();
}, 120_000);
afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function ask(): Promise<{ ms: number; status: number; body: unknown }> {
  const t0 = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${agent}`, connection: 'close' },
    body: JSON.stringify({ query: '{ about { role } }' }),
  });
  return { status: res.status, body: await res.json(), ms: performance.now() - t0 };
}

/** A request that promises 1000 bytes, sends six and closes (`reset`: with a TCP RST). */
function cutOff(path: string, headers: string, reset: boolean): Promise<void> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1', () => {
      s.write(
        `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n${headers}content-length: 1000\r\n\r\n{"a":1`,
      );
      setTimeout(() => (reset ? s.resetAndDestroy() : s.destroy()), 100);
    });
    s.on('error', () => undefined);
    s.on('close', () => resolve());
  });
}

const PATHS = [
  '/events/cloudevents?source=vc',
  '/graphql',
  '/mcp',
  '/healthz',
  '/readyz',
  '/graphql/assets/x.js',
  '/nope',
];

describe('aitia serve outlives cut-off requests', () => {
  for (const path of PATHS) {
    it(path, async () => {
      const token = path.startsWith('/events') ? ingester : agent;
      for (const headers of ['', `authorization: Bearer ${token}\r\naccept: application/json, text/event-stream\r\n`])
        for (const reset of [false, true]) await cutOff(path, headers, reset);
      await new Promise((r) => setTimeout(r, 200));
      expect(child.exitCode, out.slice(-3000)).toBeNull();
      const { status, body, ms } = await ask();
      expect({ status, body }).toEqual({ status: 200, body: { data: { about: { role: 'agent' } } } });
      expect(ms).toBeLessThan(1000);
      expect(out).not.toMatch(/process: (unhandled|uncaught)/);
    });
  }
});
