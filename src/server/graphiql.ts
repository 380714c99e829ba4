import { readFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { renderGraphiQL, type GraphiQLOptions } from 'graphql-yoga';
import { findPackageRoot } from '../package-root.js';
import { TOKEN_PLACEHOLDER } from './auth.js';
import { BOOT_SCRIPT, BOOT_SCRIPT_SOURCE, renderGraphiQLPage } from './graphiql-page.js';

/** Where GraphiQL's assets are served from: the same origin, so the page works offline. */
export const GRAPHIQL_ASSET_PREFIX = '/graphql/assets/';
// Yoga's page fetches its favicon from GitHub; ours is inline, so nothing leaves the machine.
const LOCAL_FAVICON =
  '<link rel=icon href="data:image/svg+xml,' +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="#1f6feb"/>' +
      '<text x="8" y="12" font-size="10" text-anchor="middle" fill="#fff" font-family="sans-serif">a</text></svg>',
  ) +
  '">';

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** What GraphiQL opens on: an aitia query and where the token goes. */
export const GRAPHIQL_DEFAULTS: GraphiQLOptions = {
  title: 'aitia',
  defaultQuery: [
    '# aitia answers only with a bearer token: put yours in the Headers tab below,',
    '# replacing <token> (the agent or operator token printed at first start).',
    '{',
    '  about { version principal role policyDigest }',
    '  resources(first: 5) { totalCount edges { node { slug state } } }',
    '}',
    '',
  ].join('\n'),
  headers: JSON.stringify({ Authorization: `Bearer ${TOKEN_PLACEHOLDER}` }, null, 2),
};

/** The GraphiQL version yoga's page is written for. */
export function graphiqlVersionOfYoga(): string | null {
  return /@graphql-yoga\/graphiql@([0-9][^/]*)\/dist\//.exec(renderGraphiQL({}))?.[1] ?? null;
}

/**
 * The assets of the pinned `@graphql-yoga/graphiql` dependency, when its version is the one yoga's
 * page names (a test keeps the two equal); null otherwise.
 */
export function graphiqlAssetDir(): string | null {
  const require = createRequire(join(findPackageRoot(), 'package.json'));
  try {
    const pkgFile = require.resolve('@graphql-yoga/graphiql/package.json');
    const { version } = JSON.parse(readFileSync(pkgFile, 'utf8')) as { version: string };
    return version === graphiqlVersionOfYoga() ? join(dirname(pkgFile), 'dist') : null;
  } catch {
    return null;
  }
}

/** GraphiQL's page on our own asset route, with a local favicon and no inline script (graphiql-page.ts). */
export function renderLocalGraphiQL(opts: GraphiQLOptions | undefined): string {
  return renderGraphiQLPage({ ...GRAPHIQL_DEFAULTS, ...opts }, GRAPHIQL_ASSET_PREFIX, LOCAL_FAVICON);
}

function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir).flatMap((name) => {
    const rel = prefix + name;
    return statSync(join(dir, name)).isDirectory() ? listFiles(join(dir, name), `${rel}/`) : [rel];
  });
}

const BOOT = Buffer.from(BOOT_SCRIPT_SOURCE);

/**
 * Serves the asset files by exact name from an allow-list read at start (no path joining of
 * request input, so no traversal), and the page's boot script. Returns null for anything else.
 */
export function createAssetHandler(dir: string): (path: string) => { body: Buffer; type: string } | null {
  const files = new Set(listFiles(dir));
  const cache = new Map<string, Buffer>();
  return (path) => {
    const name = path.startsWith(GRAPHIQL_ASSET_PREFIX) ? path.slice(GRAPHIQL_ASSET_PREFIX.length) : '';
    if (name === BOOT_SCRIPT) return { body: BOOT, type: CONTENT_TYPES['.js']! };
    if (!files.has(name)) return null;
    let body = cache.get(name);
    if (!body) cache.set(name, (body = readFileSync(join(dir, name))));
    return { body, type: CONTENT_TYPES[extname(name)] ?? 'application/octet-stream' };
  };
}
