import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFixture } from '../support/fixtures.js';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';

const { driver, scope } = useGraph();
const server = `vc-${scope}`;
const SECRET = `push-secret-${scope}-0123456789`;
const event = readFixture('vcenter/veba-verbatim/kn-go-echo_testdata_cloudevent.json');
const body = JSON.stringify(event);
const sign = (text: string, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(text).digest('hex')}`;

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer(driver, {
    tokenPrefix: scope,
    pushSources: new Map([[`vc01-${scope}`, { server, secret: SECRET }]]),
  });
});
afterAll(async () => {
  await api.close();
});

async function push(headers: Record<string, string>, text = body, source = `vc01-${scope}`) {
  const res = await fetch(`${api.url}/events/cloudevents?source=${source}`, {
    method: 'POST',
    headers: { 'content-type': 'application/cloudevents+json', ...headers },
    body: text,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function stored(): Promise<string[]> {
  const { records } = await driver.executeQuery(
    'MATCH (e:Event) WHERE e.id STARTS WITH $prefix RETURN e.id + " " + e.type + " " + e.actor AS e ORDER BY e',
    { prefix: `vcenter:${server}/event/` },
  );
  return records.map((r) => r.get('e') as string);
}

describe('POST /events/cloudevents', () => {
  it('unsigned, wrongly signed or signed for another source: 401, nothing stored', async () => {
    expect((await push({})).status).toBe(401);
    expect((await push({ 'x-aitia-signature': sign(body, 'another-secret-0123456789') })).status).toBe(401);
    // Signed, then changed on the way.
    expect((await push({ 'x-aitia-signature': sign(body) }, body.replace('{', '{ '))).status).toBe(401);
    expect((await push({ 'x-aitia-signature': sign(body) }, body, 'unknown-source')).status).toBe(401);
    expect(await stored()).toEqual([]);
  });

  it('a signed CloudEvent is stored once; its replay changes nothing', async () => {
    const first = await push({ 'x-aitia-signature': sign(body) });
    expect(first).toMatchObject({ status: 200, body: { received: 1, created: 1 } });
    const replay = await push({ 'x-aitia-signature': sign(body) });
    expect(replay).toMatchObject({ status: 200, body: { received: 1, created: 0, updated: 0 } });
    expect(await stored()).toEqual([`vcenter:${server}/event/9902 vm_stop VSPHERE.LOCAL\\Administrator`]);
  });

  it('an ingester token may push too (binary mode); an agent token may not', async () => {
    const data = JSON.stringify({ ...(event as { data: Record<string, unknown> }).data, Key: 9904 });
    const binary = {
      'content-type': 'application/json',
      'ce-id': `b-${scope}`,
      'ce-type': 'x',
      'ce-specversion': '1.0',
      'ce-subject': 'VmPoweredOffEvent',
    };
    const agent = await push({ ...binary, authorization: `Bearer ${api.tokens.agent}` }, data);
    expect(agent.status).toBe(403);
    const ok = await push({ ...binary, authorization: `Bearer ${api.tokens.ingester}` }, data);
    expect(ok).toMatchObject({ status: 200, body: { created: 1 } });
    expect(await stored()).toHaveLength(2);
  });
});
