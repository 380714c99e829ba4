import type { IncomingMessage, ServerResponse } from 'node:http';
import { AitiaError, type ErrorCode, RETRY_AFTER_SECONDS } from '../model/index.js';
import type { Logger } from '../log.js';
import { readBody } from './read-body.js';

/**
 * What the two push intakes share — POST /events/cloudevents (a broker's vCenter events) and POST
 * /integrations/alertmanager (Alertmanager's webhook): JSON answers with the headers a sender acts
 * on (WWW-Authenticate on 401, Retry-After on 503), the body read within AITIA_MAX_BODY_BYTES, an
 * AitiaError's code as its HTTP status, and one catch so a failed request answers 500 (or closes)
 * instead of escaping the server.
 */

/** HTTP status per error code; the rest answer 400. A sender retries a 503 after Retry-After. */
const STATUS: Partial<Record<ErrorCode, number>> = { FORBIDDEN: 403, UNAVAILABLE: 503, CONFLICT: 409 };

export function answerJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const extra: Record<string, string> =
    status === 401
      ? { 'www-authenticate': 'Bearer realm="aitia"' }
      : status === 503
        ? { 'retry-after': String(RETRY_AFTER_SECONDS) }
        : {};
  res.writeHead(status, { 'content-type': 'application/json', ...extra, ...headers }).end(JSON.stringify(body));
}

/**
 * The request body, or null once answered: a declared or actual length over `maxBytes` is a 413 that
 * closes the connection; a client gone mid-body leaves nobody to answer and nothing to store.
 */
export async function readIntakeBody(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
): Promise<Buffer | null> {
  const declared = Number(req.headers['content-length'] ?? 0);
  const tooLarge = (size: string) => ({
    error: `request body is ${size}; the limit is ${maxBytes} bytes (AITIA_MAX_BODY_BYTES)`,
    code: 'PAYLOAD_TOO_LARGE',
  });
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    answerJson(res, 413, tooLarge(`${declared} bytes`), { connection: 'close' });
    return null;
  }
  const read = await readBody(req, maxBytes);
  if (read.kind === 'aborted') {
    res.destroy();
    return null;
  }
  if (read.kind === 'too_large') {
    answerJson(res, 413, tooLarge(`larger than ${maxBytes} bytes`), { connection: 'close' });
    return null;
  }
  return read.body;
}

/** A body that is not JSON (400) or an AitiaError (its status) answered; anything else rethrown. */
export function answerIntakeError(res: ServerResponse, err: unknown): void {
  if (err instanceof SyntaxError)
    return answerJson(res, 400, { error: `body: not JSON: ${err.message}`, code: 'BAD_USER_INPUT' });
  if (err instanceof AitiaError)
    return answerJson(res, STATUS[err.code] ?? 400, { error: err.message, code: err.code });
  throw err;
}

/** The handler with its last catch: logged, and a 500 while nothing was sent, else the socket closed. */
export function guardedIntake(
  log: Logger,
  what: string,
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(req, res).catch((err: unknown) => {
      log.error({ err }, `${what}: request failed`);
      if (!res.headersSent && !res.destroyed)
        answerJson(res, 500, { error: 'internal error' }, { connection: 'close' });
      else res.destroy();
    });
  };
}
