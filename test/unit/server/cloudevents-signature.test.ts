import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  canonicalHeaders,
  headerPairs,
  type HeaderPairs,
  signPush,
  TOLERANCE_SECONDS,
  verifyPush,
} from '../../../src/server/cloudevents-signature.js';
import { RecentIds } from '../../../src/server/recent-ids.js';

const SECRET = 'push-secret-0123456789';
const NOW = 1_779_000_000;
const headers: HeaderPairs = [
  ['Content-Type', 'application/json'],
  ['ce-id', 'abc-1'],
  ['ce-type', 'com.vmware.vsphere.VmPoweredOffEvent.v0'],
  ['ce-subject', 'VmPoweredOffEvent'],
  ['ce-source', 'https://vc01/sdk'],
  ['ce-specversion', '1.0'],
  ['Host', 'aitia:8080'],
];
const body = Buffer.from('{"Key":9902,"CreatedTime":"2026-05-14T02:08:30Z"}');
const signed = { timestamp: String(NOW), source: 'vc01', headers, body };
const signature = signPush(SECRET, signed);

function check(changes: Partial<Parameters<typeof verifyPush>[0]> = {}) {
  return verifyPush({
    secret: SECRET,
    source: 'vc01',
    timestamp: String(NOW),
    signature,
    headers,
    body,
    nowSeconds: NOW,
    ...changes,
  });
}

const replaced = (name: string, value: string): HeaderPairs =>
  headers.map(([n, v]) => [n, n.toLowerCase() === name ? value : v] as const);

describe('the v0 push signature', () => {
  it('holds for the request as signed, whatever the header order, name case or unsigned headers', () => {
    expect(check()).toEqual({ ok: true, timestamp: NOW });
    const reordered: HeaderPairs = [...headers].reverse().map(([n, v]) => [n.toUpperCase(), v] as const);
    expect(check({ headers: [...reordered, ['X-Forwarded-For', '10.0.0.9'], ['User-Agent', 'veba']] })).toMatchObject({
      ok: true,
    });
  });

  it.each([
    ['ce-type relabelled', { headers: replaced('ce-type', 'com.vmware.vsphere.VmPoweredOnEvent.v0') }],
    ['ce-subject relabelled', { headers: replaced('ce-subject', 'VmPoweredOnEvent') }],
    ['ce-id changed', { headers: replaced('ce-id', 'abc-2') }],
    ['ce-source changed', { headers: replaced('ce-source', 'https://vc02/sdk') }],
    ['content-type changed (another mode)', { headers: replaced('content-type', 'application/cloudevents+json') }],
    ['a ce-* header added', { headers: [...headers, ['ce-dataschema', 'x']] as HeaderPairs }],
    ['a ce-* header dropped', { headers: headers.filter(([n]) => n !== 'ce-subject') }],
    ['content-type dropped', { headers: headers.filter(([n]) => n !== 'Content-Type') }],
    ['the source', { source: 'vc02' }],
    ['the timestamp', { timestamp: String(NOW + 1) }],
    ['the body', { body: Buffer.from(body.toString().replace('9902', '9903')) }],
    ['a byte appended to the body', { body: Buffer.concat([body, Buffer.from(' ')]) }],
    ['another secret', { secret: 'another-secret-0123456789' }],
  ])('fails when %s', (_what, changes) => {
    expect(check(changes)).toEqual({ ok: false, reason: expect.stringMatching(/^X-Aitia-Signature: does not match/) });
  });

  it('a header value cannot be moved into the body (each header ends with a newline)', () => {
    const withColon: HeaderPairs = [...headers, ['ce-x', 'a:b']];
    const sig = signPush(SECRET, { ...signed, headers: withColon });
    expect(check({ headers: withColon, signature: sig })).toMatchObject({ ok: true });
    const moved: HeaderPairs = [...headers, ['ce-x', 'a']];
    expect(check({ headers: moved, signature: sig, body: Buffer.concat([Buffer.from('b:'), body]) })).toMatchObject({
      ok: false,
    });
  });

  it.each([
    ['old', NOW - TOLERANCE_SECONDS - 1, /is 301 s before the server's clock/],
    ['far in the future', NOW + TOLERANCE_SECONDS + 1, /is 301 s after the server's clock/],
    ['a day old', NOW - 86_400, /is 86400 s before/],
  ])('a timestamp %s fails, even correctly signed', (_what, ts, reason) => {
    const sig = signPush(SECRET, { ...signed, timestamp: String(ts) });
    expect(check({ timestamp: String(ts), signature: sig })).toEqual({
      ok: false,
      reason: expect.stringMatching(reason),
    });
  });

  it('a timestamp at the edge of the window holds, either way', () => {
    for (const ts of [NOW - TOLERANCE_SECONDS, NOW + TOLERANCE_SECONDS]) {
      const sig = signPush(SECRET, { ...signed, timestamp: String(ts) });
      expect(check({ timestamp: String(ts), signature: sig })).toEqual({ ok: true, timestamp: ts });
    }
  });

  it.each([
    ['missing', undefined],
    ['not a number', 'yesterday'],
    ['in milliseconds with a fraction', '1779000000.5'],
    ['negative', '-1'],
    ['empty', ''],
  ])('a timestamp %s fails, naming X-Aitia-Timestamp', (_what, ts) => {
    expect(check({ timestamp: ts })).toEqual({ ok: false, reason: expect.stringMatching(/^X-Aitia-Timestamp: /) });
  });

  it('the body-only sha256= scheme is refused, saying to sign v0', () => {
    const old = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    expect(check({ signature: old })).toEqual({
      ok: false,
      reason: expect.stringMatching(/sha256= scheme is no longer accepted.*sign v0/),
    });
  });

  it.each([undefined, '', 'v0=', 'v0=abc', `v1=${'0'.repeat(64)}`, `v0=${'g'.repeat(64)}`, 'Bearer x'])(
    'a malformed signature %j fails',
    (sig) => {
      expect(check({ signature: sig })).toEqual({ ok: false, reason: expect.stringMatching(/^X-Aitia-Signature: /) });
    },
  );

  it('a signed header given twice is refused: two values could be read two ways', () => {
    expect(check({ headers: [...headers, ['CE-Type', 'other']] })).toEqual({
      ok: false,
      reason: 'headers: ce-type is given more than once; send each signed header once',
    });
  });

  it('the canonical fold: content-type and ce-* only, lowercased, sorted, one per line', () => {
    expect(canonicalHeaders(headers)).toEqual({
      ok: true,
      text: 'ce-id=abc-1\nce-source=https://vc01/sdk\nce-specversion=1.0\nce-subject=VmPoweredOffEvent\nce-type=com.vmware.vsphere.VmPoweredOffEvent.v0\ncontent-type=application/json\n',
    });
    expect(canonicalHeaders([])).toEqual({ ok: true, text: 'content-type=\n' });
    expect(headerPairs(['A', '1', 'B', '2'])).toEqual([
      ['A', '1'],
      ['B', '2'],
    ]);
  });

  it('matches an independent HMAC over the documented base string', () => {
    const base = `v0:${NOW}:vc01:${(canonicalHeaders(headers) as { text: string }).text}:${body.toString()}`;
    expect(signature).toBe(`v0=${createHmac('sha256', SECRET).update(base).digest('hex')}`);
  });
});

describe('RecentIds', () => {
  it('remembers a key until its window ends, forgets on request, and stays within its capacity', () => {
    const ids = new RecentIds(3);
    ids.add('a', 2_000, 0);
    expect(ids.has('a', 1_999)).toBe(true);
    expect(ids.has('a', 2_000)).toBe(false);
    ids.add('b', 5_000, 0);
    ids.delete('b');
    expect(ids.has('b', 0)).toBe(false);
    for (const k of ['c', 'd', 'e', 'f']) ids.add(k, 10_000, 0);
    expect(ids.size).toBe(3);
    expect(ids.has('c', 0)).toBe(false);
    expect(ids.has('f', 0)).toBe(true);
  });
});
