import { createServer, type Server } from 'node:http';
import { readiness } from '../services/about.js';
import type { ServiceDeps } from '../services/deps.js';
import { createGraphqlApp } from './app.js';
import { createAssetHandler, GRAPHIQL_ASSET_PREFIX, graphiqlAssetDir } from './graphiql.js';
import { CLOUDEVENTS_PATH, createCloudEventsHandler, type PushSource } from './cloudevents-http.js';
import { ALERTMANAGER_PATH, type AlertReceiverOptions, createAlertReceiver } from './alertmanager-http.js';
import { CONSOLE_PATH, createConsoleHandler } from './console.js';
import { startConsoleWarmUp } from './console-warm-up.js';
import { createMcpHttpHandler } from './mcp-http.js';
import type { TokenStore } from '../services/token-store.js';
import { DEFAULT_MAX_BODY_BYTES, refuseOversizedBody } from './request-limits.js';
import { DEFAULT_EDGE_LIMITS, type EdgeLimits, guarded, hardenServer, serverOptions } from './edge-guards.js';
import { setSecurityHeaders } from './security-headers.js';

/** HTTP-level limits and policies (AITIA_MAX_BODY_BYTES, AITIA_CORS_ORIGINS). */
export interface HttpOptions {
  maxBodyBytes?: number;
  /** Origins allowed cross-origin; none by default (GraphiQL is same-origin). */
  corsOrigins?: readonly string[];
  /** vCenters whose event broker may push CloudEvents, by source name (with their HMAC secrets). */
  pushSources?: ReadonlyMap<string, PushSource>;
  /** Runs of the same parsed GraphQL operation before it runs compiled (default 1: from its second run). */
  compileAfter?: number;
  /** The Alertmanager webhook receiver: the integrations file's label mapping and receiver secret. */
  alertReceiver?: Omit<AlertReceiverOptions, 'maxBodyBytes'>;
  /** Timeouts, header size and connection cap (edge-guards.ts); defaults suit a service behind nothing. */
  edge?: Partial<EdgeLimits>;
  /** Once listening, runs the console's queries in the background (console-warm-up.ts), as `aitia serve` does. */
  warmUp?: boolean;
}

/**
 * The HTTP server: /graphql (yoga), /mcp (MCP over streamable HTTP), /console (the operator
 * console's built files; `/` redirects there), /events/cloudevents (pushed vCenter events, see
 * cloudevents-http.ts), /integrations/alertmanager (Alertmanager's webhook receiver, see
 * alertmanager-http.ts), /healthz (process alive),
 * /readyz (Neo4j + migrations). The token store authenticates every request to /graphql and /mcp;
 * the token operations manage the same store.
 */
export function createHttpServer(deps: ServiceDeps, tokens: TokenStore, options: HttpOptions = {}): Server {
  const yoga = createGraphqlApp(deps, tokens, {
    corsOrigins: options.corsOrigins ?? [],
    compileAfter: options.compileAfter,
  });
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const cloudEvents = createCloudEventsHandler(deps, tokens, options.pushSources ?? new Map(), {
    maxBodyBytes: maxBody,
  });
  const alerts = createAlertReceiver(deps, tokens, {
    labels: {},
    secret: null,
    ...options.alertReceiver,
    maxBodyBytes: maxBody,
  });
  const mcp = createMcpHttpHandler({ ...deps, tokens }, tokens, { corsOrigins: options.corsOrigins ?? [] });
  const assetDir = graphiqlAssetDir();
  if (!assetDir)
    deps.log.warn(
      'GraphiQL assets not found: @graphql-yoga/graphiql is missing or not the version graphql-yoga names (npm ci); the browser page will not load offline',
    );
  const asset = assetDir ? createAssetHandler(assetDir) : () => null;
  const consolePages = createConsoleHandler();
  const routes = {
    healthz: guarded(deps.log, '/healthz', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok' }));
    }),
    readyz: guarded(deps.log, '/readyz', async (_req, res) => {
      const { ready, detail } = await readiness(deps);
      res
        .writeHead(ready ? 200 : 503, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: ready ? 'ready' : 'not ready', ...detail }));
    }),
    asset: guarded(deps.log, GRAPHIQL_ASSET_PREFIX, (req, res) => {
      const found = asset((req.url ?? '/').split('?')[0]!);
      if (found)
        res.writeHead(200, { 'content-type': found.type, 'cache-control': 'public, max-age=86400' }).end(found.body);
      else res.writeHead(404).end();
    }),
    console: guarded(deps.log, CONSOLE_PATH, consolePages),
    home: guarded(deps.log, '/', (_req, res) => {
      res
        .writeHead(302, { location: CONSOLE_PATH, 'content-type': 'text/plain; charset=utf-8' })
        .end(`${CONSOLE_PATH}\n`);
    }),
    graphql: guarded(deps.log, '/graphql', (req, res) =>
      refuseOversizedBody(req, res, maxBody) ? undefined : yoga.handle(req, res),
    ),
    mcp: guarded(deps.log, '/mcp', (req, res) => (refuseOversizedBody(req, res, maxBody) ? undefined : mcp(req, res))),
    cloudEvents: guarded(deps.log, CLOUDEVENTS_PATH, (req, res) => cloudEvents(req, res)),
    alerts: guarded(deps.log, ALERTMANAGER_PATH, (req, res) => alerts(req, res)),
    notFound: guarded(deps.log, 'not found', (_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          error: 'not found',
          endpoints: [CONSOLE_PATH, '/graphql', '/mcp', CLOUDEVENTS_PATH, ALERTMANAGER_PATH, '/healthz', '/readyz'],
        }),
      );
    }),
  };
  const limits = { ...DEFAULT_EDGE_LIMITS, ...options.edge };
  const server = createServer(serverOptions(limits), (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    setSecurityHeaders(res, path);
    if (path === '/healthz') return routes.healthz(req, res);
    if (path === '/readyz') return routes.readyz(req, res);
    if (path.startsWith(GRAPHIQL_ASSET_PREFIX) && req.method === 'GET') return routes.asset(req, res);
    if (path === '/' && (req.method === 'GET' || req.method === 'HEAD')) return routes.home(req, res);
    if (path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`)) return routes.console(req, res);
    if (path === '/graphql') return routes.graphql(req, res);
    if (path === '/mcp') return routes.mcp(req, res);
    if (path === CLOUDEVENTS_PATH) return routes.cloudEvents(req, res);
    if (path === ALERTMANAGER_PATH) return routes.alerts(req, res);
    return routes.notFound(req, res);
  });
  hardenServer(server, limits, deps.log);
  if (options.warmUp)
    server.once('listening', () => {
      const warm = startConsoleWarmUp(yoga, { ...deps, tokens }, (options.compileAfter ?? 1) + 1);
      server.once('close', () => void warm.stop());
    });
  return server;
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
