import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATEST_MIGRATION } from '../../src/graph/db/migrations.js';
import { createDriver } from '../../src/graph/db/driver.js';
import { freePort } from '../../src/graph/embedded/ports.js';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';

const { driver } = useGraph();
let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer(driver);
});
afterAll(async () => srv?.close());

describe('HTTP endpoints', () => {
  it('/healthz says the process is alive, without a token', async () => {
    const res = await fetch(`${srv.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it("/readyz says Neo4j answers and the schema is at the code's migration", async () => {
    const res = await fetch(`${srv.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: 'ready',
      neo4j: 'reachable',
      migration: LATEST_MIGRATION,
      expected: LATEST_MIGRATION,
    });
  });

  it("GraphiQL's page loads without a token and points at our own assets; operations need one", async () => {
    const page = await fetch(`${srv.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('/graphql/assets/yoga-graphiql.umd.js');
    expect(html).not.toContain('unpkg.com');
    const asset = await fetch(`${srv.url}/graphql/assets/yoga-graphiql.umd.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect((await fetch(`${srv.url}/graphql/assets/../../package.json`)).status).toBe(404);
    expect((await fetch(`${srv.url}/graphql?query=%7B__typename%7D`)).status).toBe(401);
  });

  it('the page opens on an aitia query; the header placeholder it ships is answered with what to do', async () => {
    const html = await (await fetch(`${srv.url}/graphql`, { headers: { accept: 'text/html' } })).text();
    expect(html).toContain('about { version principal role policyDigest }');
    const res = await fetch(`${srv.url}/graphql?query=%7B__typename%7D`, {
      headers: { authorization: 'Bearer <token>' },
    });
    expect(res.status).toBe(401);
    expect((await res.json()).errors[0]).toMatchObject({
      message: expect.stringContaining('put your bearer token there'),
      extensions: { code: 'UNAUTHENTICATED' },
    });
  });

  it('/readyz answers 503 when Neo4j cannot be reached', async () => {
    const dead = createDriver({ uri: `bolt://127.0.0.1:${await freePort()}` });
    const down = await startTestServer(dead);
    try {
      const res = await fetch(`${down.url}/readyz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ status: 'not ready', neo4j: 'unreachable' });
    } finally {
      await down.close();
      await dead.close();
    }
  });

  it('anything else is a 404 naming the endpoints', async () => {
    const res = await fetch(`${srv.url}/nope`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: 'not found',
      endpoints: [
        '/console',
        '/graphql',
        '/mcp',
        '/events/cloudevents',
        '/integrations/alertmanager',
        '/healthz',
        '/readyz',
      ],
    });
  });
});
