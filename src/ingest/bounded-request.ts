import http, { type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';

/** Why a bounded request failed; each provider client words it as its own typed error. */
export type RequestFailure =
  | { kind: 'timeout' }
  | { kind: 'too_large' }
  /** The connection closed before the answer was complete. */
  | { kind: 'cut' }
  | { kind: 'transport'; err: unknown };

export interface BoundedAnswer {
  status: number;
  statusMessage: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * One HTTP request to a provider API with the bounds every provider client needs: an answer
 * complete within `timeoutMs`, at most `maxBodyBytes` read, and a connection cut mid-answer
 * reported as such rather than parsed. Settles once; a failure destroys the request.
 */
export function boundedRequest(
  url: URL,
  options: {
    method: string;
    agent: http.Agent | https.Agent;
    headers: OutgoingHttpHeaders;
    body: string | null;
    timeoutMs: number;
    maxBodyBytes: number;
  },
  failure: (f: RequestFailure) => Error,
): Promise<BoundedAnswer> {
  return new Promise((resolve, reject) => {
    const { method, agent, headers } = options;
    const req = (url.protocol === 'https:' ? https : http).request(url, { method, agent, headers });
    let settled = false;
    const fail = (f: RequestFailure) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(failure(f));
    };
    const timer = setTimeout(() => fail({ kind: 'timeout' }), options.timeoutMs);
    req.on('error', (err) => fail({ kind: 'transport', err }));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > options.maxBodyBytes) fail({ kind: 'too_large' });
        else chunks.push(c);
      });
      res.on('close', () => {
        if (!res.complete) fail({ kind: 'cut' });
      });
      res.on('error', (err) => fail({ kind: 'transport', err }));
      res.on('end', () => {
        if (settled) return;
        if (!res.complete) return fail({ kind: 'cut' });
        settled = true;
        clearTimeout(timer);
        resolve({
          status: res.statusCode ?? 0,
          statusMessage: res.statusMessage ?? '',
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    req.end(options.body ?? undefined);
  });
}
