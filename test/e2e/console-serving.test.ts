import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../../src/server/security-headers.js';
import { ensureConsoleBuilt } from '../support/console-browser.js';
import { useGraph } from '../support/graph.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** Issue 31: the console is served by aitia itself at /console, from the build, under its own CSP. */
const { driver } = useGraph();
let srv: TestServer;
beforeAll(async () => {
  ensureConsoleBuilt();
  srv = await startTestServer(driver);
});
afterAll(async () => srv?.close());

/** GET with the path as written (fetch resolves `..` before sending). */
function rawGet(path: string): Promise<{ status: number; csp: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(`${srv.url}/`, { path }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, csp: res.headers['content-security-policy'] as string | undefined });
    });
    req.on('error', reject).end();
  });
}

describe('the console at /console', () => {
  it('/ redirects to /console, which serves the page without a token', async () => {
    const home = await fetch(`${srv.url}/`, { redirect: 'manual' });
    expect(home.status).toBe(302);
    expect(home.headers.get('location')).toBe('/console');
    for (const path of ['/console', '/console/']) {
      const res = await fetch(`${srv.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      const html = await res.text();
      expect(html).toContain('src="/console/app.js"');
      expect(html).toContain('href="/console/app.css"');
      // No inline script or style: every script loads from /console, and no style attribute.
      for (const [, attrs, body] of html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g))
        expect([attrs, body]).toEqual([expect.stringMatching(/ src="\/console\//), '']);
      expect(html).not.toMatch(/<style|\sstyle=|https?:\/\//);
    }
  });

  it('serves the bundle and stylesheet with their types and the console CSP', async () => {
    const js = await fetch(`${srv.url}/console/app.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect((await js.text()).length).toBeGreaterThan(1000);
    const css = await fetch(`${srv.url}/console/app.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const etag = css.headers.get('etag')!;
    await css.arrayBuffer();
    expect((await fetch(`${srv.url}/console/app.css`, { headers: { 'if-none-match': etag } })).status).toBe(304);
  });

  it('answers 404 for an unknown asset and refuses traversal, raw or encoded', async () => {
    const unknown = await fetch(`${srv.url}/console/nope.js`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    for (const path of [
      '/console/../package.json',
      '/console/%2e%2e/package.json',
      '/console/..%2fpackage.json',
      '/console/../../package.json',
      '/console//etc/passwd',
    ])
      expect((await rawGet(path)).status, path).toBe(404);
    expect((await fetch(`${srv.url}/console`, { method: 'POST', body: '{}' })).status).toBe(405);
  });
});
