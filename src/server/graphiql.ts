import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { renderGraphiQL, type GraphiQLOptions } from 'graphql-yoga';
import { findPackageRoot } from '../package-root.js';

/** Where GraphiQL's assets are served from: the same origin, so the page works offline. */
export const GRAPHIQL_ASSET_PREFIX = '/graphql/assets/';
const CDN = /https:\/\/unpkg\.com\/@graphql-yoga\/graphiql@([0-9][^/]*)\/dist\//g;

const CONTENT_TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

/** The vendored assets (scripts/fetch-graphiql.mjs) matching yoga's GraphiQL version, or null. */
export function graphiqlAssetDir(): string | null {
  const version = /@graphql-yoga\/graphiql@([0-9][^/]*)\/dist\//.exec(renderGraphiQL({}))?.[1];
  const dir = version ? join(findPackageRoot(), 'vendor', 'graphiql', version) : null;
  return dir && existsSync(join(dir, 'yoga-graphiql.umd.js')) ? dir : null;
}

/** Yoga's GraphiQL page with its CDN links pointed at our own asset route. */
export function renderLocalGraphiQL(opts: GraphiQLOptions | undefined): string {
  return renderGraphiQL(opts ?? {}).replace(CDN, GRAPHIQL_ASSET_PREFIX);
}

function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir).flatMap((name) => {
    const rel = prefix + name;
    return statSync(join(dir, name)).isDirectory() ? listFiles(join(dir, name), `${rel}/`) : [rel];
  });
}

/**
 * Serves the asset files by exact name from an allow-list read at start (no path joining of
 * request input, so no traversal). Returns null for anything else.
 */
export function createAssetHandler(dir: string): (path: string) => { body: Buffer; type: string } | null {
  const files = new Set(listFiles(dir));
  const cache = new Map<string, Buffer>();
  return (path) => {
    const name = path.startsWith(GRAPHIQL_ASSET_PREFIX) ? path.slice(GRAPHIQL_ASSET_PREFIX.length) : '';
    if (!files.has(name)) return null;
    let body = cache.get(name);
    if (!body) cache.set(name, (body = readFileSync(join(dir, name))));
    return { body, type: CONTENT_TYPES[extname(name)] ?? 'application/octet-stream' };
  };
}
