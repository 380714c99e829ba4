import { createHmac } from 'node:crypto';
import { connect } from 'node:net';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPush } from '../../src/server/cloudevents-signature.js';
import { readFixture } from '../support/fixtures.js';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';

const { driver, scope } = useGraph();
const server = `vc-${scope}`;
const SOURCE = `vc01-${scope}`;
const OTHER = `vc02-${scope}`;
const TWIN = `vc03-${scope}`;
const BARE = `vc04-${scope}`;
const SECRET = `push-secret-${scope}-0123456789`;
const OTHER_SECRET = `other-secret-${scope}-0123456789`;
const event = readFixture('vcenter/veba-verbatim/kn-go-echo_testdata_cloudevent.json') as Record<string, unknown>;
const STRUCTURED = 'application/cloudevents+json';
const withKey = (key: number) =>
  JSON.stringify({ ...event, id: `${event.id as string}-${key}`, data: { ...(event.data as object), Key: key } });

const nowSeconds = () => Math.floor(DateTime.utc().toSeconds());

/** Signature headers for `body` and `headers`, signed as `source` with `secret` at `timestamp`. */
function signed(
  body: string,
  headers: Record<string, string>,
  opts: { source?: string; secret?: string; timestamp?: number } = {},
): Record<string, string> {
  const timestamp = String(opts.timestamp ?? nowSeconds());
  const signature = signPush(opts.secret ?? SECRET, {
    timestamp,
    source: opts.source ?? SOURCE,
    headers: Object.entries(headers),
    body,
  });
  return { ...headers, 'x-aitia-timestamp': timestamp, 'x-aitia-signature': signature };
}

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer(driver, {
    tokenPrefix: scope,
    pushSources: new Map([
      [SOURCE, { server, secret: SECRET }],
      [OTHER, { server, secret: OTHER_SECRET }],
      // Shares the secret of SOURCE: the source name in the signature still tells them apart.
      [TWIN, { server, secret: SECRET }],
      [BARE, { server, secret: null }],
    ]),
    http: { maxBodyBytes: 64 * 1024 },
  });
});
afterAll(async () => {
  await api.close();
});

async function push(headers: Record<string, string>, text: string, source = SOURCE) {
  const res = await fetch(`${api.url}/events/cloudevents?source=${source}`, { method: 'POST', headers, body: text });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function stored(): Promise<string[]> {
  const { records } = await driver.executeQuery(
    'MATCH (e:Event) WHERE e.id STARTS WITH $prefix RETURN e.id + " " + e.type + " " + coalesce(e.actor, "-") AS e ORDER BY e',
    { prefix: `vcenter:${server}/event/` },
  );
  return records.map((r) => r.get('e') as string);
}

/** The service still answers an authenticated query, within a second. */
async function stillServing(): Promise<void> {
  const started = Date.now();
  const res = await api.gql(api.tokens.operator, '{ __typename }');
  expect(res).toMatchObject({ status: 200, body: { data: { __typename: 'Query' } } });
  expect(Date.now() - started).toBeLessThan(1000);
}

describe('POST /events/cloudevents: who may push', () => {
  const body = withKey(9901);
  const ct = { 'content-type': STRUCTURED };

  it('unsigned, wrongly signed or changed on the way: 401, nothing stored', async () => {
    expect((await push(ct, body)).status).toBe(401);
    expect((await push(signed(body, ct, { secret: 'another-secret-0123456789' }), body)).status).toBe(401);
    expect((await push(signed(body, ct), body.replace('{', '{ '))).status).toBe(401);
    expect(await stored()).toEqual([]);
  });

  it("signed for another source: 401 — with that source's own secret, or one the two share", async () => {
    // OTHER's secret and name, sent to SOURCE.
    const forOther = await push(signed(body, ct, { source: OTHER, secret: OTHER_SECRET }), body, SOURCE);
    expect(forOther).toMatchObject({ status: 401, body: { error: expect.stringMatching(/does not match/) } });
    // SOURCE's signature (its name in the base string) sent to TWIN, which has the same secret.
    expect((await push(signed(body, ct), body, TWIN)).status).toBe(401);
    // And the other way: signed as TWIN, sent to SOURCE.
    expect((await push(signed(body, ct, { source: TWIN }), body, SOURCE)).status).toBe(401);
    expect(await stored()).toEqual([]);
  });

  it('an unknown source, or one without a secret, fails closed: 401 and the same answer', async () => {
    const unknown = await push(signed(body, ct, { source: `nope-${scope}` }), body, `nope-${scope}`);
    const bare = await push(signed(body, ct, { source: BARE }), body, BARE);
    expect(unknown.status).toBe(401);
    expect(bare).toEqual(unknown);
    expect(await stored()).toEqual([]);
  });

  it('the old body-only sha256= signature is refused, pointing at v0', async () => {
    const old = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    const res = await push({ ...ct, 'x-aitia-signature': old }, body);
    expect(res).toMatchObject({ status: 401, body: { error: expect.stringMatching(/no longer accepted.*v0/) } });
    expect(await stored()).toEqual([]);
  });

  it('a timestamp more than 5 minutes off the server clock: 401 naming it', async () => {
    for (const timestamp of [nowSeconds() - 301, nowSeconds() + 360]) {
      const res = await push(signed(body, ct, { timestamp }), body);
      expect(res).toMatchObject({ status: 401, body: { error: expect.stringMatching(/^X-Aitia-Timestamp: .*300 s/) } });
    }
    expect(await stored()).toEqual([]);
  });
});

describe('POST /events/cloudevents: what is stored', () => {
  it('a signed CloudEvent is stored once; its replay is refused (409) and changes nothing', async () => {
    const body = withKey(9902);
    const headers = signed(body, { 'content-type': STRUCTURED });
    const first = await push(headers, body);
    expect(first).toMatchObject({ status: 200, body: { received: 1, created: 1 } });
    const replay = await push(headers, body);
    expect(replay).toMatchObject({ status: 409, body: { code: 'REPLAYED', error: expect.stringMatching(/9902/) } });
    // Re-signed later by whoever holds the secret: the same event id, still a replay within the window.
    const resigned = await push(signed(body, { 'content-type': STRUCTURED }, { timestamp: nowSeconds() + 1 }), body);
    expect(resigned.status).toBe(409);
    expect(await stored()).toEqual([`vcenter:${server}/event/9902 vm_stop VSPHERE.LOCAL\\Administrator`]);
  });

  it('concurrent signed pushes of one key with other content: one stored, the others answered with a conflict', async () => {
    const key = 9906;
    const bodies = Array.from({ length: 12 }, (_, i) =>
      JSON.stringify({
        ...event,
        id: `${event.id as string}-${key}-${i}`,
        data: { ...(event.data as object), Key: key, UserName: `VSPHERE.LOCAL\\user${i}` },
      }),
    );
    const answers = await Promise.all(bodies.map((b) => push(signed(b, { 'content-type': STRUCTURED }), b)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const created = answers.flatMap((a, i) => (a.body.created === 1 ? [i] : []));
    expect(created).toHaveLength(1);
    const refused = answers.filter((a) => (a.body.conflicts as unknown[]).length === 1 && a.body.written === 0);
    expect(refused).toHaveLength(bodies.length - 1);
    expect((await stored()).filter((e) => e.includes(`/event/${key} `))).toEqual([
      `vcenter:${server}/event/${key} vm_stop VSPHERE.LOCAL\\user${created[0]}`,
    ]);
  });

  it('binary mode: the ce-* headers are signed, a relabelled one is refused', async () => {
    const data = JSON.stringify({ ...(event.data as Record<string, unknown>), Key: 9903 });
    const binary = {
      'content-type': 'application/json',
      'ce-id': `bin-${scope}`,
      'ce-type': 'com.vmware.event.router/event',
      'ce-specversion': '1.0',
      'ce-subject': 'VmPoweredOffEvent',
    };
    const headers = signed(data, binary);
    for (const [name, value] of [
      ['ce-subject', 'VmPoweredOnEvent'],
      ['ce-type', 'com.vmware.vsphere.VmPoweredOnEvent.v0'],
      ['ce-id', `bin2-${scope}`],
      ['content-type', STRUCTURED],
    ] as const) {
      expect((await push({ ...headers, [name]: value }, data)).status, name).toBe(401);
    }
    expect((await push({ ...headers, 'ce-source': 'https://elsewhere/sdk' }, data)).status).toBe(401);
    expect(await stored()).not.toContain(expect.stringContaining('/event/9903'));
    expect(await push(headers, data)).toMatchObject({ status: 200, body: { created: 1 } });
    expect(await stored()).toContain(`vcenter:${server}/event/9903 vm_stop VSPHERE.LOCAL\\Administrator`);
  });

  it('an ingester token may push too (binary mode); an agent token may not', async () => {
    const data = JSON.stringify({ ...(event.data as Record<string, unknown>), Key: 9904 });
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
    expect(await stored()).toContain(`vcenter:${server}/event/9904 vm_stop VSPHERE.LOCAL\\Administrator`);
  });
});

/** Writes `chunks` to a raw socket (a pause between them), then closes it; resolves with what came back. */
function raw(chunks: Array<string | Buffer>, opts: { pauseMs?: number; end?: 'close' | 'destroy' | 'wait' } = {}) {
  const { port } = new URL(api.url);
  return new Promise<string>((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => (answer += d.toString('latin1')));
    socket.on('error', () => resolve(answer));
    socket.on('close', () => resolve(answer));
    socket.on('connect', async () => {
      for (const c of chunks) {
        if (socket.destroyed) break;
        socket.write(c);
        await new Promise((r) => setTimeout(r, opts.pauseMs ?? 5));
      }
      if (opts.end === 'destroy') socket.destroy();
      else if (opts.end !== 'wait') socket.end();
      // 'wait': the server closes it after its answer (Connection: close).
      setTimeout(() => socket.destroy(), opts.end === 'wait' ? 30_000 : 2000);
    });
  });
}

describe('POST /events/cloudevents: a client cannot take the service down', () => {
  const target = () => `/events/cloudevents?source=${SOURCE}`;
  const head = (extra: string) => `POST ${target()} HTTP/1.1\r\nHost: x\r\ncontent-type: ${STRUCTURED}\r\n${extra}\r\n`;

  it.each([
    ['a cut-off body, then the socket closed', [head('Content-Length: 1000\r\n'), 'abcdef'], 'close'],
    ['a cut-off body, then the socket reset', [head('Content-Length: 1000\r\n'), '{"id":'], 'destroy'],
    ['a chunked body cut off mid-chunk', [head('Transfer-Encoding: chunked\r\n'), 'ff\r\n{"a":1'], 'close'],
    ['a broken chunk size', [head('Transfer-Encoding: chunked\r\n'), 'zz\r\nabc\r\n0\r\n\r\n'], 'close'],
    [
      'a chunked body over the limit, then gone',
      [head('Transfer-Encoding: chunked\r\n'), `10000\r\n${'x'.repeat(65_536)}\r\n`, '10000\r\nxx'],
      'destroy',
    ],
    ['a declared body over the limit', [head('Content-Length: 99999999\r\n'), 'x'.repeat(1000)], 'close'],
    [
      'garbage in place of a body',
      [head('Content-Length: 8\r\n'), Buffer.from([0, 255, 254, 10, 13, 0, 1, 2])],
      'close',
    ],
    [
      'a signed head and a cut-off body',
      [
        head(`x-aitia-timestamp: ${nowSeconds()}\r\nx-aitia-signature: v0=${'0'.repeat(64)}\r\nContent-Length: 50\r\n`),
        '{',
      ],
      'destroy',
    ],
    [
      'a bad request target',
      ['POST /events/cloudevents?source=%zz%%% HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}'],
      'close',
    ],
  ] as const)('%s: the service keeps answering', async (_what, chunks, end) => {
    await raw([...chunks], { end });
    await stillServing();
  });

  it('a trickled body is read and answered, and others are served meanwhile', async () => {
    const body = withKey(9905);
    const headers = signed(body, { 'content-type': STRUCTURED });
    const lines = Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    const bytes = Buffer.from(body);
    const pieces = Array.from({ length: 10 }, (_, i) =>
      bytes.subarray((i * bytes.length) / 10, ((i + 1) * bytes.length) / 10),
    );
    const trickle = raw(
      [
        `POST ${target()} HTTP/1.1\r\nHost: x\r\n${lines}Content-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`,
        ...pieces,
      ],
      { pauseMs: 50, end: 'wait' },
    );
    await stillServing();
    expect(await trickle).toMatch(/^HTTP\/1\.1 200 /);
    expect(await stored()).toContain(`vcenter:${server}/event/9905 vm_stop VSPHERE.LOCAL\\Administrator`);
  });

  it('many clients that go away mid-body at once: the service keeps answering', async () => {
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        raw([head('Content-Length: 5000\r\n'), `{"n":${i}`], { end: i % 2 ? 'close' : 'destroy' }),
      ),
    );
    await stillServing();
  });
});
