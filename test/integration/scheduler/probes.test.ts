import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckDefinitionSchema, type HttpCheckSpec, type TcpCheckSpec } from '../../../src/model/index.js';
import { probeHttp } from '../../../src/scheduler/probes/http-probe.js';
import { probeTcp } from '../../../src/scheduler/probes/tcp-probe.js';
import { startProbeTarget, type ProbeTarget } from '../../support/probe-target.js';

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
    expect(await probeHttp(http())).toEqual({ status: 'pass', reason: null, unreachable: false });
  });

  it('fails on a wrong status, naming both; passes when that status is the expected one', async () => {
    await target.set('status', 503);
    expect(await probeHttp(http())).toEqual({
      status: 'fail',
      reason: 'expected status 200, got 503',
      unreachable: false,
    });
    expect((await probeHttp(http({ expectedStatus: 503 }))).status).toBe('pass');
  });

  it('fails a slow server at its timeout (connected, so not unreachable)', async () => {
    await target.set('slow');
    const [o, ms] = await timed(probeHttp(http({ timeoutMs: 300 })));
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
    const o = await probeHttp(http());
    expect(o.status).toBe('fail');
    expect(o.reason).toMatch(/invalid HTTP response from 127\.0\.0\.1:\d+ \(HPE_/);
    expect(o.unreachable).toBe(false);
  });

  it('fails when the server hangs up without answering', async () => {
    await target.set('hangup');
    const o = await probeHttp(http());
    expect(o).toMatchObject({ status: 'fail', unreachable: false });
    expect(o.reason).toMatch(/connection reset|socket hang up/);
  });

  it('fails with connection refused when nothing listens (an answer: reachable)', async () => {
    await target.set('down');
    expect(await probeHttp(http())).toEqual({
      status: 'fail',
      reason: `connection refused by 127.0.0.1:${target.port}`,
      unreachable: false,
    });
    await target.set('up');
    expect((await probeHttp(http())).status).toBe('pass');
  });

  it('stops early when the caller aborts', async () => {
    await target.set('slow');
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 50);
    const [o, ms] = await timed(probeHttp(http({ timeoutMs: 5000 }), abort.signal));
    expect(o.status).toBe('fail');
    expect(ms).toBeLessThan(1000);
    await target.set('up');
  });
});

describe('tcp probe', () => {
  it('passes when the port accepts, even if the service would never answer', async () => {
    await target.set('slow');
    expect(await probeTcp(tcp())).toEqual({ status: 'pass', reason: null, unreachable: false });
    await target.set('up');
  });

  it('fails with connection refused when nothing listens', async () => {
    await target.set('down');
    expect(await probeTcp(tcp())).toEqual({
      status: 'fail',
      reason: `connection refused by 127.0.0.1:${target.port}`,
      unreachable: false,
    });
    await target.set('up');
    expect((await probeTcp(tcp())).status).toBe('pass');
  });

  it('fails a name that does not resolve without calling the host unreachable', async () => {
    const o = await probeTcp(tcp({ host: 'no-such-host.invalid' }));
    expect(o).toMatchObject({ status: 'fail', unreachable: false });
    expect(o.reason).toMatch(/cannot resolve no-such-host\.invalid/);
  });
});
