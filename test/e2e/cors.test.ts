import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';

const { driver } = useGraph();
let closed: TestServer;
let listed: TestServer;
beforeAll(async () => {
  closed = await startTestServer(driver);
  listed = await startTestServer(driver, { http: { corsOrigins: ['https://ops.lan'], maxBodyBytes: 4096 } });
});
afterAll(async () => {
  await closed?.close();
  await listed?.close();
});

/** A preflight and a real cross-origin request from `origin`. */
async function crossOrigin(srv: TestServer, origin: string) {
  const preflight = await fetch(`${srv.url}/graphql`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  });
  const real = await fetch(`${srv.url}/graphql`, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json', authorization: `Bearer ${srv.tokens.agent}` },
    body: JSON.stringify({ query: '{ about { version } }' }),
  });
  return { preflight, real };
}

describe('CORS', () => {
  it('allows no origin by default: no Access-Control-Allow-Origin, never credentials', async () => {
    const { preflight, real } = await crossOrigin(closed, 'https://evil.example');
    for (const res of [preflight, real]) {
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  it('AITIA_CORS_ORIGINS allows exactly the listed origins, without credentials', async () => {
    const ok = await crossOrigin(listed, 'https://ops.lan');
    expect(ok.preflight.headers.get('access-control-allow-origin')).toBe('https://ops.lan');
    expect(ok.real.headers.get('access-control-allow-origin')).toBe('https://ops.lan');
    expect(ok.real.headers.get('access-control-allow-credentials')).toBeNull();
    const other = await crossOrigin(listed, 'https://evil.example');
    expect(other.real.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('AITIA_MAX_BODY_BYTES sets the body limit, on /mcp too', async () => {
    for (const path of ['/graphql', '/mcp']) {
      const res = await fetch(`${listed.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${listed.tokens.agent}` },
        body: JSON.stringify({ query: `{ about { version } } #${'x'.repeat(5000)}` }),
      });
      expect(res.status).toBe(413);
      expect((await res.json()).errors[0].extensions).toEqual({ code: 'PAYLOAD_TOO_LARGE', limitBytes: 4096 });
    }
  });
});
