import type { IncomingMessage, ServerResponse } from 'node:http';

/** Default request body limit for /graphql and /mcp (AITIA_MAX_BODY_BYTES). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** A refusal in the GraphQL error shape, so every client reads `errors[0].extensions.code`. */
export function sendCodedError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): void {
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify({ errors: [{ message, extensions: { code, ...extra } }] }));
}

/**
 * Refuses a body over the limit before anything reads it: 413 `PAYLOAD_TOO_LARGE` naming the
 * limit. A body without a declared length (chunked) cannot be measured up front and is refused
 * with 411 `LENGTH_REQUIRED` (every HTTP client sends Content-Length for a JSON body). Returns
 * true when the request was answered.
 */
export function refuseOversizedBody(req: IncomingMessage, res: ServerResponse, maxBytes: number): boolean {
  const declared = req.headers['content-length'];
  if (declared === undefined) {
    if (req.headers['transfer-encoding'] === undefined) return false;
    sendCodedError(res, 411, 'LENGTH_REQUIRED', 'a request body must declare its Content-Length', {
      limitBytes: maxBytes,
    });
    req.resume();
    return true;
  }
  const bytes = Number(declared);
  if (!Number.isFinite(bytes) || bytes <= maxBytes) return false;
  sendCodedError(
    res,
    413,
    'PAYLOAD_TOO_LARGE',
    `request body is ${bytes} bytes; the limit is ${maxBytes} (AITIA_MAX_BODY_BYTES)`,
    { limitBytes: maxBytes },
    { connection: 'close' },
  );
  req.resume();
  return true;
}
