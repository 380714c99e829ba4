import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GraphHandle, openGraph } from '../../src/graph/driver.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * Issue 17 item 2: Neo4j outages are short and typed. A server on its own supervised embedded
 * Neo4j (killing it disturbs no other test) takes a stream of reads and acknowledged writes while
 * its Neo4j is SIGKILLed, then frozen (SIGSTOP): every call answers within 6 s, each failure as
 * HTTP 503 + Retry-After + `UNAVAILABLE`; the supervisor restarts Neo4j on its own, calls succeed
 * again without restarting the service, and every acknowledged write is in the graph.
 */
const BOUND_MS = 6000;
/** A restart of the embedded Neo4j takes ~10 s on an idle machine, over a minute on a loaded one. */
const RECOVERY_MS = 150_000;
const home = mkdtempSync(join(tmpdir(), 'aitia-outage-'));
const logs: string[] = [];
const T0 = Date.now();
/** When the supervisor had Neo4j back (ms since T0): the outage is over. */
let restartedAt: number | undefined;
let graph: GraphHandle;
let srv: TestServer;
let mcp: Client;
let seq = 0;
const acked: string[] = [];

interface Call {
  kind: 'read' | 'write';
  /** When it started, ms since the test began. */
  at: number;
  ms: number;
  status: number;
  code: string | null;
  retryAfter: string | null;
}

const DECLARE = `mutation($input: DeclareResourceInput!) { declareResource(input: $input) { resource { id } } }`;

/**
 * POSTs on a fresh connection (no keep-alive): a pooled socket that the server closes as idle while
 * the client reuses it resets the call, a race of the test's client, not an answer of the service.
 */
function post(
  url: string,
  token: string,
  body: string,
): Promise<{ status: number; retryAfter: string | null; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, connection: 'close' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          const retry = res.headers['retry-after'];
          resolve({ status: res.statusCode ?? 0, retryAfter: typeof retry === 'string' ? retry : null, text });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** One GraphQL call, timed; a write that answers 200 without errors is acknowledged. */
async function call(kind: 'read' | 'write'): Promise<Call> {
  const name = `outage-w${seq++}`;
  const [query, variables] =
    kind === 'write'
      ? [DECLARE, { input: { kind: 'service', name, evidence: 'outage test: a write to acknowledge' } }]
      : ['{ resource(slug: "service:outage-w0") { id name } }', {}];
  const started = Date.now();
  const at = started - T0;
  const res = await post(`${srv.url}/graphql`, srv.tokens.agent, JSON.stringify({ query, variables }));
  const body = JSON.parse(res.text) as { data?: any; errors?: Array<{ extensions?: { code?: string } }> };
  const ms = Date.now() - started;
  if (kind === 'write' && res.status === 200 && !body.errors) acked.push(body.data.declareResource.resource.id);
  return {
    kind,
    at,
    ms,
    status: res.status,
    code: body.errors?.[0]?.extensions?.code ?? null,
    retryAfter: res.retryAfter,
  };
}

/** Calls every `everyMs` (not waiting for each other, as concurrent agents would) until `until()` holds. */
async function stream(everyMs: number, until: () => boolean, maxMs: number): Promise<Call[]> {
  const calls: Array<Promise<Call>> = [];
  const started = Date.now();
  for (let i = 0; !until() && Date.now() - started < maxMs; i++) {
    calls.push(call(i % 2 === 0 ? 'write' : 'read'));
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return Promise.all(calls);
}

/** Every answer is ok or a typed UNAVAILABLE with 503 and Retry-After. */
function expectTyped(calls: Call[]): void {
  for (const c of calls) {
    if (c.status === 200 && c.code === null) continue;
    expect(c, JSON.stringify(c)).toMatchObject({ status: 503, code: 'UNAVAILABLE', retryAfter: '5' });
  }
}

/** …and answered within the bound. */
function expectTypedAndBounded(calls: Call[]): void {
  for (const c of calls) expect(c.ms, JSON.stringify(c)).toBeLessThan(BOUND_MS);
  expectTyped(calls);
}

const readyz = async () => (await fetch(`${srv.url}/readyz`)).status;
const okNow = async () => {
  const c = await call('write');
  return c.status === 200 && c.code === null;
};

beforeAll(async () => {
  graph = await openGraph({ external: undefined, dataDir: join(home, 'data') }, (msg) => {
    logs.push(`${Date.now() - T0} ms ${msg}`);
    if (/embedded Neo4j restarted/.test(msg)) restartedAt ??= Date.now() - T0;
  });
  srv = await startTestServer(graph.driver, { tokenPrefix: 'outage' });
  mcp = new Client({ name: 'aitia-outage', version: '1.0.0' });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${srv.tokens.agent}` } },
    }),
  );
  for (let i = 0; i < 3; i++) expect(await call('write')).toMatchObject({ status: 200, code: null });
}, 180_000);

afterAll(async () => {
  await mcp?.close();
  await srv?.close();
  await graph?.close();
  rmSync(home, { recursive: true, force: true });
}, 60_000);

describe('a Neo4j outage is short and typed', () => {
  it('SIGKILL mid-stream: typed UNAVAILABLE (reads within 6 s), Neo4j restarted by its supervisor, no restart of the service, no acknowledged write lost', async () => {
    const pid = graph.embedded!.pid!;
    let recovered = false;
    const calls = stream(250, () => recovered, RECOVERY_MS);
    await new Promise((r) => setTimeout(r, 1000));
    process.kill(pid, 'SIGKILL');
    const killedAt = Date.now() - T0;
    logs.push(`${killedAt} ms SIGKILL`);
    const outageStarted = Date.now();
    await new Promise((r) => setTimeout(r, 500));
    const readyDuring = await readyz();
    const mcpStarted = Date.now();
    const mcpAnswer = await mcp.callTool({ name: 'resource_get', arguments: { id: 'service:outage-w0' } });
    const mcpMs = Date.now() - mcpStarted;
    while (!recovered && Date.now() - outageStarted < RECOVERY_MS) {
      await new Promise((r) => setTimeout(r, 1000));
      recovered = graph.embedded!.restarts > 0 && (await okNow());
    }
    const done = await calls;
    const outageMs = Date.now() - outageStarted;

    expect(recovered, logs.join('\n')).toBe(true);
    // Every read answered while Neo4j was down answers within the bound, every answer is ok or a
    // typed UNAVAILABLE. Not claimed yet (issue 17 stays open): the bound for a write of several
    // statements (measured up to ~9.5 s after a SIGKILL: each statement waits out its own pool
    // timeout) and for calls that meet the cold restarted Neo4j; a whole-request budget is to build.
    const during = done.filter((c) => c.at + c.ms < restartedAt!);
    const after = done.filter((c) => c.at + c.ms >= restartedAt!);
    expectTypedAndBounded(during.filter((c) => c.kind === 'read'));
    expectTyped(during);
    expectTyped(after);
    const failed = during.filter((c) => c.code === 'UNAVAILABLE');
    expect(failed.length, 'calls answered UNAVAILABLE during the outage').toBeGreaterThan(3);
    expect(readyDuring).toBe(503);
    expect(mcpMs).toBeLessThan(BOUND_MS);
    expect(mcpAnswer).toMatchObject({ isError: true, structuredContent: { error: { code: 'UNAVAILABLE' } } });
    expect(graph.embedded!.restarts).toBe(1);
    expect(graph.embedded!.pid).not.toBe(pid);
    expect(logs.some((l) => /embedded Neo4j exited unexpectedly \(signal SIGKILL/.test(l))).toBe(true);
    expect(logs.some((l) => /embedded Neo4j restarted/.test(l))).toBe(true);
    expect(await readyz()).toBe(200);
    const { records } = await graph.driver.executeQuery('MATCH (r:Resource) WHERE r.id IN $ids RETURN count(r) AS n', {
      ids: acked,
    });
    expect(records[0]!.get('n').toNumber()).toBe(acked.length);
    const slowest = (cs: Call[]) => Math.max(0, ...cs.map((c) => c.ms));
    console.log(
      `[outage] SIGKILL: ${during.length} calls during the outage, ${failed.length} UNAVAILABLE, slowest read ${slowest(during.filter((c) => c.kind === 'read'))} ms, slowest write ${slowest(during.filter((c) => c.kind === 'write'))} ms; ` +
        `Neo4j restarted after ${((restartedAt! - killedAt) / 1000).toFixed(1)} s, first ok write ${(outageMs / 1000).toFixed(1)} s after the kill; ` +
        `${after.length} calls while it warmed up (slowest ${slowest(after)} ms, ${after.filter((c) => c.code).length} UNAVAILABLE); ` +
        `MCP ${mcpMs} ms; ${acked.length} acknowledged writes, all present`,
    );
  }, 200_000);

  it('SIGSTOP (frozen, sockets open): typed UNAVAILABLE within 6 s; calls succeed again once it resumes', async () => {
    const pid = graph.embedded!.pid!;
    process.kill(pid, 'SIGSTOP');
    let done: Call[];
    try {
      done = await stream(300, () => false, 7000);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    expectTypedAndBounded(done);
    const failed = done.filter((c) => c.code === 'UNAVAILABLE');
    expect(failed.length).toBeGreaterThan(3);
    await expect.poll(okNow, { timeout: 30_000, interval: 1000 }).toBe(true);
    expect(graph.embedded!.restarts).toBe(1);
    const { records } = await graph.driver.executeQuery('MATCH (r:Resource) WHERE r.id IN $ids RETURN count(r) AS n', {
      ids: acked,
    });
    expect(records[0]!.get('n').toNumber()).toBe(acked.length);
    console.log(
      `[outage] SIGSTOP: ${done.length} calls, ${failed.length} UNAVAILABLE, slowest ${Math.max(...done.map((c) => c.ms))} ms`,
    );
  }, 90_000);
});
