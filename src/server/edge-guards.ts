import type { IncomingMessage, RequestListener, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../log.js';

/**
 * What one client can hold of the server. Time limits free a slow socket (a trickled header or body,
 * an idle keep-alive) within seconds, so holding many takes a steady stream of new connections; the
 * connection cap keeps file descriptors for Neo4j and the rest. Headers over the size limit are 431.
 */
export interface EdgeLimits {
  /** Whole header block, from the first byte (Node's default is 60 s). */
  headersTimeoutMs: number;
  /** Whole request, headers and body (Node's default is 300 s); a streamed answer is not bounded by it. */
  requestTimeoutMs: number;
  /** An idle keep-alive socket between requests. */
  keepAliveTimeoutMs: number;
  /** Request line plus headers; more is 431. */
  maxHeaderBytes: number;
  /** Open connections at once; past it new ones are closed at accept. */
  maxConnections: number;
  /**
   * Open connections of one client address at once; past it its new ones are closed at accept,
   * so one client cannot fill the table above and lock everyone else out. Behind a proxy every
   * client is the proxy's address: raise it there.
   */
  maxConnectionsPerAddress: number;
}

export const DEFAULT_EDGE_LIMITS: EdgeLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderBytes: 16 * 1024,
  maxConnections: 8_192,
  maxConnectionsPerAddress: 256,
};

/** Options for node:http's createServer that only exist at construction. */
export function serverOptions(limits: EdgeLimits): ServerOptions {
  return {
    maxHeaderSize: limits.maxHeaderBytes,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // How often Node looks for requests past their timeouts (default 30 s: a slow socket lived ~40 s).
    connectionsCheckingInterval: 1_000,
  };
}

/** Status and reason for an error node:http's parser or its timers raise on a socket. */
function clientErrorStatus(code: string | undefined): [number, string] {
  if (code === 'HPE_HEADER_OVERFLOW') return [431, 'Request Header Fields Too Large'];
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'Request Timeout'];
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return [413, 'Content Too Large'];
  return [400, 'Bad Request'];
}

/** The response node:http has tied to a socket, if one is being answered (not in its typings). */
const inFlight = (socket: Socket) => (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;

/**
 * Server-wide limits and the answer to a request node:http cannot parse (garbage request line,
 * bad chunking, a header without a colon, headers too large, too slow): a short status on the raw
 * socket, then the socket is closed. A socket whose answer already started is only closed.
 */
export function hardenServer(server: Server, limits: EdgeLimits, log: Logger): void {
  server.maxConnections = limits.maxConnections;
  const perAddress = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    // `::ffff:a.b.c.d` is the IPv4 client a.b.c.d on a dual-stack socket: one client either way.
    const address = (socket.remoteAddress ?? '').replace(/^::ffff:(?=\d+\.)/i, '');
    const open = (perAddress.get(address) ?? 0) + 1;
    if (open > limits.maxConnectionsPerAddress) {
      log.debug({ address, limit: limits.maxConnectionsPerAddress }, 'http: connection refused: per-address cap');
      socket.destroy();
      return;
    }
    perAddress.set(address, open);
    socket.once('close', () => {
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
    });
  });
  // Node times headers from their first byte: a socket that sends nothing would stay forever. Until
  // its first request arrives it may idle only as long as headers may take; then Node's own timers
  // (request, keep-alive) apply and a streamed answer is not cut.
  server.on('connection', (socket: Socket) => socket.setTimeout(limits.headersTimeoutMs));
  server.on('request', (req: IncomingMessage) => req.socket.setTimeout(server.timeout));
  server.on('clientError', (err: Error & { code?: string }, socket: Socket) => {
    log.debug({ code: err.code, message: err.message }, 'http: client error');
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight(socket)) {
      socket.destroy();
      return;
    }
    const [status, reason] = clientErrorStatus(err.code);
    const body = JSON.stringify({ error: reason.toLowerCase() });
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
        `x-content-type-options: nosniff\r\nconnection: close\r\n\r\n${body}`,
    );
    // A client that does not read its answer must not keep the socket: end() waits for the write.
    socket.setTimeout(limits.keepAliveTimeoutMs, () => socket.destroy());
  });
}

/** A client going away mid-request (the socket closed, the body cut off) is not the server's error. */
function clientGone(req: IncomingMessage, err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || req.destroyed || req.socket.destroyed;
}

/**
 * A route that cannot take the server down: a throw or a rejected promise of its handler, and an
 * `error` on the request or response stream, end at this request — 500 when nothing was sent yet,
 * otherwise the socket is closed — and the error is logged.
 */
export function guarded(
  log: Logger,
  route: string,
  handler: (req: IncomingMessage, res: ServerResponse) => unknown,
): RequestListener {
  return (req, res) => {
    const fail = (err: unknown) => {
      if (clientGone(req, err)) {
        log.debug({ route, message: (err as Error)?.message }, 'http: client went away mid-request');
        res.destroy();
        return;
      }
      log.error({ err, route }, 'http: request failed');
      if (res.headersSent || res.destroyed) {
        res.destroy();
        return;
      }
      try {
        res.writeHead(500, { 'content-type': 'application/json', connection: 'close' });
        res.end(
          JSON.stringify({ errors: [{ message: 'internal error', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] }),
        );
      } catch {
        res.destroy();
      }
    };
    req.on('error', (err) => log.debug({ route, message: err.message }, 'http: request stream failed'));
    res.on('error', (err) => log.debug({ route, message: err.message }, 'http: response stream failed'));
    try {
      const result = handler(req, res);
      if (result instanceof Promise) result.catch(fail);
    } catch (err) {
      fail(err);
    }
  };
}
