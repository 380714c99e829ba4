import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DateTime } from 'luxon';
import { AitiaError } from '../model/index.js';
import { nowOf, type ServiceDeps } from '../services/deps.js';
import { withNeo4jDeadline } from '../services/deadline.js';
import { ingestVcenterEvents } from '../services/ingest.js';
import type { Principal } from '../services/permissions.js';
import type { TokenStore } from '../services/token-store.js';
import { authenticateBearer, bearerToken } from './auth.js';
import { headerPairs, TOLERANCE_SECONDS, verifyPush } from './cloudevents-signature.js';
import { answerIntakeError, answerJson, guardedIntake, readIntakeBody } from './intake.js';
import { RecentIds } from './recent-ids.js';

/**
 * `POST /events/cloudevents?source=<name>`: vCenter events pushed by an event broker (VEBA,
 * Knative) as CloudEvents over HTTP — structured (`application/cloudevents+json`), batched
 * (`application/cloudevents-batch+json`) or binary (`ce-*` headers, the event in the body). The
 * caller is an ingester token (`Authorization: Bearer`, then `source` names the vCenter as its ids
 * do) or a push source signing the request with its own secret: timestamp, source, content-type,
 * `ce-*` headers and body (scheme `v0`, see cloudevents-signature.ts), within 5 minutes of the
 * server's clock. Unsigned, wrongly signed, out of time, the old body-only `sha256=` scheme, or a
 * source without a secret → 401 and nothing stored. A signed request carrying a CloudEvent id the
 * source had accepted within the window is a replay → 409 `REPLAYED`, nothing stored. The events
 * go through ingestVcenterEvents (audited); history is append-only (conflicts in the answer).
 *
 * Whatever a client sends — a cut-off body, a reset socket, garbage — the handler answers or
 * drops that one request; nothing it does can reject unhandled (the process would exit).
 */

/** A source allowed to push, and the vCenter name its events are stored under. */
export interface PushSource {
  server: string;
  /** HMAC-SHA256 key for `X-Aitia-Signature`; null: only ingester tokens may push for it. */
  secret: string | null;
}

export interface CloudEventsOptions {
  /** Body limit (AITIA_MAX_BODY_BYTES); default 1 MiB. */
  maxBodyBytes?: number;
  /** The accepted event ids (tests pass their own); default a fresh one per handler. */
  recentIds?: RecentIds;
}

export const CLOUDEVENTS_PATH = '/events/cloudevents';
const DEFAULT_MAX_BODY = 1024 * 1024;

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

/** What a replay is recognised by: the push source, the CloudEvent's source and id (else its content). */
export function replayKey(pushSource: string, event: unknown): string {
  const e = (typeof event === 'object' && event !== null ? event : {}) as { id?: unknown; source?: unknown };
  if (typeof e.id === 'string' || typeof e.id === 'number')
    return `${pushSource}\n${typeof e.source === 'string' ? e.source : ''}\n${String(e.id)}`;
  return `${pushSource}\n#${createHash('sha256')
    .update(JSON.stringify(event ?? null))
    .digest('hex')}`;
}

const UNSIGNED =
  'unauthenticated: send an ingester bearer token, or sign the request (X-Aitia-Timestamp: <unix seconds>, X-Aitia-Signature: v0=<hex HMAC-SHA256>) with the secret of the source named by ?source=';

export function createCloudEventsHandler(
  deps: ServiceDeps,
  tokens: TokenStore,
  sources: ReadonlyMap<string, PushSource>,
  options: CloudEventsOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const recent = options.recentIds ?? new RecentIds();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') {
      req.resume();
      return answerJson(res, 405, { error: 'POST CloudEvents here' }, { allow: 'POST' });
    }
    const body = await readIntakeBody(req, res, maxBody);
    if (!body) return;
    let name: string;
    try {
      name = new URL(req.url ?? '/', 'http://x').searchParams.get('source') ?? '';
    } catch {
      return answerJson(res, 400, { error: 'request target: not a URL path' }, { connection: 'close' });
    }
    let principal: Principal;
    let server: string;
    let signedAt: number | null = null;
    const token = bearerToken(req.headers.authorization);
    if (token) {
      const checked = await authenticateBearer(deps, tokens, token);
      if (!checked.ok) return answerJson(res, 401, { error: checked.message });
      principal = checked.principal;
      server = sources.get(name)?.server ?? name;
    } else {
      const source = sources.get(name);
      const signature = req.headers['x-aitia-signature'];
      // No secret (or no such source): fail closed, and the same answer either way.
      if (!source?.secret || typeof signature !== 'string') return answerJson(res, 401, { error: UNSIGNED });
      const check = verifyPush({
        secret: source.secret,
        source: name,
        timestamp: typeof req.headers['x-aitia-timestamp'] === 'string' ? req.headers['x-aitia-timestamp'] : undefined,
        signature,
        headers: headerPairs(req.rawHeaders),
        body,
        nowSeconds: Math.floor(DateTime.fromISO(nowOf(deps)).toSeconds()),
      });
      if (!check.ok) return answerJson(res, 401, { error: check.reason, code: 'UNAUTHENTICATED' });
      principal = { name: `push:${name}`, role: 'ingester' };
      server = source.server;
      signedAt = check.timestamp;
    }
    if (server === '') return answerJson(res, 400, { error: 'source: name the vCenter (?source=<name>)' });
    let remembered: string[] = [];
    try {
      const events = cloudEventsOf(String(req.headers['content-type'] ?? ''), req.headers, body);
      if (signedAt !== null) {
        const nowMs = DateTime.fromISO(nowOf(deps)).toMillis();
        const keys = [...new Set(events.map((e) => replayKey(name, e)))];
        const seen = keys.filter((k) => recent.has(k, nowMs));
        if (seen.length > 0)
          return answerJson(res, 409, {
            error: `replayed: ${seen.length} of this request's CloudEvents (${seen.map((k) => k.split('\n').pop()).join(', ')}) were accepted from source ${name} within the last ${TOLERANCE_SECONDS} s; nothing stored`,
            code: 'REPLAYED',
          });
        // Held from now, so a concurrent copy of the same request is a replay too.
        for (const k of keys) recent.add(k, (signedAt + TOLERANCE_SECONDS) * 1000, nowMs);
        remembered = keys;
      }
      // Under the whole-request Neo4j deadline: a broker is told 503 + Retry-After, not left hanging.
      const result = await withNeo4jDeadline(deps, () => ingestVcenterEvents(deps, principal, { server, events }));
      remembered = [];
      if (result.conflicts.length > 0)
        deps.log.warn(
          { source: name, conflicts: result.conflicts },
          'cloudevents: pushed events conflict with history',
        );
      return answerJson(res, 200, result);
    } catch (err) {
      return answerIntakeError(res, err);
    } finally {
      // Not accepted after all: the broker's retry must get through.
      for (const k of remembered) recent.delete(k);
    }
  };

  return guardedIntake(deps.log, 'cloudevents', handle);
}
