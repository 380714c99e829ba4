import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDriver } from '../../src/graph/db/driver.js';
import { freePort } from '../../src/graph/embedded/ports.js';
import { createLogger } from '../../src/log.js';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * Issue 30 item 4: every answer carries nosniff, no framing and no referrer; GraphiQL's page and
 * assets a CSP that runs no inline script; the others a CSP that loads nothing. /readyz says only
 * fixed words, never what the driver said.
 */
const { driver } = useGraph();
let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer(driver);
});
afterAll(async () => srv?.close());

function expectHardened(res: Response, what: string): string {
  expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
  expect(res.headers.get('x-frame-options'), what).toBe('DENY');
  expect(res.headers.get('referrer-policy'), what).toBe('no-referrer');
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp, what).toContain("frame-ancestors 'none'");
  expect(csp, what).not.toContain('unsafe-eval');
  const script = /(?:^|;\s*)script-src ([^;]*)/.exec(csp)?.[1] ?? /(?:^|;\s*)default-src ([^;]*)/.exec(csp)?.[1];
  expect(script, `${what}: ${csp}`).toBeDefined();
  expect(script, what).not.toMatch(/unsafe-inline|\*|https?:|data:|blob:/);
  return csp;
}

describe('security headers on every answer', () => {
  it("GraphiQL's page: script-src 'self' and no inline script in it; its assets and boot script too", async () => {
    const page = await fetch(`${srv.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const csp = expectHardened(page, 'page');
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    const html = await page.text();
    for (const [, attrs, body] of html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g))
      if (!attrs!.includes('type=application/json'))
        expect([attrs, body]).toEqual([expect.stringMatching(/ src=/), '']);
    const sources = [...html.matchAll(/<script[^>]* src="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources).toContain('/graphql/assets/aitia-graphiql-boot.js');
    for (const src of [...sources, '/graphql/assets/graphiql.css', '/graphql/assets/nope.js']) {
      const res = await fetch(`${srv.url}${src}`);
      expectHardened(res, src);
      await res.arrayBuffer();
    }
  });

  it('every data answer, refused or not: /graphql, /mcp, CloudEvents, /healthz, /readyz, 404, 413', async () => {
    const answers: [string, Promise<Response>][] = [
      [
        'graphql ok',
        fetch(`${srv.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${srv.tokens.agent}` },
          body: JSON.stringify({ query: '{ about { role } }' }),
        }),
      ],
      ['graphql 401', fetch(`${srv.url}/graphql?query=%7B__typename%7D`)],
      [
        'graphql 413',
        fetch(`${srv.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: 'x'.repeat(2 * 1024 * 1024),
        }),
      ],
      ['mcp 401', fetch(`${srv.url}/mcp`, { method: 'POST', body: '{}' })],
      ['cloudevents 401', fetch(`${srv.url}/events/cloudevents?source=x`, { method: 'POST', body: '{}' })],
      ['healthz', fetch(`${srv.url}/healthz`)],
      ['readyz', fetch(`${srv.url}/readyz`)],
      ['404', fetch(`${srv.url}/nope`)],
    ];
    for (const [what, pending] of answers) {
      const res = await pending.catch((err: unknown) => {
        throw new Error(`${what}: ${String(err)}`);
      });
      const csp = expectHardened(res, what);
      expect(csp, what).toContain("default-src 'none'");
      await res.arrayBuffer();
    }
  });
});

describe('/readyz', () => {
  it("answers fixed words when Neo4j cannot be reached, never the driver's error (it is logged)", async () => {
    const lines: string[] = [];
    const log = createLogger('warn');
    const logged = Object.assign(Object.create(log) as typeof log, {
      warn: (obj: unknown, msg?: string) =>
        lines.push(`${msg ?? ''} ${JSON.stringify(obj, (_k, v: unknown) => (v instanceof Error ? v.message : v))}`),
    });
    const deadPort = await freePort();
    const dead = createDriver({ uri: `bolt://127.0.0.1:${deadPort}` });
    const down = await startTestServer(dead, { log: logged });
    try {
      const res = await fetch(`${down.url}/readyz`);
      expect(res.status).toBe(503);
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({ status: 'not ready', neo4j: 'unreachable' });
      expect(text).not.toContain(String(deadPort));
      expect(lines.join('\n')).toContain('readiness');
    } finally {
      await down.close();
      await dead.close();
    }
  });
});
