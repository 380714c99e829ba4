import { createHmac, timingSafeEqual } from 'node:crypto';
import { DateTime } from 'luxon';

/**
 * The push signature (scheme `v0`, after Slack's): a broker sends
 *
 *   X-Aitia-Timestamp: <Unix seconds when it signed>
 *   X-Aitia-Signature: v0=<hex HMAC-SHA256 of the base string under the source's secret>
 *
 * and the base string is the bytes of
 *
 *   v0:{timestamp}:{source}:{headers}:{body}
 *
 * - `timestamp`: the X-Aitia-Timestamp value as sent (decimal digits);
 * - `source`: the `?source=` name the request is sent to;
 * - `headers`: `content-type` and every `ce-*` header the request carries, names lowercased and
 *   sorted (byte order), each as `name=value` followed by a newline (`\n`); values as received,
 *   without the surrounding whitespace HTTP drops. `content-type` is always there (empty value when
 *   the request has none): it decides structured or binary mode. Each of these headers may appear
 *   once; a repeated one is refused (two values could be read two ways);
 * - `body`: the raw body bytes.
 *
 * The newline after each header ends its value (a value cannot hold one), so no header's tail
 * can be moved into the body. A timestamp more than {@link TOLERANCE_SECONDS} from the server's
 * clock, either way, is refused: a captured push is only good that long (and the handler
 * remembers the event ids it accepted for that long). The older body-only `sha256=` scheme let
 * the `ce-*` headers be relabelled and had no time: it is refused with a pointer to `v0`.
 * Everything here is pure; the handler passes the clock.
 */

export const TOLERANCE_SECONDS = 300;

/** The result of checking a push: the signing time when it holds, else why not (the 401's text). */
export type PushCheck = { ok: true; timestamp: number } | { ok: false; reason: string };

/** Header pairs as the request carries them (Node's `rawHeaders`, pairwise). */
export type HeaderPairs = ReadonlyArray<readonly [string, string]>;

export function headerPairs(rawHeaders: readonly string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) pairs.push([rawHeaders[i]!, rawHeaders[i + 1]!]);
  return pairs;
}

const isSigned = (name: string) => name === 'content-type' || name.startsWith('ce-');

/** The `headers` part of the base string, or which header is repeated. */
export function canonicalHeaders(headers: HeaderPairs): { ok: true; text: string } | { ok: false; reason: string } {
  const byName = new Map<string, string>();
  for (const [rawName, value] of headers) {
    const name = rawName.toLowerCase();
    if (!isSigned(name)) continue;
    if (byName.has(name))
      return { ok: false, reason: `headers: ${name} is given more than once; send each signed header once` };
    byName.set(name, value.trim());
  }
  if (!byName.has('content-type')) byName.set('content-type', '');
  const names = [...byName.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { ok: true, text: names.map((n) => `${n}=${byName.get(n)}\n`).join('') };
}

function hmac(secret: string, timestamp: string, source: string, headers: string, body: Buffer): Buffer {
  return createHmac('sha256', secret).update(`v0:${timestamp}:${source}:${headers}:`, 'utf8').update(body).digest();
}

/** `v0=<hex>` for a push: what a broker (or a test) sends as X-Aitia-Signature. */
export function signPush(
  secret: string,
  push: { timestamp: string; source: string; headers: HeaderPairs; body: Buffer | string },
): string {
  const canonical = canonicalHeaders(push.headers);
  if (!canonical.ok) throw new Error(canonical.reason);
  const body = typeof push.body === 'string' ? Buffer.from(push.body, 'utf8') : push.body;
  return `v0=${hmac(secret, push.timestamp, push.source, canonical.text, body).toString('hex')}`;
}

const UNIX_SECONDS = /^\d{1,12}$/;
const V0 = /^v0=([0-9a-f]{64})$/i;

/**
 * Checks a signed push against the source's secret at `nowSeconds` (the server's clock, UTC Unix
 * seconds): the signature's form, its match over timestamp, source, headers and body (constant
 * time), then the time window.
 */
export function verifyPush(push: {
  secret: string;
  source: string;
  timestamp: string | undefined;
  signature: string | undefined;
  headers: HeaderPairs;
  body: Buffer;
  nowSeconds: number;
}): PushCheck {
  const signature = (push.signature ?? '').trim();
  if (/^sha256=/i.test(signature))
    return {
      ok: false,
      reason:
        'X-Aitia-Signature: the body-only sha256= scheme is no longer accepted (it left the ce-* headers and the time unsigned); sign v0: X-Aitia-Timestamp: <unix seconds>, X-Aitia-Signature: v0=<hex HMAC-SHA256 of v0:{timestamp}:{source}:{content-type and ce-* headers}:{body}>',
    };
  const m = V0.exec(signature);
  if (!m) return { ok: false, reason: 'X-Aitia-Signature: expected v0=<64 hex digits> (HMAC-SHA256)' };
  const timestamp = (push.timestamp ?? '').trim();
  if (!UNIX_SECONDS.test(timestamp))
    return { ok: false, reason: 'X-Aitia-Timestamp: expected the signing time in Unix seconds (decimal digits)' };
  const canonical = canonicalHeaders(push.headers);
  if (!canonical.ok) return canonical;
  const expected = hmac(push.secret, timestamp, push.source, canonical.text, push.body);
  if (!timingSafeEqual(expected, Buffer.from(m[1]!, 'hex')))
    return {
      ok: false,
      reason: `X-Aitia-Signature: does not match this request under the secret of source ${push.source} (signed: timestamp, source, content-type, ce-* headers, body)`,
    };
  const ts = Number(timestamp);
  const skew = ts - push.nowSeconds;
  if (Math.abs(skew) > TOLERANCE_SECONDS)
    return {
      ok: false,
      reason: `X-Aitia-Timestamp: ${timestamp} is ${Math.abs(skew)} s ${skew < 0 ? 'before' : 'after'} the server's clock (${DateTime.fromSeconds(push.nowSeconds, { zone: 'utc' }).toISO({ suppressMilliseconds: true })}); a signature holds for ${TOLERANCE_SECONDS} s either way: sign again with the current time`,
    };
  return { ok: true, timestamp: ts };
}
