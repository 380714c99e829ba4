import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * Issue 30 item 1: no bytes one client sends stop the service or stall it for others. Every
 * endpoint × every broken request, over real sockets; after each, an authenticated GraphQL query
 * answers within a second and nothing reached the process's last resort (no unhandled rejection,
 * no uncaught exception: in `aitia serve` either used to end the process).
 */
const { driver, scope } = useGraph();
let srv: TestServer;
let port: number;
const faults: unknown[] = [];
const onFault = (err: unknown) => faults.push(err);
const SOURCE = `vc-${scope}`;

beforeAll(async () => {
  process.on('unhandledRejection', onFault);
  process.on('uncaughtException', onFault);
  srv = await startTestServer(driver, {
    pushSources: new Map([[SOURCE, { server: SOURCE, secret: 'push-secret' }]]),
  });
  port = Number(new URL(srv.url).port);
  // The first query plans and compiles; the bound is for a warm service.
  await askAbout();
});
afterAll(async () => {
  process.off('unhandledRejection', onFault);
  process.off('uncaughtException', onFault);
  await srv?.close();
});
afterEach(() => {
  // Reported with the test that caused them, then cleared so the next test starts clean.
  expect(faults.splice(0).map((f) => String((f as Error)?.stack ?? f))).toEqual([]);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An authenticated query on a fresh connection; resolves with its time and answer. */
function askAbout(): Promise<{ ms: number; status: number; body: string }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      `${srv.url}/graphql`,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${srv.tokens.agent}` },
        timeout: 5000,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ ms: performance.now() - t0, status: res.statusCode ?? 0, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', reject);
    req.end(JSON.stringify({ query: '{ about { principal role } }' }));
  });
}

async function expectStillServing(): Promise<void> {
  const { ms, status, body } = await askAbout();
  expect(status, body).toBe(200);
  expect(JSON.parse(body)).toEqual({ data: { about: { principal: 'test-agent', role: 'agent' } } });
  expect(ms).toBeLessThan(1000);
}

/**
 * Writes each step to a fresh socket (bytes, or a pause in ms), then closes it (`end`: half-close and
 * wait for the answer; `destroy`: gone at once; `reset`: TCP RST). Resolves with what came back.
 */
function send(steps: (string | Buffer | number)[], close: 'end' | 'destroy' | 'reset', waitMs = 1500): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket: Socket = connect(port, '127.0.0.1');
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    };
    const timer = setTimeout(done, waitMs + steps.reduce<number>((t, s) => t + (typeof s === 'number' ? s : 0), 0));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', done);
    socket.once('connect', async () => {
      for (const step of steps) {
        if (socket.destroyed) break;
        if (typeof step === 'number') await sleep(step);
        else socket.write(step);
      }
      if (close === 'end') socket.end();
      else if (close === 'reset') socket.resetAndDestroy();
      else setTimeout(() => socket.destroy(), 50);
    });
  });
}

interface Endpoint {
  name: string;
  method: string;
  path: string;
  headers: string;
}
const json = 'content-type: application/json\r\n';
const ENDPOINTS: Endpoint[] = [
  { name: 'GraphQL', method: 'POST', path: '/graphql', headers: json },
  { name: 'GraphiQL page', method: 'GET', path: '/graphql', headers: 'accept: text/html\r\n' },
  { name: 'GraphiQL asset', method: 'GET', path: '/graphql/assets/yoga-graphiql.umd.js', headers: '' },
  { name: 'MCP', method: 'POST', path: '/mcp', headers: `${json}accept: application/json, text/event-stream\r\n` },
  { name: 'CloudEvents', method: 'POST', path: `/events/cloudevents?source=${SOURCE}`, headers: json },
  { name: 'healthz', method: 'GET', path: '/healthz', headers: '' },
  { name: 'readyz', method: 'GET', path: '/readyz', headers: '' },
  { name: 'unknown path', method: 'POST', path: '/nope', headers: json },
];

/** The same broken requests with a valid token (they reach the handler's body reading) and without. */
const auth = (token: string | null) => (token ? `authorization: Bearer ${token}\r\n` : '');
const head = (e: Endpoint, token: string | null, extra = '') =>
  `${e.method} ${e.path} HTTP/1.1\r\nhost: 127.0.0.1\r\n${e.headers}${auth(token)}${extra}`;
const seeded = randomBytes(4096);

type Broken = (e: Endpoint, token: string | null) => Promise<string>;
const BROKEN: Record<string, Broken> = {
  'cut-off body, then close': (e, t) => send([head(e, t, 'content-length: 1000\r\n\r\n'), '{"que'], 'destroy'),
  'cut-off body, then reset': (e, t) => send([head(e, t, 'content-length: 1000\r\n\r\n'), '{"que'], 'reset'),
  'cut-off body, half-closed': (e, t) => send([head(e, t, 'content-length: 1000\r\n\r\n'), '{"que'], 'end'),
  'trickled body, then close': (e, t) =>
    send([head(e, t, 'content-length: 64\r\n\r\n'), ...[...'{"query":"{'].flatMap((c) => [c, 60])], 'destroy'),
  'trickled headers, then close': (e, t) => send([...[...head(e, t)].slice(0, 40).flatMap((c) => [c, 15])], 'destroy'),
  'bad chunked encoding': (e, t) =>
    send([head(e, t, 'transfer-encoding: chunked\r\n\r\n'), 'zz\r\nhello\r\n0\r\n\r\n'], 'end'),
  'huge chunk size, cut off': (e, t) =>
    send([head(e, t, 'transfer-encoding: chunked\r\n\r\n'), 'ffffffffffffffff\r\n{"query":'], 'destroy'),
  'chunked, cut off mid-chunk': (e, t) =>
    send([head(e, t, 'transfer-encoding: chunked\r\n\r\n'), '40\r\n{"query":"{ about'], 'destroy'),
  'content-length and chunked both': (e, t) =>
    send([head(e, t, 'content-length: 5\r\ntransfer-encoding: chunked\r\n\r\n'), '0\r\n\r\n'], 'end'),
  'content-length not a number': (e, t) => send([head(e, t, 'content-length: 12abc\r\n\r\n'), '{}'], 'end'),
  'two different content-lengths': (e, t) =>
    send([head(e, t, 'content-length: 2\r\ncontent-length: 9\r\n\r\n'), '{}'], 'end'),
  'garbage request line': (e) => send([`\x00\x01GARBAGE ${e.path} HTTP/7.7 x\r\n\r\n`], 'end'),
  'binary junk after the request line': (e) => send([`${e.method} ${e.path} HTTP/1.1\r\n`, seeded], 'end'),
  'binary junk alone': () => send([seeded], 'end'),
  'oversized header': (e, t) => send([head(e, t, `x-big: ${'a'.repeat(64 * 1024)}\r\n\r\n`)], 'end'),
  'many headers': (e, t) =>
    send([head(e, t, Array.from({ length: 3000 }, (_, i) => `x-h${i}: v\r\n`).join('') + '\r\n')], 'end'),
  'oversized authorization token': (e) =>
    send([head(e, null, `authorization: Bearer ${'A'.repeat(64 * 1024)}\r\n\r\n`)], 'end'),
  'long authorization token under the header limit': (e) =>
    send([head(e, null, `authorization: Bearer ${'A'.repeat(12 * 1024)}\r\ncontent-length: 2\r\n\r\n{}`)], 'end'),
  'header without a colon': (e, t) => send([head(e, t, 'no-colon-here\r\n\r\n')], 'end'),
  'bad host header': (e, t) =>
    send([`${e.method} ${e.path} HTTP/1.1\r\nhost: [::1\r\n${e.headers}${auth(t)}content-length: 2\r\n\r\n{}`], 'end'),
  'no host header, HTTP/1.0': (e, t) =>
    send([`${e.method} ${e.path} HTTP/1.0\r\n${e.headers}${auth(t)}content-length: 2\r\n\r\n{}`], 'end'),
  'bad percent-encoding': (e, t) =>
    send(
      [
        head(
          { ...e, path: `${e.path}${e.path.includes('?') ? '&' : '?'}%ff%zz=%E0%A4%A` },
          t,
          'content-length: 2\r\n\r\n{}',
        ),
      ],
      'end',
    ),
  'not UTF-8 in a header and the body': (e, t) =>
    send([head(e, t, 'x-name: \xff\xfe\r\ncontent-length: 4\r\n\r\n'), Buffer.from([0xff, 0xfe, 0x00, 0x7b])], 'end'),
  'pipelined, the second cut off': (e, t) =>
    send([head(e, t, 'content-length: 2\r\n\r\n{}') + head(e, t, 'content-length: 500\r\n\r\n{"q')], 'destroy'),
  'closed right after the headers': (e, t) => send([head(e, t, 'content-length: 20\r\n\r\n')], 'reset'),
};

describe('the HTTP edge survives any bytes one client sends', () => {
  for (const endpoint of ENDPOINTS) {
    describe(endpoint.name, () => {
      for (const [what, broken] of Object.entries(BROKEN)) {
        it(what, async () => {
          const token = endpoint.name === 'CloudEvents' ? srv.tokens.ingester : srv.tokens.agent;
          await broken(endpoint, token);
          if (!what.includes('authorization')) await broken(endpoint, null);
          await expectStillServing();
        });
      }
    });
  }
});

describe('answers to requests node:http cannot parse', () => {
  it('a garbage request is 400, oversized headers 431, each closed', async () => {
    expect(await send(['GARBAGE\r\n\r\n'], 'end')).toMatch(/^HTTP\/1\.1 400 /);
    expect(await send([`GET /graphql HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(64 * 1024)}\r\n\r\n`], 'end')).toMatch(
      /^HTTP\/1\.1 431 /,
    );
    const badChunk = await send(['POST /nope HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n'], 'end');
    expect(badChunk).toMatch(/^HTTP\/1\.1 (400|404) /);
    await expectStillServing();
  });
});

/** Opens a socket that sends `bytes` one byte per `everyMs`, until stopped; counts when the server closed it. */
function trickler(bytes: string, everyMs: number, from = '127.0.0.1') {
  const socket = connect({ port, host: '127.0.0.1', localAddress: from });
  let i = 0;
  let closedAt: number | null = null;
  let answer = '';
  const t0 = performance.now();
  socket.on('error', () => undefined);
  socket.on('data', (c: Buffer) => (answer += c.toString('latin1')));
  socket.on('close', () => (closedAt = performance.now() - t0));
  const timer = setInterval(() => {
    if (i < bytes.length && !socket.destroyed) socket.write(bytes[i++]!);
  }, everyMs);
  return {
    closedAfterMs: () => closedAt,
    answer: () => answer,
    stop: () => {
      clearInterval(timer);
      socket.destroy();
    },
  };
}

describe('many slow sockets at once', () => {
  it('300 sockets trickling headers and bodies to every endpoint, one byte a second: queries still answer within a second', async () => {
    const slow = Array.from({ length: 300 }, (_, i) => {
      const e = ENDPOINTS[i % ENDPOINTS.length]!;
      const bytes =
        i % 2
          ? head(e, srv.tokens.agent)
          : `${head(e, srv.tokens.agent, 'content-length: 900\r\n\r\n')}${'{'.repeat(900)}`;
      // Bodies start at once: only their last bytes trickle.
      // From three client addresses (any 127/8 one is this host): one address may hold only 256.
      return trickler(i % 2 ? bytes : bytes.slice(0, bytes.length - 880), 1000, `127.0.0.${2 + (i % 3)}`);
    });
    try {
      await sleep(300);
      for (let k = 0; k < 6; k++) {
        await expectStillServing();
        await sleep(400);
      }
    } finally {
      for (const s of slow) s.stop();
    }
  }, 30_000);
});

describe('what one slow client can hold', () => {
  it('a socket that trickles its headers is closed once the header time is up (10 s), with a 408', async () => {
    const slow = trickler('GET /healthz HTTP/1.1\r\nhost: x\r\n' + 'x-a: b\r\n'.repeat(100), 500);
    try {
      const deadline = performance.now() + 14_000;
      while (slow.closedAfterMs() === null && performance.now() < deadline) await sleep(200);
      expect(slow.closedAfterMs()).not.toBeNull();
      expect(slow.closedAfterMs()!).toBeLessThan(12_500);
      expect(slow.closedAfterMs()!).toBeGreaterThan(9_000);
      expect(slow.answer()).toMatch(/^HTTP\/1\.1 408 /);
      await expectStillServing();
    } finally {
      slow.stop();
    }
  }, 20_000);

  it('a trickled body is closed once the request time is up; past the connection cap new sockets are closed at once', async () => {
    const tight = await startTestServer(driver, {
      tokenPrefix: `tight-${scope}`,
      http: { edge: { headersTimeoutMs: 1_000, requestTimeoutMs: 2_500, maxConnections: 20 } },
    });
    const tightPort = Number(new URL(tight.url).port);
    const open: Socket[] = [];
    try {
      const body = connect(tightPort, '127.0.0.1');
      open.push(body);
      body.on('error', () => undefined);
      let bodyClosed: number | null = null;
      const t0 = performance.now();
      body.on('close', () => (bodyClosed = performance.now() - t0));
      body.write(
        `POST /graphql HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nauthorization: Bearer ${tight.tokens.agent}\r\ncontent-length: 100\r\n\r\n{`,
      );
      const drip = setInterval(() => body.destroyed || body.write(' '), 200);
      while (bodyClosed === null && performance.now() - t0 < 6_000) await sleep(100);
      clearInterval(drip);
      expect(bodyClosed).not.toBeNull();
      expect(bodyClosed!).toBeLessThan(4_500);
      // 20 idle sockets fill the cap; the 21st is closed without an answer, and frees nothing of theirs.
      for (let i = 0; i < 20; i++) {
        const s = connect(tightPort, '127.0.0.1');
        s.on('error', () => undefined);
        open.push(s);
        await new Promise((r) => s.once('connect', r));
      }
      await sleep(100);
      const extra = connect(tightPort, '127.0.0.1');
      extra.on('error', () => undefined);
      open.push(extra);
      await new Promise((r) => extra.once('close', r));
      // The idle ones are let go within the header time, and the server answers again.
      await sleep(2_500);
      const res = await tight.gql(tight.tokens.agent, '{ about { role } }');
      expect(res).toEqual({ status: 200, body: { data: { about: { role: 'agent' } } } });
    } finally {
      for (const s of open) s.destroy();
      await tight.close();
    }
  }, 30_000);
});
