import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { type AuthInfo, createMcpHandler } from '@modelcontextprotocol/server';
import { createMcpServer } from '../mcp/server.js';
import { RoleSchema } from '../model/index.js';
import type { ServiceDeps } from '../services/deps.js';
import type { Principal } from '../services/permissions.js';
import type { TokenStore } from '../services/token-store.js';
import { authenticateBearer, bearerToken } from './auth.js';
import { originRefusal, originSet } from './mcp-origin.js';
import { tokenRefusal, watchToken } from './token-watch.js';

/** The largest MCP request body read (a gate question's command is at most 16 KiB). */
const MAX_REQUEST_BYTES = 1024 * 1024;

/** The principal the bearer check put in a request's pass-through auth info. */
function principalOf(authInfo: AuthInfo | undefined): Principal {
  const role = RoleSchema.safeParse(authInfo?.extra?.role);
  // Unreachable through the handler below, which authenticates every request before the SDK sees it.
  if (!authInfo || !role.success) throw new Error('MCP request reached the server without a principal');
  return { name: authInfo.clientId, role: role.data };
}

/**
 * Streamable HTTP at /mcp, stateless: the bearer token is checked first (a missing or unknown one
 * is HTTP 401 before any MCP work), then the SDK builds a fresh MCP server for this request and
 * this principal, so nothing of one caller's is in reach of another's.
 */
export function createMcpHttpHandler(
  deps: ServiceDeps,
  tokens: TokenStore,
  options: { corsOrigins?: readonly string[] } = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const origins = originSet(options.corsOrigins ?? []);
  const handler = createMcpHandler(({ authInfo }) => createMcpServer(deps, principalOf(authInfo)), {
    maxRequestBodySize: MAX_REQUEST_BYTES,
    onerror: (err) => deps.log.debug({ err }, 'MCP request refused'),
  });
  const serve = toNodeHandler(handler, {
    maxRequestBodySize: MAX_REQUEST_BYTES,
    onerror: (err) => deps.log.error({ err }, 'MCP request failed'),
  });
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    // Before the token: a page on a rebound name learns nothing, not even whether a token holds.
    const refused = originRefusal(req.headers.origin, req.headers.host, origins);
    if (refused) {
      deps.log.warn({ origin: req.headers.origin, host: req.headers.host }, 'MCP request refused: Origin');
      res.writeHead(403, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32000, message: refused, data: { code: 'FORBIDDEN' } },
        }),
      );
      return;
    }
    const token = bearerToken(req.headers.authorization);
    const checked = await authenticateBearer(deps, tokens, token);
    if (!checked.ok) {
      const message = checked.message;
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="aitia"' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32001, message, data: { code: 'UNAUTHENTICATED' } },
        }),
      );
      return;
    }
    const { principal } = checked;
    const auth: AuthInfo = {
      token: token ?? '',
      clientId: principal.name,
      scopes: [],
      extra: { role: principal.role },
    };
    // A stream (subscriptions/listen, a call answering over SSE) stays open past this check: it is
    // cut within a second or so of the token's revocation or expiry. Nothing else can be written
    // into the SDK's stream safely, so the connection is closed; the next request answers 401.
    const unwatch = watchToken(
      () => tokenRefusal(tokens, token!, principal),
      (reason) => {
        deps.log.warn({ principal: principal.name, role: principal.role, reason }, 'MCP stream ended');
        res.destroy();
      },
    );
    res.once('close', unwatch);
    try {
      await serve(Object.assign(req, { auth }), res);
    } finally {
      unwatch();
    }
  };
  return (req, res) => {
    handle(req, res).catch((err: unknown) => {
      deps.log.error({ err }, 'MCP request failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end();
    });
  };
}
