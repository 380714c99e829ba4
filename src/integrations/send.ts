import http from 'node:http';
import https from 'node:https';
import { boundedRequest } from '../ingest/bounded-request.js';
import type { NotificationTarget } from './integrations-file.js';
import type { NotificationMessage } from './notification-events.js';
import { slackMessage } from './slack-message.js';
import { idempotencyKey, signedHeaders, webhookBody } from './webhook-message.js';

/**
 * One POST of one notification to one target, bounded (an answer within the timeout, at most
 * 64 KiB of it read): a signed JSON body for a webhook, the Block Kit message for Slack; both
 * carry the idempotency key in `Idempotency-Key`. Answers the status and the answer's text; a
 * transport failure or a timeout is thrown as an Error saying which.
 */

const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
const MAX_ANSWER_BYTES = 64 * 1024;

export interface SendAnswer {
  status: number;
  body: string;
}

/** The body and headers a target gets for a message (signed at `nowMs` for a webhook). */
export function requestFor(
  target: NotificationTarget,
  m: NotificationMessage,
  publicUrl: string,
  nowMs: number,
  key: string = idempotencyKey(target.name, m.seq),
): { body: string; headers: Record<string, string> } {
  if (target.kind === 'slack') {
    const body = JSON.stringify(slackMessage(m, publicUrl));
    return { body, headers: { 'content-type': 'application/json', 'idempotency-key': key } };
  }
  const body = JSON.stringify({ ...webhookBody(target.name, m), id: key });
  return { body, headers: signedHeaders(target.secret ?? '', key, body, nowMs) };
}

export async function sendNotification(
  target: NotificationTarget,
  m: NotificationMessage,
  options: { publicUrl: string; timeoutMs: number; nowMs?: number; key?: string },
): Promise<SendAnswer> {
  const { body, headers } = requestFor(target, m, options.publicUrl, options.nowMs ?? Date.now(), options.key);
  const url = new URL(target.url);
  const answer = await boundedRequest(
    url,
    {
      method: 'POST',
      agent: url.protocol === 'https:' ? agents.https : agents.http,
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'aitia-notify' },
      body,
      timeoutMs: options.timeoutMs,
      maxBodyBytes: MAX_ANSWER_BYTES,
    },
    (f) =>
      new Error(
        f.kind === 'transport'
          ? `cannot reach ${url.host}: ${(f.err as Error)?.message ?? String(f.err)}`
          : f.kind === 'timeout'
            ? `${url.host} did not answer within ${options.timeoutMs} ms`
            : f.kind === 'too_large'
              ? `${url.host} answered more than ${MAX_ANSWER_BYTES} bytes`
              : `${url.host} closed the connection mid-answer`,
      ),
  );
  return { status: answer.status, body: answer.body };
}
