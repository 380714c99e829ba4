import type { IncomingMessage } from 'node:http';

/**
 * A request body, read whole up to a limit. Never rejects: a client that goes away mid-body
 * (`Content-Length: 1000` and six bytes, then a closed socket), a broken chunked encoding or a
 * reset socket is `aborted`; a body past the limit is `too_large` as soon as it passes it, and
 * nothing more is buffered. Whatever a client sends, the caller gets one of these three answers.
 */
export type BodyResult = { kind: 'ok'; body: Buffer } | { kind: 'too_large'; limit: number } | { kind: 'aborted' };

export function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: BodyResult) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        // The rest is read and dropped, so the 413 can still be written before the socket closes.
        req.resume();
        return settle({ kind: 'too_large', limit });
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => settle({ kind: 'ok', body: Buffer.concat(chunks, size) }));
    // Node emits 'error' on an aborted request only to listeners; this one stays for the request's
    // life, so a late error (after the limit was passed) is never an uncaught exception either.
    req.on('error', () => settle({ kind: 'aborted' }));
    // 'end' comes before 'close' for a body read whole; a close without it is a client gone.
    req.once('close', () => settle({ kind: 'aborted' }));
  });
}
