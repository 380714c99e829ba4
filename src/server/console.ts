import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join } from 'node:path';
import { findPackageRoot } from '../package-root.js';

/**
 * The operator console at /console: the files `npm run build` writes to dist/console/ (see
 * console/build.mjs), served by exact name from an allow-list read once the build is there (no path
 * joining of request input, so no traversal). The console's own CSP is set in security-headers.ts.
 * Every answer revalidates (the names carry no hash; an ETag makes the revalidation a 304).
 */
export const CONSOLE_PATH = '/console';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

const NOT_BUILT = [
  'The aitia console is not built.',
  '',
  'Run `npm run build` (or `npm run console:build`) in the aitia checkout, then reload this page.',
  'The GraphQL API at /graphql works without it.',
  '',
].join('\n');

export function consoleDir(): string {
  return join(findPackageRoot(), 'dist', 'console');
}

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir).flatMap((name) => {
    const rel = prefix + name;
    return statSync(join(dir, name)).isDirectory() ? listFiles(join(dir, name), `${rel}/`) : [rel];
  });
}

/** The file a request path names: index.html for /console and /console/, else the name after it. */
export function consoleAssetName(path: string): string | null {
  if (path === CONSOLE_PATH || path === `${CONSOLE_PATH}/`) return 'index.html';
  return path.startsWith(`${CONSOLE_PATH}/`) ? path.slice(CONSOLE_PATH.length + 1) : null;
}

/**
 * The /console handler. The build's file list is read when the directory first holds index.html
 * (at start, or on the first request after a build); until then every answer is a 503 saying so.
 */
export function createConsoleHandler(dir = consoleDir()): (req: IncomingMessage, res: ServerResponse) => void {
  let files: Set<string> | null = null;
  const cache = new Map<string, Asset>();
  const load = (): Set<string> | null => {
    if (!files && existsSync(join(dir, 'index.html'))) files = new Set(listFiles(dir));
    return files;
  };
  load();
  const read = (name: string): Asset => {
    let asset = cache.get(name);
    if (!asset) {
      const body = readFileSync(join(dir, name));
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
      asset = { body, type: CONTENT_TYPES[extname(name)] ?? 'application/octet-stream', etag };
      cache.set(name, asset);
    }
    return asset;
  };
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('GET only\n');
      return;
    }
    const list = load();
    if (!list) {
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end(NOT_BUILT);
      return;
    }
    const name = consoleAssetName((req.url ?? '/').split('?')[0]!);
    if (name === null || !list.has(name)) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    const asset = read(name);
    const headers = { 'content-type': asset.type, 'cache-control': 'no-cache', etag: asset.etag };
    if (req.headers['if-none-match'] === asset.etag) {
      res.writeHead(304, headers).end();
      return;
    }
    res.writeHead(200, { ...headers, 'content-length': asset.body.length });
    res.end(req.method === 'HEAD' ? undefined : asset.body);
  };
}
