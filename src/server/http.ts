import { createServer, type Server } from 'node:http';
import { readiness } from '../services/about.js';
import type { ServiceDeps } from '../services/deps.js';
import { createGraphqlApp } from './app.js';
import { createAssetHandler, GRAPHIQL_ASSET_PREFIX, graphiqlAssetDir } from './graphiql.js';
import { CLOUDEVENTS_PATH, createCloudEventsHandler, type PushSource } from './cloudevents-http.js';
import { createMcpHttpHandler } from './mcp-http.js';
import type { TokenStore } from '../services/token-store.js';
import { DEFAULT_MAX_BODY_BYTES, refuseOversizedBody } from './request-limits.js';

/** HTTP-level limits and policies (AITIA_MAX_BODY_BYTES, AITIA_CORS_ORIGINS). */
export interface HttpOptions {
  maxBodyBytes?: number;
  /** Origins allowed cross-origin; none by default (GraphiQL is same-origin). */
  corsOrigins?: readonly string[];
  /** vCenters whose event broker may push CloudEvents, by source name (with their HMAC secrets). */
  pushSources?: ReadonlyMap<string, PushSource>;
  /** Runs of the same parsed GraphQL operation before it runs compiled (default 1: from its second run). */
  compileAfter?: number;
}

/**
 * The HTTP server: /graphql (yoga), /mcp (MCP over streamable HTTP), /events/cloudevents (pushed
 * vCenter events, see cloudevents-http.ts), /healthz (process alive),
 * /readyz (Neo4j + migrations). The token store authenticates every request to /graphql and /mcp;
 * the token operations manage the same store.
 */
export function createHttpServer(deps: ServiceDeps, tokens: TokenStore, options: HttpOptions = {}): Server {
  const yoga = createGraphqlApp(deps, tokens, {
    corsOrigins: options.corsOrigins ?? [],
    compileAfter: options.compileAfter,
  });
  const cloudEvents = createCloudEventsHandler(deps, tokens, options.pushSources ?? new Map());
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const mcp = createMcpHttpHandler(deps, tokens);
  const assetDir = graphiqlAssetDir();
  if (!assetDir)
    deps.log.warn(
      'GraphiQL assets not found: @graphql-yoga/graphiql is missing or not the version graphql-yoga names (npm ci); the browser page will not load offline',
    );
  const asset = assetDir ? createAssetHandler(assetDir) : () => null;
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok' }));
      return;
    }
    if (path === '/readyz') {
      void readiness(deps).then(({ ready, detail }) => {
        res
          .writeHead(ready ? 200 : 503, { 'content-type': 'application/json' })
          .end(JSON.stringify({ status: ready ? 'ready' : 'not ready', ...detail }));
      });
      return;
    }
    if (path?.startsWith(GRAPHIQL_ASSET_PREFIX) && req.method === 'GET') {
      const found = asset(path);
      if (found)
        res.writeHead(200, { 'content-type': found.type, 'cache-control': 'public, max-age=86400' }).end(found.body);
      else res.writeHead(404).end();
      return;
    }
    if ((path === '/graphql' || path === '/mcp') && refuseOversizedBody(req, res, maxBody)) return;
    if (path === '/graphql') {
      void yoga.handle(req, res);
      return;
    }
    if (path === '/mcp') {
      mcp(req, res);
      return;
    }
    if (path === CLOUDEVENTS_PATH) {
      cloudEvents(req, res);
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        error: 'not found',
        endpoints: ['/graphql', '/mcp', CLOUDEVENTS_PATH, '/healthz', '/readyz'],
      }),
    );
  });
}

/** Listens and resolves with the bound address (port 0 picks a free one, for tests). */
export function listen(
  server: Server,
  host: string,
  port: number,
): Promise<{ host: string; port: number; url: string }> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const addr = server.address();
      const bound = typeof addr === 'object' && addr ? addr.port : port;
      resolve({ host, port: bound, url: `http://${host}:${bound}` });
    });
  });
}
