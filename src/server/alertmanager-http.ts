import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DateTime } from 'luxon';
import { receiveAlerts } from '../services/alerts.js';
import { withNeo4jDeadline } from '../services/deadline.js';
import { nowOf, type ServiceDeps } from '../services/deps.js';
import type { Principal } from '../services/permissions.js';
import type { TokenStore } from '../services/token-store.js';
import { authenticateBearer, bearerToken } from './auth.js';
import { answerIntakeError, answerJson, guardedIntake, readIntakeBody } from './intake.js';
import { RecentIds } from './recent-ids.js';

/**
 * `POST /integrations/alertmanager`: Alertmanager's webhook receiver (`webhook_configs`, payload
 * version 4). The caller is an ingester token (`http_config.authorization.credentials` in
 * Alertmanager's config — the way Alertmanager itself authenticates), or a relay signing the
 * request as aitia signs its own webhooks: `X-Aitia-Timestamp: <unix seconds>` and
 * `X-Aitia-Signature: v0=<hex HMAC-SHA256 of "v0:{timestamp}:{body}">` under
 * `alertmanager.receiver_secret` of the integrations file, within 5 minutes of the server's clock
 * (a signed request seen within that window is a replay: 409). Anything else → 401, nothing
 * stored. The alerts are stored as feed entries in one write (services/alerts.ts) and the answer
 * is 200 with their count; delivery to the notification targets follows from the feed.
 */

export const ALERTMANAGER_PATH = '/integrations/alertmanager';
export const RECEIVER_TOLERANCE_SECONDS = 300;

export interface AlertReceiverOptions {
  /** alertmanager.labels of the integrations file (none: every alert is stored unmatched). */
  labels: Readonly<Record<string, string>>;
  /** alertmanager.receiver_secret: the key of X-Aitia-Signature; null: bearer tokens only. */
  secret: string | null;
  maxBodyBytes: number;
  enrichBudgetMs?: number;
}

/** Why a signed request is refused, or null when it holds at `nowSeconds`. */
export function checkReceiverSignature(
  secret: string,
  headers: { timestamp: string | undefined; signature: string | undefined },
  body: Buffer,
  nowSeconds: number,
): string | null {
  const timestamp = (headers.timestamp ?? '').trim();
  if (!/^\d{1,12}$/.test(timestamp)) return 'X-Aitia-Timestamp: expected the signing time in Unix seconds';
  const m = /^v0=([0-9a-f]{64})$/i.exec((headers.signature ?? '').trim());
  if (!m) return 'X-Aitia-Signature: expected v0=<64 hex digits> (HMAC-SHA256 of "v0:{timestamp}:{body}")';
  const want = createHmac('sha256', secret).update(`v0:${timestamp}:`, 'utf8').update(body).digest();
  if (!timingSafeEqual(want, Buffer.from(m[1]!, 'hex')))
    return 'X-Aitia-Signature: does not match this request under alertmanager.receiver_secret';
  const skew = Number(timestamp) - nowSeconds;
  if (Math.abs(skew) > RECEIVER_TOLERANCE_SECONDS)
    return `X-Aitia-Timestamp: ${timestamp} is ${Math.abs(skew)} s ${skew < 0 ? 'before' : 'after'} the server's clock; a signature holds for ${RECEIVER_TOLERANCE_SECONDS} s: sign again with the current time`;
  return null;
}

const UNAUTHENTICATED =
  'unauthenticated: send an ingester bearer token (Alertmanager: http_config.authorization.credentials), or sign the request (X-Aitia-Timestamp, X-Aitia-Signature: v0=<hex HMAC-SHA256 of "v0:{timestamp}:{body}">) with alertmanager.receiver_secret';

export function createAlertReceiver(
  deps: ServiceDeps,
  tokens: TokenStore,
  options: AlertReceiverOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  const recent = new RecentIds(10_000);
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') {
      req.resume();
      return answerJson(res, 405, { error: 'POST Alertmanager webhook payloads here' }, { allow: 'POST' });
    }
    const body = await readIntakeBody(req, res, options.maxBodyBytes);
    if (!body) return;
    let principal: Principal;
    let replayKey: string | null = null;
    const token = bearerToken(req.headers.authorization);
    const signature = req.headers['x-aitia-signature'];
    if (token || typeof signature !== 'string' || !options.secret) {
      const checked = await authenticateBearer(deps, tokens, token);
      if (!checked.ok)
        return answerJson(res, 401, { error: token ? checked.message : UNAUTHENTICATED, code: 'UNAUTHENTICATED' });
      principal = checked.principal;
    } else {
      const timestamp = req.headers['x-aitia-timestamp'];
      const nowMs = DateTime.fromISO(nowOf(deps)).toMillis();
      const why = checkReceiverSignature(
        options.secret,
        { timestamp: typeof timestamp === 'string' ? timestamp : undefined, signature },
        body,
        Math.floor(nowMs / 1000),
      );
      if (why) return answerJson(res, 401, { error: why, code: 'UNAUTHENTICATED' });
      replayKey = signature.trim().toLowerCase();
      if (recent.has(replayKey, nowMs))
        return answerJson(res, 409, {
          error: 'replayed: this signed request was accepted within the last 300 s; nothing stored',
          code: 'REPLAYED',
        });
      recent.add(replayKey, nowMs + RECEIVER_TOLERANCE_SECONDS * 1000, nowMs);
      principal = { name: 'alertmanager-receiver (signed)', role: 'ingester' };
    }
    try {
      const payload = JSON.parse(body.toString('utf8')) as unknown;
      const result = await withNeo4jDeadline(deps, () =>
        receiveAlerts(deps, principal, {
          body: payload,
          labels: options.labels,
          enrichBudgetMs: options.enrichBudgetMs,
        }),
      );
      replayKey = null;
      return answerJson(res, 200, result);
    } catch (err) {
      return answerIntakeError(res, err);
    } finally {
      // Not stored after all: the sender's retry must get through.
      if (replayKey) recent.delete(replayKey);
    }
  };
  return guardedIntake(deps.log, 'alertmanager receiver', handle);
}
