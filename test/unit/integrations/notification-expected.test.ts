import { describe, expect, it } from 'vitest';
import { autonomyChangeOf } from '../../../src/graph/autonomy.js';
import { notificationOf } from '../../../src/integrations/notification-events.js';
import { consoleLink, slackMessage, summaryOf } from '../../../src/integrations/slack-message.js';
import type { AutonomyState, FeedEntry } from '../../../src/model/index.js';
import { isExpected } from '../../../src/policy/transition-gate.js';

/**
 * `expected` on condition notifications means what the issue says — a principal changed the
 * resource at high confidence — and is the same rule the Alertmanager silencer applies (the gate's
 * isExpected), whatever the suppression mode made of it. Also: `expired` approvals and the
 * `autonomy` feed as notifications, and how Slack renders them.
 */

const RID = 'proxmox:lab/qemu/101';
const entry = (topic: FeedEntry['topic'], change: string, payload: unknown): FeedEntry => ({
  seq: 11,
  topic,
  resourceId: RID,
  change,
  at: '2026-05-14T02:08:31.000Z',
  payload,
});
const condition = (attribution: Record<string, unknown> | null, over: Record<string, unknown> = {}) => ({
  id: 'c1',
  type: 'unreachable',
  status: 'open',
  resourceId: RID,
  openedAt: '2026-05-14T02:08:31.000Z',
  resolvedAt: null,
  evidence: {},
  attribution,
  causeTransitionId: attribution ? 't1' : null,
  suppressed: false,
  wouldSuppress: false,
  suppressionReasons: [],
  policyDigest: null,
  ...over,
});
const cause = (confidence: string, actorKind: string | null, actor: string | null = 'alice@pve') => ({
  transitionId: 't1',
  confidence,
  actor,
  actorKind,
  narrative: `stopped by ${actor ?? 'nobody'}`,
});

describe('expected: a principal changed the resource at high confidence', () => {
  it.each([
    ['high, a person', cause('high', 'human'), {}, true],
    ['high, an API token', cause('high', 'api_token', 'ci@pve!deploy'), {}, true],
    ['high, an HA request credited to a user', cause('high', 'ha_manager'), {}, true],
    ['high, HA on its own (no actor)', cause('high', 'ha_manager', null), {}, false],
    ['high, the system', cause('high', 'system', 'root@pam'), {}, false],
    ['medium, a person', cause('medium', 'human'), {}, false],
    ['low, a person', cause('low', 'human'), {}, false],
    ['no cause at all', null, {}, false],
    // Suppression is what the mode did with it, not whether it was expected.
    ['high, a person, shadow mode (would suppress)', cause('high', 'human'), { wouldSuppress: true }, true],
    ['high, a person, suppression off', cause('high', 'human'), { suppressionReasons: ['off'] }, true],
    ['suppressed, but the cause is the system (an old record)', cause('high', 'system'), { suppressed: true }, false],
    ['an attribution without a confidence', { transitionId: 't1', actor: 'alice@pve' }, {}, false],
  ])('%s', (_what, attribution, over, expected) => {
    const m = notificationOf(entry('condition', 'opened', condition(attribution, over)));
    expect(m?.payload.expected).toBe(expected);
    // One rule: the silencer's (isExpected) answers the same for every caused row.
    const a = attribution as { confidence?: unknown } | null;
    if (a && typeof a.confidence === 'string') expect(isExpected(a as Parameters<typeof isExpected>[0])).toBe(expected);
  });

  it('the cause carries its actor kind', () => {
    const m = notificationOf(entry('condition', 'opened', condition(cause('high', 'human'))));
    expect(m?.payload.cause).toEqual({
      transitionId: 't1',
      actor: 'alice@pve',
      actorKind: 'human',
      confidence: 'high',
    });
  });
});

const approval = {
  id: 'a1',
  action: 'vm.stop',
  targetId: RID,
  targetName: 'web01',
  requester: 'agent',
  status: 'pending',
};
const NORMAL: AutonomyState = {
  mode: 'normal',
  setBy: null,
  setAt: null,
  reason: null,
  breakerOpenedAt: null,
  breakerReason: null,
};
const HALTED: AutonomyState = { ...NORMAL, mode: 'halt', setBy: 'alice', setAt: '2026-05-14T02:00:00Z', reason: 'x' };
const TRIPPED: AutonomyState = { ...NORMAL, breakerOpenedAt: '2026-05-14T01:00:00Z', breakerReason: '5 in 10 min' };

describe('expired approvals and the kill switch as notifications', () => {
  it('an expired approval is approval.expired, with the approval', () => {
    const m = notificationOf(entry('approval', 'expired', { approval, actor: 'aitia', redeem: null }));
    expect(m).toMatchObject({ event: 'approval.expired', payload: { change: 'expired', approval: { id: 'a1' } } });
    expect(summaryOf(m!)).toBe('*Approval expired*: vm.stop on web01');
    expect(consoleLink('https://aitia.lan', m!)).toBe('https://aitia.lan/console#/inbox');
  });

  it.each([
    ['halt from normal', NORMAL, HALTED, 'halted'],
    ['halt again', HALTED, HALTED, 'halted'],
    ['normal from halt', HALTED, NORMAL, 'resumed'],
    ['normal closing an open breaker', TRIPPED, NORMAL, 'breaker_closed'],
    ['normal from normal', NORMAL, NORMAL, 'resumed'],
  ])('setting the switch: %s is %s', (_what, before, after, change) => {
    expect(autonomyChangeOf(before, after)).toBe(change);
  });

  it.each([
    ['halted', 'alice', 'maintenance & <backups>', '*Autonomy halted* by alice: maintenance &amp; &lt;backups&gt;'],
    ['resumed', 'alice', 'done', '*Autonomy resumed* by alice: done'],
    [
      'breaker_opened',
      'aitia',
      '5 automatic actions in 10 min',
      '*Breaker opened* by aitia: 5 automatic actions in 10 min',
    ],
    ['breaker_closed', 'bob', 'checked', '*Breaker closed* by bob: checked'],
  ])('an autonomy entry %s is autonomy.changed, rendered for Slack', (change, actor, reason, summary) => {
    const at = '2026-05-14T02:08:31.000Z';
    const m = notificationOf({
      ...entry('autonomy', change, { actor, at, reason, before: NORMAL, after: HALTED }),
      resourceId: 'aitia:autonomy',
    });
    expect(m).toMatchObject({ event: 'autonomy.changed', payload: { change, actor, at, reason } });
    expect(summaryOf(m!)).toBe(summary);
    const body = slackMessage(m!, 'https://aitia.lan');
    expect(JSON.stringify(body)).toContain('https://aitia.lan/console#/audit');
    expect(body.text).toBe(summary.replace(/\*/g, ''));
  });
});
