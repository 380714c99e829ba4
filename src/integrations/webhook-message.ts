import { createHmac, timingSafeEqual } from 'node:crypto';
import type { NotificationMessage } from './notification-events.js';

/**
 * The generic webhook (pure): a JSON body and its signature, after Slack's `v0` scheme —
 *
 *   X-Aitia-Timestamp: <Unix seconds when aitia signed>
 *   X-Aitia-Signature: v0=<hex HMAC-SHA256 of "v0:{timestamp}:{body}" under the target's secret>
 *   Idempotency-Key: <target>:<feed seq>
 *
 * The id is the idempotency key: delivery is at-least-once, so a receiver that has seen an id
 * drops the repeat. Receivers should refuse a timestamp more than five minutes from their clock
 * (docs/notifications.md shows the check). The push signature of src/server/cloudevents-signature.ts
 * signs a source name and headers too; a notification has neither, so its base string is shorter.
 */

export const SIGNATURE_TOLERANCE_SECONDS = 300;

export interface WebhookBody {
  id: string;
  event: string;
  at: string;
  resource: string;
  payload: Record<string, unknown>;
}

/** The idempotency key of one delivery: the target and the feed entry's sequence. */
export function idempotencyKey(target: string, seq: number): string {
  return `${target}:${seq}`;
}

export function webhookBody(target: string, m: NotificationMessage): WebhookBody {
  return { id: idempotencyKey(target, m.seq), event: m.event, at: m.at, resource: m.resourceId, payload: m.payload };
}

/** `v0=<hex>` over "v0:{timestamp}:{body}". */
export function signWebhook(secret: string, timestamp: string, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`, 'utf8').digest('hex')}`;
}

/** The headers a signed POST carries (the body must be sent byte for byte as signed). */
export function signedHeaders(secret: string, key: string, body: string, nowMs: number): Record<string, string> {
  const timestamp = String(Math.floor(nowMs / 1000));
  return {
    'content-type': 'application/json',
    'idempotency-key': key,
    'x-aitia-timestamp': timestamp,
    'x-aitia-signature': signWebhook(secret, timestamp, body),
  };
}

/** A receiver's check, as docs/notifications.md shows it: the signature holds and the time is recent. */
export function verifyWebhook(
  secret: string,
  headers: { timestamp: string | undefined; signature: string | undefined },
  body: string,
  nowMs: number,
): boolean {
  const { timestamp, signature } = headers;
  if (!timestamp || !/^\d{1,12}$/.test(timestamp) || !signature) return false;
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > SIGNATURE_TOLERANCE_SECONDS) return false;
  const want = Buffer.from(signWebhook(secret, timestamp, body));
  const got = Buffer.from(signature);
  return want.length === got.length && timingSafeEqual(want, got);
}
