import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertmanagerError, createAlertmanagerClient } from '../../../src/integrations/alertmanager/client.js';
import { alertmanagerOrSkip, type RunningAlertmanager, startAlertmanager } from '../../support/alertmanager.js';

/**
 * The API v2 client against the real Alertmanager: create, list by matcher and creator, expire
 * (twice is fine); a silence Alertmanager refuses is `refused` (not retried), one it cannot be
 * reached for is `unreachable`. Credentials go out as configured (seen by a listener standing in
 * for a proxy that checks them, since Alertmanager itself has none).
 */
const bin = alertmanagerOrSkip();
let am: RunningAlertmanager;
const noAuth = { basicAuth: null, bearerToken: null, timeoutMs: 2_000 };

beforeAll(async () => {
  if (bin) am = await startAlertmanager(bin);
}, 60_000);
afterAll(async () => {
  await am?.close();
});

const silence = (value: string, createdBy = 'aitia') => ({
  matchers: [{ name: 'instance', value, isRegex: false, isEqual: true }],
  startsAt: new Date().toISOString(),
  endsAt: new Date(Date.now() + 600_000).toISOString(),
  createdBy,
  comment: `test ${value}`,
});

describe.skipIf(!bin)('the Alertmanager client (real Alertmanager)', () => {
  it('creates, lists by matcher and creator, and expires', async () => {
    const client = createAlertmanagerClient({ url: am.url, ...noAuth });
    const mine = await client.createSilence(silence('a1'));
    await client.createSilence(silence('a1', 'bob'));
    await client.createSilence(silence('a2'));
    const listed = await client.listSilences({ createdBy: 'aitia', filter: ['instance="a1"'] });
    expect(listed.map((s) => [s.id, s.createdBy, s.status.state])).toEqual([[mine, 'aitia', 'active']]);
    expect((await client.listSilences({ filter: ['instance="a1"'] })).length).toBe(2);
    await client.expireSilence(mine);
    expect((await client.listSilences({ createdBy: 'aitia', filter: ['instance="a1"'] }))[0]!.status.state).toBe(
      'expired',
    );
    client.close();
  });

  it('a silence Alertmanager refuses is refused, not retryable; one it cannot reach is unreachable', async () => {
    const client = createAlertmanagerClient({ url: am.url, ...noAuth });
    const refused = await client.createSilence({ ...silence('x'), matchers: [] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AlertmanagerError);
    expect(refused).toMatchObject({ kind: 'refused', status: 422, retryable: false });
    client.close();
    const away = createAlertmanagerClient({ url: 'http://127.0.0.1:1', ...noAuth });
    const err = await away.listSilences().catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'unreachable', retryable: true });
    expect((err as Error).message).toMatch(/Alertmanager GET \/api\/v2\/silences/);
    away.close();
  });

  describe('credentials', () => {
    let server: Server;
    let seen: IncomingHttpHeaders[] = [];
    let url = '';
    beforeAll(async () => {
      server = createServer((req, res) => {
        seen.push(req.headers);
        res.setHeader('content-type', 'application/json');
        res.end('[]');
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    it.each([
      [
        'basic auth',
        { basicAuth: { username: 'aitia', password: 's3cret' }, bearerToken: null },
        `Basic ${Buffer.from('aitia:s3cret').toString('base64')}`,
      ],
      ['a bearer token', { basicAuth: null, bearerToken: 'tok-123' }, 'Bearer tok-123'],
      ['none', { basicAuth: null, bearerToken: null }, undefined],
    ])('%s', async (_, auth, expected) => {
      seen = [];
      const client = createAlertmanagerClient({ url, ...auth });
      expect(await client.listSilences()).toEqual([]);
      expect(seen[0]!.authorization).toBe(expected);
      client.close();
    });
  });
});
