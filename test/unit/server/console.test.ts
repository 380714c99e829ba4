import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleAssetName, createConsoleHandler } from '../../../src/server/console.js';
import { API_CSP, CONSOLE_CSP, cspFor, PAGE_CSP } from '../../../src/server/security-headers.js';

describe('the console CSP and route', () => {
  it('/console and everything under it get the console CSP; GraphiQL keeps its own; the rest loads nothing', () => {
    for (const p of ['/console', '/console/', '/console/app.js', '/console/app.css'])
      expect(cspFor(p), p).toBe(CONSOLE_CSP);
    for (const p of ['/graphql', '/graphql/assets/x.js']) expect(cspFor(p), p).toBe(PAGE_CSP);
    for (const p of ['/', '/consoles', '/console.js', '/mcp', '/healthz']) expect(cspFor(p), p).toBe(API_CSP);
  });

  it('runs no inline script or style and talks only to its own origin', () => {
    const directives = new Map(CONSOLE_CSP.split('; ').map((d) => [d.split(' ')[0]!, d.split(' ').slice(1).join(' ')]));
    expect(directives.get('default-src')).toBe("'none'");
    expect(directives.get('script-src')).toBe("'self'");
    expect(directives.get('style-src')).toBe("'self'");
    expect(directives.get('connect-src')).toBe("'self'");
    expect(directives.get('img-src')).toBe("'self' data:");
    expect(directives.get('frame-ancestors')).toBe("'none'");
    expect(directives.get('base-uri')).toBe("'none'");
    expect(directives.get('form-action')).toBe("'none'");
    expect(CONSOLE_CSP).not.toMatch(/unsafe|https?:|\*/);
  });

  it('names index.html for /console and /console/, the file after the prefix otherwise', () => {
    expect(consoleAssetName('/console')).toBe('index.html');
    expect(consoleAssetName('/console/')).toBe('index.html');
    expect(consoleAssetName('/console/app.js')).toBe('app.js');
    expect(consoleAssetName('/consoles')).toBeNull();
    expect(consoleAssetName('/graphql')).toBeNull();
  });
});

/** GET with the path sent as written (fetch would resolve `..` and `.` before sending). */
function rawStatus(base: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/`, { path }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject).end();
  });
}

describe('the console handler', () => {
  let dir: string;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'aitia-console-'));
    const built = join(dir, 'console');
    const handler = createConsoleHandler(built);
    server = createServer((req, res) => handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const addr = server.address();
    url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 saying how to build it until the build is there, then serves it without a restart', async () => {
    const before = await fetch(`${url}/console`);
    expect(before.status).toBe(503);
    expect(before.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await before.text()).toContain('npm run build');
    mkdirSync(join(dir, 'console'));
    writeFileSync(join(dir, 'console', 'index.html'), '<!doctype html><title>x</title>');
    writeFileSync(join(dir, 'console', 'app.js'), 'export {};');
    writeFileSync(join(dir, 'secret.txt'), 'outside');
    const page = await fetch(`${url}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const etag = page.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect((await fetch(`${url}/console`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    const js = await fetch(`${url}/console/app.js`);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await js.text()).toBe('export {};');
  });

  it('serves only the files the build listed: unknown names and traversal are 404, other methods 405', async () => {
    expect(await rawStatus(url, '/console/app.js')).toBe(200);
    for (const p of [
      '/console/nope.js',
      '/console/../secret.txt',
      '/console/%2e%2e/secret.txt',
      '/console/./app.js',
      '/console//app.js',
    ])
      expect(await rawStatus(url, p), p).toBe(404);
    expect((await fetch(`${url}/console/app.js`, { method: 'POST' })).status).toBe(405);
  });
});
