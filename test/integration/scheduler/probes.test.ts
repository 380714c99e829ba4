import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckDefinitionSchema, type HttpCheckSpec, type TcpCheckSpec } from '../../../src/model/index.js';
import { probeHttp } from '../../../src/scheduler/probes/http-probe.js';
import { probeTcp } from '../../../src/scheduler/probes/tcp-probe.js';
import { checkNetworkAllowing, startProbeTarget, type ProbeTarget } from '../../support/probe-target.js';

const allowed = checkNetworkAllowing('127.0.0.1');

let target: ProbeTarget;
beforeAll(async () => {
  target = await startProbeTarget();
});
afterAll(async () => target?.close());

const http = (over: Partial<HttpCheckSpec> = {}) =>
  CheckDefinitionSchema.parse({ kind: 'http', spec: { url: target.url, timeoutMs: 400, ...over } })
    .spec as HttpCheckSpec;
const tcp = (over: Partial<TcpCheckSpec> = {}) =>
  CheckDefinitionSchema.parse({ kind: 'tcp', spec: { host: '127.0.0.1', port: target.port, timeoutMs: 400, ...over } })
    .spec as TcpCheckSpec;

async function timed<T>(p: Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const v = await p;
  return [v, performance.now() - t0];
}

describe('http probe against a server the test controls on 127.0.0.1', () => {
  it('passes when the server answers the expected status', async () => {
    await target.set('up');
    expect(await probeHttp(http(), undefined, allowed)).toEqual({ status: 'pass', reason: null, unreachable: false });
  });

  it('fails on a wrong status, naming both; passes when that status is the expected one', async () => {
    await target.set('status', 503);
    expect(await probeHttp(http(), undefined, allowed)).toEqual({
      status: 'fail',
      reason: 'expected status 200, got 503',
      unreachable: false,
    });
    expect((await probeHttp(http({ expectedStatus: 503 }), undefined, allowed)).status).toBe('pass');
  });

  it('fails a slow server at its timeout (connected, so not unreachable)', async () => {
    await target.set('slow');
    const [o, ms] = await timed(probeHttp(http({ timeoutMs: 300 }), undefined, allowed));
    expect(o).toEqual({
      status: 'fail',
      reason: `timed out after 300 ms waiting for 127.0.0.1:${target.port} to answer`,
      unreachable: false,
    });
    expect(ms).toBeGreaterThanOrEqual(280);
    expect(ms).toBeLessThan(2000);
  });

  it('fails a garbage answer as an invalid HTTP response', async () => {
    await target.set('garbage');
    const o = await probeHttp(http(), undefined, allowed);
    expect(o.status).toBe('fail');
    expect(o.reason).toMatch(/invalid HTTP response from 127\.0\.0\.1:\d+ \(HPE_/);
    expect(o.unreachable).toBe(false);
  });

  it('fails when the server hangs up without answering', async () => {
    await target.set('hangup');
    const o = await probeHttp(http(), undefined, allowed);
    expect(o).toMatchObject({ status: 'fail', unreachable: false });
    expect(o.reason).toMatch(/connection reset|socket hang up/);
  });

  it('fails with connection refused when nothing listens (an answer: reachable)', async () => {
    await target.set('down');
    expect(await probeHttp(http(), undefined, allowed)).toEqual({
      status: 'fail',
      reason: `connection refused by 127.0.0.1:${target.port}`,
      unreachable: false,
    });
    await target.set('up');
    expect((await probeHttp(http(), undefined, allowed)).status).toBe('pass');
  });

  it('stops early when the caller aborts', async () => {
    await target.set('slow');
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 50);
    const [o, ms] = await timed(probeHttp(http({ timeoutMs: 5000 }), abort.signal, allowed));
    expect(o.status).toBe('fail');
    expect(ms).toBeLessThan(1000);
    await target.set('up');
  });
});

describe('tcp probe', () => {
  it('passes when the port accepts, even if the service would never answer', async () => {
    await target.set('slow');
    expect(await probeTcp(tcp(), undefined, allowed)).toEqual({ status: 'pass', reason: null, unreachable: false });
    await target.set('up');
  });

  it('fails with connection refused when nothing listens', async () => {
    await target.set('down');
    expect(await probeTcp(tcp(), undefined, allowed)).toEqual({
      status: 'fail',
      reason: `connection refused by 127.0.0.1:${target.port}`,
      unreachable: false,
    });
    await target.set('up');
    expect((await probeTcp(tcp(), undefined, allowed)).status).toBe('pass');
  });

  it('fails a name that does not resolve without calling the host unreachable', async () => {
    const o = await probeTcp(tcp({ host: 'no-such-host.invalid' }), undefined, allowed);
    expect(o).toMatchObject({ status: 'fail', unreachable: false });
    expect(o.reason).toMatch(/cannot resolve no-such-host\.invalid/);
  });
});

describe('probes refuse what the allow-list does not name (loopback, link-local, metadata, Neo4j)', () => {
  it('a check to 127.0.0.1 without the allow-list connects to nothing and says it was refused', async () => {
    const before = target.accepted();
    for (const url of [
      target.url,
      target.url.replace('127.0.0.1', '2130706433'),
      target.url.replace('127.0.0.1', '[::ffff:127.0.0.1]'),
    ])
      expect(await probeHttp(http({ url }))).toEqual({
        status: 'unknown',
        reason: expect.stringMatching(
          /^refused: address (127\.0\.0\.1|::ffff:7f00:1) is loopback; allow it with AITIA_CHECK_ALLOW$/,
        ),
        unreachable: false,
      });
    expect(await probeTcp(tcp())).toMatchObject({
      status: 'unknown',
      reason: expect.stringMatching(/^refused: address 127\.0\.0\.1 is loopback/),
    });
    expect(await probeTcp(tcp({ host: '0x7f.1' }))).toMatchObject({ reason: expect.stringMatching(/^refused/) });
    expect(target.accepted()).toBe(before);
  });

  it('a DNS name that resolves to loopback (localhost, *.localhost) is refused', async () => {
    const before = target.accepted();
    expect(
      await probeHttp(http({ url: target.url.replace('127.0.0.1', 'localhost') }), undefined, allowed),
    ).toMatchObject({
      status: 'unknown',
      reason: expect.stringMatching(/^refused: address localhost is loopback/),
    });
    expect(await probeTcp(tcp({ host: 'app.localhost' }), undefined, allowed)).toMatchObject({
      reason: expect.stringMatching(/^refused/),
    });
    expect(target.accepted()).toBe(before);
  });

  it('the allow-list opens exactly what it names', async () => {
    expect((await probeTcp(tcp(), undefined, checkNetworkAllowing(`127.0.0.1:${target.port}`))).status).toBe('pass');
    expect((await probeTcp(tcp(), undefined, checkNetworkAllowing('127.0.0.1:1'))).status).toBe('unknown');
    expect((await probeHttp(http(), undefined, checkNetworkAllowing('127.0.0.0/8'))).status).toBe('pass');
    expect(
      (
        await probeHttp(
          http({ url: target.url.replace('127.0.0.1', 'localhost') }),
          undefined,
          checkNetworkAllowing(`localhost:${target.port}`),
        )
      ).status,
    ).toBe('pass');
  });

  it("aitia's own Neo4j port stays refused when loopback is allowed", async () => {
    const policy = { ...allowed, protectedEndpoints: [{ host: '127.0.0.1', port: target.port }] };
    expect(await probeTcp(tcp(), undefined, policy)).toMatchObject({
      status: 'unknown',
      reason: expect.stringMatching(/aitia's own Neo4j/),
    });
  });

  it('metadata and link-local addresses are refused without a connection attempt (no timeout to read)', async () => {
    const [o, ms] = await timed(probeHttp(http({ url: 'http://169.254.169.254/latest/meta-data/', timeoutMs: 5000 })));
    expect(o).toMatchObject({
      status: 'unknown',
      reason: 'refused: address 169.254.169.254 is metadata; allow it with AITIA_CHECK_ALLOW',
    });
    expect(ms).toBeLessThan(1000);
    expect(await probeTcp(tcp({ host: 'fe80::1', port: 22 }))).toMatchObject({
      reason: expect.stringMatching(/link-local/),
    });
  });
});
