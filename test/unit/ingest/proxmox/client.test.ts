import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProxmoxClient, ProxmoxApiError } from '../../../../src/ingest/proxmox/client.js';
import { errorResponse, startProxmoxStandin, type ProxmoxStandin } from '../../../support/proxmox-standin.js';

let standin: ProxmoxStandin;
beforeAll(async () => {
  standin = await startProxmoxStandin();
});
afterAll(async () => {
  await standin.close();
});

const client = (over: { token?: string; retries?: number } = {}) =>
  createProxmoxClient({
    baseUrl: standin.url + '/',
    token: over.token ?? standin.token,
    timeoutMs: 300,
    retries: over.retries ?? 2,
    backoffMs: 5,
  });

async function failure(p: Promise<unknown>): Promise<ProxmoxApiError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ProxmoxApiError) return err;
    throw err;
  }
  throw new Error('expected a failure');
}

describe('ProxmoxClient', () => {
  it.each([
    ['a number', { data: [1], total: 12 }, 12],
    ['a numeric string', { data: [1], total: '12' }, 12],
    ['absent', { data: [1] }, null],
    ['not a count', { data: [1], total: 'many' }, null],
  ] as const)("getList answers the data and the envelope's total: %s", async (_name, body, total) => {
    standin.route('GET', '/nodes/pve1/tasks', { body });
    expect(await client().getList('/nodes/pve1/tasks', { limit: 1 })).toEqual({ data: [1], total });
  });

  it('sends the API token, appends /api2/json, encodes the query, and returns the envelope data', async () => {
    standin.route('GET', '/nodes/pve1/tasks', (req) => ({ body: { data: [{ query: req.query.toString() }] } }));
    const data = await client().get('/nodes/pve1/tasks', { source: 'all', since: 1700000000 });
    expect(data).toEqual([{ query: 'source=all&since=1700000000' }]);
    const last = standin.requests.at(-1)!;
    expect(last.authorization).toBe(`PVEAPIToken=${standin.token}`);
  });

  it('401 says to check the token, and is not retried', async () => {
    standin.route('GET', '/version', { body: { data: { version: '8.4.1' } } });
    const before = standin.requests.length;
    const err = await failure(client({ token: 'aitia@pve!x=wrong' }).get('/version'));
    expect(err).toMatchObject({ kind: 'auth', status: 401, path: '/version', attempts: 1 });
    expect(err.message).toBe('GET /version: HTTP 401: authentication failed: check AITIA_PROXMOX_TOKEN');
    expect(standin.requests.length - before).toBe(1);
  });

  it('HTTP 500 keeps the provider message', async () => {
    standin.route(
      'GET',
      '/nodes/pve1/qemu/120/status/current',
      errorResponse(500, "Configuration file 'nodes/pve1/qemu-server/120.conf' does not exist"),
    );
    const err = await failure(client().get('/nodes/pve1/qemu/120/status/current'));
    expect(err).toMatchObject({
      kind: 'http',
      status: 500,
      providerMessage: "Configuration file 'nodes/pve1/qemu-server/120.conf' does not exist",
    });
    expect(err.message).toContain("HTTP 500: Configuration file 'nodes/pve1/qemu-server/120.conf' does not exist");
  });

  it('truncated JSON is a clear malformed error after retries, not a crash', async () => {
    standin.route('GET', '/cluster/resources', { body: { data: [{ id: 'node/pve1', type: 'node' }] } });
    standin.fault('/cluster/resources', { kind: 'truncate' });
    const err = await failure(client().get('/cluster/resources'));
    standin.clearFaults();
    expect(err.kind).toBe('malformed');
    expect(err.message).toMatch(/malformed JSON in the answer/);
    expect(err.attempts).toBe(3);
  });

  it('retries a GET with backoff and succeeds when the fault passes', async () => {
    standin.route('GET', '/cluster/status', { body: { data: [] } });
    standin.fault('/cluster/status', { kind: 'status', status: 596, message: 'Connection timed out' }, { times: 2 });
    expect(await client().get('/cluster/status')).toEqual([]);
  });

  it('times out a hanging call', async () => {
    standin.fault('/cluster/log', { kind: 'hang' });
    const started = Date.now();
    const err = await failure(client({ retries: 0 }).get('/cluster/log'));
    standin.clearFaults();
    expect(err).toMatchObject({ kind: 'timeout', attempts: 1 });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('a connection cut mid-answer is a network error', async () => {
    standin.route('GET', '/cluster/ha/status/current', { body: { data: [{ id: 'quorum', status: 'OK' }] } });
    standin.fault('/cluster/ha/status/current', { kind: 'cut' });
    const err = await failure(client({ retries: 0 }).get('/cluster/ha/status/current'));
    standin.clearFaults();
    expect(err.kind).toBe('network');
  });

  it('never retries a POST', async () => {
    standin.fault('/nodes/pve1/qemu/101/agent/ping', { kind: 'status', status: 596, message: 'Connection timed out' });
    const before = standin.requests.length;
    const err = await failure(client().post('/nodes/pve1/qemu/101/agent/ping'));
    standin.clearFaults();
    expect(err).toMatchObject({ status: 596, attempts: 1, method: 'POST' });
    expect(standin.requests.length - before).toBe(1);
  });

  it('refuses an unreadable CA file at creation, naming the variable', () => {
    expect(() =>
      createProxmoxClient({ baseUrl: 'https://pve1.lan:8006', token: 'a@pve!b=c', caFile: '/nonexistent/ca.pem' }),
    ).toThrow(/AITIA_PROXMOX_CA_FILE \/nonexistent\/ca.pem/);
  });

  it('a refused connection is a network error', async () => {
    const c = createProxmoxClient({ baseUrl: 'http://127.0.0.1:1', token: 'a@pve!b=c', retries: 0, timeoutMs: 500 });
    const err = await failure(c.get('/version'));
    expect(err.kind).toBe('network');
    expect(err.message).toMatch(/ECONNREFUSED/);
  });
});
