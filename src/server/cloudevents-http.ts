import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AitiaError, type ErrorCode, RETRY_AFTER_SECONDS } from '../model/index.js';
import type { ServiceDeps } from '../services/deps.js';
import { withNeo4jDeadline } from '../services/deadline.js';
import { ingestVcenterEvents } from '../services/ingest.js';
import type { Principal } from '../services/permissions.js';
import type { TokenStore } from '../services/token-store.js';
import { authenticateBearer, bearerToken } from './auth.js';

/**
 * `POST /events/cloudevents?source=<name>`: vCenter events pushed by an event broker (VEBA,
 * Knative) as CloudEvents over HTTP — structured (`application/cloudevents+json`), batched
 * (`application/cloudevents-batch+json`) or binary (`ce-*` headers, the event in the body). The
 * caller is an ingester token (`Authorization: Bearer`, then `source` names the vCenter as its ids
 * do) or a push source signing the raw body: `X-Aitia-Signature: sha256=<hex HMAC-SHA256>` with the
 * source's own secret. Unsigned, wrongly signed or unknown → 401 and nothing stored. The events go
 * through ingestVcenterEvents (audited); a replayed CloudEvent is the same event (its key), stored once.
 */

/** A source allowed to push, and the vCenter name its events are stored under. */
export interface PushSource {
  server: string;
  /** HMAC-SHA256 key for `X-Aitia-Signature`; null: only ingester tokens may push for it. */
  secret: string | null;
}

export const CLOUDEVENTS_PATH = '/events/cloudevents';
const MAX_BODY = 1024 * 1024;

/** `sha256=<hex>` of the body under `secret`; compared in constant time. Pure. */
export function signatureMatches(secret: string, body: Buffer, header: string | undefined): boolean {
  const m = /^sha256=([0-9a-f]{64})$/i.exec((header ?? '').trim());
  if (!m) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(m[1]!, 'hex'));
}

/** The CloudEvents of a request body, whatever the content mode. */
export function cloudEventsOf(contentType: string, headers: IncomingMessage['headers'], body: Buffer): unknown[] {
  const parsed = JSON.parse(body.toString('utf8')) as unknown;
  if (contentType.startsWith('application/cloudevents-batch+json')) {
    if (!Array.isArray(parsed)) throw new AitiaError('BAD_USER_INPUT', 'body: a CloudEvents batch must be an array');
    return parsed;
  }
  if (contentType.startsWith('application/cloudevents+json')) return [parsed];
  const ce = (name: string) => (typeof headers[`ce-${name}`] === 'string' ? headers[`ce-${name}`] : undefined);
  if (!ce('id') || !ce('type'))
    throw new AitiaError(
      'BAD_USER_INPUT',
      'headers: a binary-mode CloudEvent needs ce-id and ce-type (or send application/cloudevents+json)',
    );
  return [
    {
      specversion: ce('specversion') ?? '1.0',
      id: ce('id'),
      type: ce('type'),
      source: ce('source'),
      subject: ce('subject'),
      data: parsed,
    },
  ];
}

/** HTTP status per error code; the rest answer 400. A broker retries a 503 after Retry-After. */
const STATUS: Partial<Record<ErrorCode, number>> = { FORBIDDEN: 403, UNAVAILABLE: 503 };

function answer(res: ServerResponse, status: number, body: unknown): void {
  const extra: Record<string, string> =
    status === 401
      ? { 'www-authenticate': 'Bearer realm="aitia"' }
      : status === 503
        ? { 'retry-after': String(RETRY_AFTER_SECONDS) }
        : {};
  res.writeHead(status, { 'content-type': 'application/json', ...extra }).end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => resolve(size > MAX_BODY ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function createCloudEventsHandler(
  deps: ServiceDeps,
  tokens: TokenStore,
  sources: ReadonlyMap<string, PushSource>,
): (req: IncomingMessage, res: ServerResponse) => void {
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') return answer(res, 405, { error: 'POST CloudEvents here' });
    const name = new URL(req.url ?? '/', 'http://x').searchParams.get('source') ?? '';
    const body = await readBody(req);
    if (body === null) return answer(res, 413, { error: `body larger than ${MAX_BODY} bytes` });
    let principal: Principal;
    let server: string;
    const signature = req.headers['x-aitia-signature'];
    const token = bearerToken(req.headers.authorization);
    if (token) {
      const checked = await authenticateBearer(deps, tokens, token);
      if (!checked.ok) return answer(res, 401, { error: checked.message });
      principal = checked.principal;
      server = sources.get(name)?.server ?? name;
    } else {
      const source = sources.get(name);
      if (!source?.secret || typeof signature !== 'string' || !signatureMatches(source.secret, body, signature))
        return answer(res, 401, {
          error:
            'unauthenticated: send an ingester bearer token, or sign the body (X-Aitia-Signature: sha256=<hex HMAC>) with the secret of the source named by ?source=',
        });
      principal = { name: `push:${name}`, role: 'ingester' };
      server = source.server;
    }
    if (server === '') return answer(res, 400, { error: 'source: name the vCenter (?source=<name>)' });
    try {
      const events = cloudEventsOf(String(req.headers['content-type'] ?? ''), req.headers, body);
      // Under the whole-request Neo4j deadline: a broker is told 503 + Retry-After, not left hanging.
      const result = await withNeo4jDeadline(deps, () => ingestVcenterEvents(deps, principal, { server, events }));
      return answer(res, 200, result);
    } catch (err) {
      if (err instanceof SyntaxError) return answer(res, 400, { error: `body: not JSON: ${err.message}` });
      if (err instanceof AitiaError)
        return answer(res, STATUS[err.code] ?? 400, { error: err.message, code: err.code });
      deps.log.error({ err }, 'cloudevents: ingest failed');
      return answer(res, 500, { error: 'internal error' });
    }
  };
  return (req, res) => void handle(req, res);
}
