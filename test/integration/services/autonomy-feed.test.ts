import { afterAll, describe, expect, it } from 'vitest';
import { AUTONOMY_FEED_RESOURCE, autonomyState, openBreaker } from '../../../src/graph/autonomy.js';
import { latestFeedSeq, readFeed } from '../../../src/graph/feed.js';
import { notificationOf } from '../../../src/integrations/notification-events.js';
import type { AutonomyFeedPayload } from '../../../src/model/index.js';
import { setAutonomy } from '../../../src/services/grants.js';
import { useGraph } from '../../support/graph.js';
import { auditOf, principalOf, serviceDeps, withAuditDown } from '../../support/services.js';

/**
 * The kill switch and the breaker on the feed: each change appends one `autonomy` entry (who,
 * when, why, before and after) in its own transaction — none when nothing changed (a breaker
 * already open) or when the change did not commit — and each is an `autonomy.changed` notification.
 */
const { driver, scope } = useGraph();
const deps = serviceDeps(driver);
const operator = principalOf(scope, 'operator');

afterAll(async () => {
  await setAutonomy(deps, operator, { mode: 'normal', reason: 'tests done' });
});

async function autonomyAfter(since: number) {
  const entries = await readFeed(driver, { afterSeq: since, limit: 1000, topics: ['autonomy'] });
  return entries.map((e) => ({ ...e, payload: e.payload as AutonomyFeedPayload }));
}

describe('autonomy changes on the feed', () => {
  it('halt, a breaker opened twice at once, resume, a breaker closed: one entry each, with who and why', async () => {
    await setAutonomy(deps, operator, { mode: 'normal', reason: 'start clean' });
    const since = await latestFeedSeq(driver);
    await setAutonomy(deps, operator, { mode: 'halt', reason: `maintenance ${scope}` });
    const at = new Date().toISOString();
    const opened = await Promise.all([openBreaker(driver, at, 'too many'), openBreaker(driver, at, 'too many')]);
    expect(opened.filter(Boolean).length).toBe(1);
    await setAutonomy(deps, operator, { mode: 'normal', reason: 'done' });
    await openBreaker(driver, at, 'again');
    await setAutonomy(deps, operator, { mode: 'normal', reason: 'checked' });

    const entries = await autonomyAfter(since);
    expect(entries.map((e) => [e.change, e.payload.actor, e.payload.reason, e.resourceId])).toEqual([
      ['halted', operator.name, `maintenance ${scope}`, AUTONOMY_FEED_RESOURCE],
      ['breaker_opened', 'aitia', 'too many', AUTONOMY_FEED_RESOURCE],
      ['resumed', operator.name, 'done', AUTONOMY_FEED_RESOURCE],
      ['breaker_opened', 'aitia', 'again', AUTONOMY_FEED_RESOURCE],
      ['breaker_closed', operator.name, 'checked', AUTONOMY_FEED_RESOURCE],
    ]);
    expect(entries[0]!.payload.before.mode).toBe('normal');
    expect(entries[0]!.payload.after).toMatchObject({ mode: 'halt', setBy: operator.name });
    expect(entries[1]!.payload.after).toMatchObject({ mode: 'halt', breakerReason: 'too many' });
    expect(entries[4]!.payload.before.breakerReason).toBe('again');
    expect(entries[4]!.payload.after.breakerOpenedAt).toBeNull();
    for (const e of entries) {
      expect(Date.parse(e.payload.at)).not.toBeNaN();
      expect(notificationOf(e)).toMatchObject({ event: 'autonomy.changed', payload: { change: e.change } });
    }
    // The audit lines are there too, one per setAutonomy.
    expect((await auditOf(driver, operator)).filter((a) => a.operation === 'setAutonomy').length).toBeGreaterThan(3);
  });

  it('a change that does not commit (its audit line failed) appends nothing', async () => {
    const since = await latestFeedSeq(driver);
    const down = serviceDeps(withAuditDown(driver));
    await expect(setAutonomy(down, operator, { mode: 'halt', reason: 'never' })).rejects.toThrow();
    expect(await autonomyAfter(since)).toEqual([]);
    expect((await autonomyState(driver)).mode).toBe('normal');
  });
});
