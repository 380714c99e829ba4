import { describe, expect, it } from 'vitest';
import type { FeedEntry } from '../../../src/model/index.js';
import { backoffMs, retryLeft } from '../../../src/integrations/backoff.js';
import { notificationOf, type NotificationMessage } from '../../../src/integrations/notification-events.js';
import { consoleLink, slackMessage } from '../../../src/integrations/slack-message.js';
import { signWebhook, signedHeaders, verifyWebhook, webhookBody } from '../../../src/integrations/webhook-message.js';

const RID = 'proxmox:lab/qemu/101';
const entry = (topic: FeedEntry['topic'], change: string, payload: unknown): FeedEntry => ({
  seq: 7,
  topic,
  resourceId: RID,
  change,
  at: '2026-05-14T02:08:31.000Z',
  payload,
});
const transition = (confidence: string) => ({
  id: 't1',
  kind: 'vm',
  from: 'running',
  to: 'stopped',
  observedAt: '2026-05-14T02:08:31.000Z',
  attribution: { confidence },
  narrative: 'stopped — cause unknown',
});
const condition = (over: Record<string, unknown>) => ({
  id: 'c1',
  type: 'unexpected_stop',
  status: 'open',
  resourceId: RID,
  openedAt: '2026-05-14T02:08:31.000Z',
  resolvedAt: null,
  evidence: {},
  attribution: null,
  causeTransitionId: null,
  suppressed: false,
  wouldSuppress: false,
  suppressionReasons: [],
  policyDigest: null,
  ...over,
});
const approval = {
  id: 'a1',
  action: 'vm.stop',
  targetId: RID,
  targetName: 'web01',
  requester: 'agent',
  status: 'pending',
};

describe('feed entries as notifications', () => {
  it.each([
    ['a transition nobody explains', entry('transition', 'observed', transition('none')), 'transition.unexplained'],
    ['a transition with a cause', entry('transition', 'observed', transition('high')), null],
    ['a condition opened', entry('condition', 'opened', condition({})), 'condition.opened'],
    [
      'a condition opened suppressed',
      entry('condition', 'suppressed', condition({ suppressed: true })),
      'condition.opened',
    ],
    ['a condition resolved', entry('condition', 'resolved', condition({ status: 'resolved' })), 'condition.resolved'],
    ['a health change', entry('health', 'changed', { state: 'failing' }), null],
    [
      'an approval requested',
      entry('approval', 'requested', { approval, actor: 'agent', redeem: null }),
      'approval.requested',
    ],
    [
      'an approval approved',
      entry('approval', 'approved', { approval, actor: 'alice', redeem: null }),
      'approval.decided',
    ],
    ['an approval denied', entry('approval', 'denied', { approval, actor: 'alice', redeem: null }), 'approval.decided'],
    [
      'a grant redeemed',
      entry('approval', 'redeemed', { approval, actor: 'agent', redeem: { outcome: 'redeemed' } }),
      'grant.redeemed',
    ],
    [
      'a grant refused',
      entry('approval', 'refused', { approval, actor: 'agent', redeem: { outcome: 'refused', code: 'INPUTS_DIFFER' } }),
      'grant.refused',
    ],
    ['an unreadable payload', entry('condition', 'opened', null), null],
  ])('%s', (_what, e, event) => {
    expect(notificationOf(e)?.event ?? null).toBe(event);
  });

  it('a condition carries its cause, expected, suppressed and narrative', () => {
    const caused = notificationOf(
      entry(
        'condition',
        'suppressed',
        condition({
          suppressed: true,
          causeTransitionId: 't1',
          attribution: {
            transitionId: 't1',
            confidence: 'high',
            actor: 'alice@pve',
            actorKind: 'human',
            narrative: 'stopped by alice@pve',
          },
        }),
      ),
    );
    expect(caused?.payload).toMatchObject({
      cause: { transitionId: 't1', actor: 'alice@pve', confidence: 'high' },
      expected: true,
      suppressed: true,
      narrative: 'stopped by alice@pve',
    });
    const unknown = notificationOf(entry('condition', 'opened', condition({})));
    expect(unknown?.payload).toMatchObject({
      cause: null,
      expected: false,
      suppressed: false,
      narrative: 'cause unknown',
    });
  });
});

const message: NotificationMessage = notificationOf(
  entry('approval', 'requested', { approval, actor: 'agent', redeem: null }),
)!;

describe('the webhook body and its signature', () => {
  it('the body has the idempotency key as id, the event, time, resource and payload', () => {
    expect(webhookBody('ops', message)).toMatchObject({
      id: 'ops:7',
      event: 'approval.requested',
      at: '2026-05-14T02:08:31.000Z',
      resource: RID,
    });
  });

  it('signs "v0:{ts}:{body}" with HMAC-SHA256 and a receiver verifies it within five minutes', () => {
    const body = JSON.stringify(webhookBody('ops', message));
    const now = Date.UTC(2026, 4, 14, 2, 9);
    const h = signedHeaders('s'.repeat(32), 'ops:7', body, now);
    expect(h['x-aitia-timestamp']).toBe(String(now / 1000));
    expect(h['x-aitia-signature']).toMatch(/^v0=[0-9a-f]{64}$/);
    expect(h['idempotency-key']).toBe('ops:7');
    // a known vector: HMAC-SHA256("key", "v0:1:{}")
    expect(signWebhook('key', '1', '{}')).toBe('v0=236beeb373582a83005d170cf7966f7bc1bc3d8e39280320817c04d7ea3fab6e');
    const check = (over: Partial<{ ts: string; sig: string; body: string; now: number }>) =>
      verifyWebhook(
        's'.repeat(32),
        { timestamp: over.ts ?? h['x-aitia-timestamp'], signature: over.sig ?? h['x-aitia-signature'] },
        over.body ?? body,
        over.now ?? now,
      );
    expect(check({})).toBe(true);
    expect(check({ body: body.replace('web01', 'web02') })).toBe(false);
    expect(check({ ts: String(now / 1000 + 1) })).toBe(false);
    expect(check({ now: now + 301_000 })).toBe(false);
    expect(check({ sig: 'v0=00' })).toBe(false);
  });
});

/** A confirm object: Slack's dialog, with a title (its own `confirm` field is a button label). */
const confirmOf = (o: Record<string, unknown>) =>
  typeof o.confirm === 'object' && o.confirm !== null && 'title' in o.confirm
    ? [o.confirm as Record<string, unknown>]
    : [];

/** Every object under `v` (depth first). */
function objects(v: unknown): Array<Record<string, unknown>> {
  if (v === null || typeof v !== 'object') return [];
  const self = Array.isArray(v) ? [] : [v as Record<string, unknown>];
  return [...self, ...Object.values(v).flatMap(objects)];
}

describe('the Slack message', () => {
  const messages = [
    message,
    notificationOf(entry('approval', 'approved', { approval, actor: 'alice', redeem: null }))!,
    notificationOf(entry('condition', 'opened', condition({})))!,
    notificationOf(entry('transition', 'observed', transition('none')))!,
  ];

  it.each(messages.map((m) => [m.event, m] as const))(
    '%s: every confirm text and button text is plain_text',
    (_e, m) => {
      const body = slackMessage(m, 'https://aitia.lan');
      const confirms = objects(body).flatMap(confirmOf);
      for (const c of confirms)
        for (const key of ['title', 'text', 'confirm', 'deny'])
          expect((c[key] as { type: string }).type).toBe('plain_text');
      const buttons = objects(body).filter((o) => o.type === 'button');
      expect(buttons.length).toBe(1);
      for (const b of buttons) expect((b.text as { type: string }).type).toBe('plain_text');
      expect(typeof body.text).toBe('string');
    },
  );

  it('an approval request asks to confirm, in plain text', () => {
    const confirms = objects(slackMessage(message, 'https://aitia.lan')).flatMap(confirmOf);
    expect(confirms.length).toBe(1);
  });

  it('links approvals to the inbox and the rest to the resource page; escapes mrkdwn', () => {
    expect(consoleLink('https://aitia.lan/', message)).toBe('https://aitia.lan/console#/inbox');
    expect(consoleLink('http://127.0.0.1:4000', messages[2]!)).toBe(
      `http://127.0.0.1:4000/console#/resource/${encodeURIComponent(RID)}`,
    );
    const tricky = {
      ...message,
      payload: { ...message.payload, approval: { ...approval, targetName: '<!here> & co' } },
    };
    expect(JSON.stringify(slackMessage(tricky, 'https://aitia.lan'))).toContain('&lt;!here&gt; &amp; co');
  });
});

describe('backoff with full jitter', () => {
  const policy = { baseMs: 100, capMs: 1000, budget: 4 };
  it.each([
    [1, 0.999, 99],
    [2, 0.999, 199],
    [4, 0.999, 799],
    [5, 0.999, 999],
    [30, 0.999, 999],
    [3, 0, 0],
    [3, 0.5, 200],
  ])('attempt %i with random %f waits %i ms', (attempt, r, ms) => {
    expect(backoffMs(policy, attempt, () => r)).toBe(ms);
  });
  it('the budget counts attempts, the first included', () => {
    expect([1, 2, 3, 4, 5].map((n) => retryLeft(policy, n))).toEqual([true, true, true, false, false]);
  });
});

describe('docs/notifications.md', () => {
  it('its verification snippet accepts what aitia signs and refuses a stale or altered one', async () => {
    const { readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { createHmac, timingSafeEqual } = await import('node:crypto');
    const { findPackageRoot } = await import('../../../src/package-root.js');
    const page = readFileSync(join(findPackageRoot(), 'docs', 'notifications.md'), 'utf8');
    const code = /```js\n([\s\S]*?)```/.exec(page)![1]!.replace(/^import .*\n/m, '');
    type Verify = (secret: string, headers: Record<string, string>, body: string, nowMs?: number) => boolean;
    const verify = new Function('createHmac', 'timingSafeEqual', `${code}\nreturn verifyAitia;`)(
      createHmac,
      timingSafeEqual,
    ) as Verify;
    const body = JSON.stringify(webhookBody('ops', message));
    const now = Date.UTC(2026, 4, 14, 2, 9);
    const h = signedHeaders('s'.repeat(32), 'ops:7', body, now);
    expect(verify('s'.repeat(32), h, body, now)).toBe(true);
    expect(verify('s'.repeat(32), h, body, now + 301_000)).toBe(false);
    expect(verify('s'.repeat(32), h, `${body} `, now)).toBe(false);
  });
});
