import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';

const { driver } = useGraph();
const lines: Array<Record<string, unknown>> = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    for (const l of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(l));
    done();
  },
});
let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer(driver, { log: pino({ level: 'warn' }, sink) });
});
afterAll(async () => srv?.close());

it('every HTTP 401 is counted in the log (there is no principal to audit)', async () => {
  const refused = () => lines.filter((l) => l.msg === 'request refused: HTTP 401');
  const before = refused().length;
  expect((await srv.gql(null, '{ about { version } }')).status).toBe(401);
  expect((await srv.gql('not-a-token', '{ about { version } }')).status).toBe(401);
  const mcp = await fetch(`${srv.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer nope' },
    body: '{}',
  });
  expect(mcp.status).toBe(401);
  const mine = refused().slice(before);
  expect(mine.map((l) => l.reason)).toEqual(['missing', 'unknown', 'unknown']);
  expect(mine.at(-1)!.refusalsTotal).toBeGreaterThanOrEqual(3);
  expect(JSON.stringify(mine)).not.toContain('not-a-token');
});
