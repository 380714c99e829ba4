import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';

/* /mcp checks Origin as the MCP transport asks (DNS rebinding); GraphQL's CORS is cors.test.ts. */

const { driver } = useGraph();
let srv: TestServer;
let port: number;
beforeAll(async () => {
  srv = await startTestServer(driver, { http: { corsOrigins: ['https://ops.lan'] } });
  port = Number(new URL(srv.url).port);
}, 120_000);
afterAll(async () => {
  await srv?.close();
});

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'origin', version: '1' } },
});

/** POSTs an initialize to /mcp with these headers (Host too, which fetch cannot set). */
function post(headers: Record<string, string>): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST' }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => {
        const json = text.startsWith('{') ? JSON.parse(text) : text;
        resolve({ status: res.statusCode ?? 0, body: json });
      });
    });
    req.on('error', reject);
    for (const [k, v] of Object.entries({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    }))
      req.setHeader(k, v);
    req.end(initialize);
  });
}

describe('/mcp checks Origin', () => {
  const agent = () => ({ authorization: `Bearer ${srv.tokens.agent}` });

  it.each([
    ['no Origin (an agent, a CLI)', () => ({})],
    ['a listed origin', () => ({ origin: 'https://ops.lan' })],
    ['its own origin on 127.0.0.1', () => ({ origin: `http://127.0.0.1:${port}` })],
    ['its own origin as localhost', () => ({ origin: `http://localhost:${port}`, host: `localhost:${port}` })],
  ])('answers %s', async (_name, headers) => {
    const { status, body } = await post({ ...agent(), ...headers() });
    expect(status).toBe(200);
    expect(JSON.stringify(body)).toContain('serverInfo');
  });

  it.each([
    ['another site', () => ({ origin: 'https://evil.example' })],
    ['a rebound name', () => ({ origin: `http://evil.example:${port}`, host: `evil.example:${port}` })],
    ['loopback on another port', () => ({ origin: `http://127.0.0.1:${port + 1}` })],
    ['the opaque origin null', () => ({ origin: 'null' })],
  ])('refuses %s with 403 and a JSON-RPC error, before the token is looked at', async (_name, headers) => {
    for (const auth of [agent(), {}]) {
      const { status, body } = await post({ ...auth, ...headers() });
      expect(status).toBe(403);
      expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, data: { code: 'FORBIDDEN' } } });
      expect(body.error.message).toMatch(/Origin .* (may not call \/mcp|is not an http)/);
    }
  });
});
