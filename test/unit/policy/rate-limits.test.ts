import { describe, expect, it } from 'vitest';
import { applyRateLimits, classifyAction, rateWindows, type RateFacts } from '../../../src/policy/index.js';
import { target, variant } from './helpers.js';

const LIMITED = variant((doc) => {
  doc.autonomy_settings.global.auto_act = 'reversible_low';
  doc.cooldowns = { restart: 120 };
  doc.breaker = { max_auto_actions: 3, window_seconds: 600 };
});
const AT = '2026-05-14T02:10:00.000Z';
const none: RateFacts = { last: null, autoCount: 0, breakerOpenedAt: null, breakerReason: null };
const lastAt = (at: string) => ({ id: 'auth-1', at, principal: 'agent-a', source: 'auto' });

describe('cooldowns and the breaker (table)', () => {
  it.each([
    ['no history', none, false, null, null],
    [
      'a restart 30 s ago: inside the 120 s cooldown',
      { ...none, last: lastAt('2026-05-14T02:09:30.000Z') },
      true,
      /cooldowns\.restart: 120 s .* 30 s ago \(auth-1, auto by agent-a/,
      null,
    ],
    ['a restart exactly 120 s ago: outside', { ...none, last: lastAt('2026-05-14T02:08:00.000Z') }, false, null, null],
    ['2 automatic actions of 3 allowed', { ...none, autoCount: 2 }, false, null, null],
    [
      '3 automatic actions: the breaker opens',
      { ...none, autoCount: 3 },
      true,
      /^breaker opens: 3 automatic actions in the last 600 s/,
      '3 automatic actions in the last 600 s (breaker.max_auto_actions 3)',
    ],
    [
      'the breaker already open, whatever the count',
      { ...none, breakerOpenedAt: '2026-05-14T01:00:00Z', breakerReason: 'x' },
      true,
      /^breaker open since 2026-05-14T01:00:00Z \(x\)/,
      null,
    ],
  ] as const)('%s', (_name, facts, escalate, reason, trip) => {
    const out = applyRateLimits(LIMITED.policy, 'restart', AT, facts);
    expect(out.escalate).toBe(escalate);
    if (reason) expect(out.reasons.join('\n')).toMatch(reason);
    else expect(out.reasons).toEqual([]);
    expect(out.tripBreaker).toBe(trip);
  });

  it('has no cooldown for an action the policy does not list, and no breaker unless configured', () => {
    expect(applyRateLimits(LIMITED.policy, 'stop', AT, { ...none, last: lastAt(AT) }).escalate).toBe(false);
    const plain = variant(() => {});
    expect(applyRateLimits(plain.policy, 'restart', AT, { ...none, autoCount: 10_000 }).escalate).toBe(false);
    expect(rateWindows(plain.policy, 'restart', AT)).toEqual({ since: null, autoSince: null });
    expect(rateWindows(LIMITED.policy, 'restart', AT)).toEqual({
      since: '2026-05-14T02:08:00.000Z',
      autoSince: '2026-05-14T02:00:00.000Z',
    });
    // An operator closing the breaker at 02:05 starts a fresh window; an older reset changes nothing.
    expect(rateWindows(LIMITED.policy, 'restart', AT, '2026-05-14T02:05:00Z').autoSince).toBe(
      '2026-05-14T02:05:00.000Z',
    );
    expect(rateWindows(LIMITED.policy, 'restart', AT, '2026-05-14T01:00:00Z').autoSince).toBe(
      '2026-05-14T02:00:00.000Z',
    );
  });

  it('turns an auto answer into escalate, naming the previous authorization', () => {
    const svc = target('service:cache');
    const free = classifyAction(LIMITED.policy, LIMITED.digest, { target: svc, action: 'restart', at: AT, rate: none });
    expect(free.autonomy).toBe('auto');
    const cooled = classifyAction(LIMITED.policy, LIMITED.digest, {
      target: svc,
      action: 'restart',
      at: AT,
      rate: { ...none, last: lastAt('2026-05-14T02:09:00.000Z') },
    });
    expect(cooled.autonomy).toBe('escalate');
    expect(cooled.reasons.at(-1)).toMatch(/auth-1.*\(auto → escalate\)$/);
  });
});
