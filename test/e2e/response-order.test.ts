import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertResources } from '../../src/graph/resources/upsert.js';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';

const { driver, scope } = useGraph();
let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer(driver);
  await upsertResources(driver, [
    { id: `manual:service/${scope}-o`, kind: 'service', provider: 'manual', name: `${scope}-o`, state: 'up' },
  ]);
});
afterAll(async () => srv?.close());

describe('responses', () => {
  it('list fields in the order the operation asked for them, whichever resolver finishes first', async () => {
    // classifyAction also writes an audit entry, so it finishes after the plain look-ups.
    const q = `{ z: classifyAction(input: {target: "service:${scope}-o", action: "restart"}) { riskClass }
      a: resource(slug: "service:${scope}-o") { id } m: about { role } }`;
    const res = await fetch(`${srv.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${srv.tokens.agent}` },
      body: JSON.stringify({ query: q }),
    });
    const body = JSON.parse(await res.text());
    expect(body.errors).toBeUndefined();
    expect(Object.keys(body.data)).toEqual(['z', 'a', 'm']);
  });
});
