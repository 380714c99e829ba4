import { describe, expect, it } from 'vitest';
import { notificationOf } from '../../../src/integrations/notification-events.js';
import { summaryOf } from '../../../src/integrations/slack-message.js';
import type { FeedEntry } from '../../../src/model/index.js';

/** A re-explanation on the feed, as receivers get it (pure): the answer before, the answer now, and why. */
const RID = 'proxmox:lab/qemu/101';
const entry = (topic: FeedEntry['topic'], change: string, payload: unknown): FeedEntry => ({
  seq: 9,
  topic,
  resourceId: RID,
  change,
  at: '2026-05-14T02:20:00.000Z',
  payload,
});
const BECAUSE = 'the log for 2026-05-14T02:05:00Z–2026-05-14T02:15:00Z (pve1) was read later';
const unknown = {
  confidence: 'none',
  actor: null,
  actorKind: null,
  unknownBecause: { reason: 'log_not_read' },
};
const transition = (now: Record<string, unknown>, narrative: string) => ({
  id: 't1',
  kind: 'vm',
  from: 'running',
  to: 'stopped',
  observedAt: '2026-05-14T02:08:31.000Z',
  attribution: now,
  decision: { decision: 'suppress', reasons: [] },
  narrative,
  attributionHistory: [
    {
      attribution: unknown,
      narrative: 'Unknown: the task log of pve1 … could not be read',
      decision: { decision: 'open_incident', reasons: [] },
      replacedAt: '2026-05-14T02:20:00.000Z',
      replacedBecause: BECAUSE,
    },
  ],
});
const condition = (now: { suppressed: boolean; attribution: unknown }, before: { suppressed: boolean }) => ({
  id: 'c1',
  type: 'check_failing',
  status: 'open',
  resourceId: RID,
  openedAt: '2026-05-14T02:09:00.000Z',
  resolvedAt: null,
  evidence: {},
  causeTransitionId: 't1',
  wouldSuppress: false,
  suppressionReasons: ['now'],
  policyDigest: 'd1',
  ...now,
  attributionHistory: [
    {
      attribution: { ...unknown, narrative: 'cause unknown' },
      suppressed: before.suppressed,
      wouldSuppress: false,
      suppressionReasons: ['before'],
      policyDigest: 'd0',
      replacedAt: '2026-05-14T02:20:00.000Z',
      replacedBecause: BECAUSE,
    },
  ],
});
const alice = { confidence: 'high', actor: 'alice@pve', actorKind: 'human', unknownBecause: null };

describe('re-explanations as notifications', () => {
  it('a transition explained again is transition.reexplained: before, after, because', () => {
    const m = notificationOf(entry('transition', 'reexplained', transition(alice, 'Stopped by alice@pve')))!;
    expect(m.event).toBe('transition.reexplained');
    expect(m.payload).toEqual({
      transition: { id: 't1', kind: 'vm', from: 'running', to: 'stopped', observedAt: '2026-05-14T02:08:31.000Z' },
      before: {
        confidence: 'none',
        actor: null,
        actorKind: null,
        unknownBecause: 'log_not_read',
        narrative: 'Unknown: the task log of pve1 … could not be read',
      },
      after: {
        confidence: 'high',
        actor: 'alice@pve',
        actorKind: 'human',
        unknownBecause: null,
        narrative: 'Stopped by alice@pve',
      },
      because: BECAUSE,
      decision: 'suppress',
      narrative: 'Stopped by alice@pve',
    });
    expect(summaryOf(m)).toBe(`*Change explained again* on ${RID}: cause unknown → alice@pve (high)`);
  });

  it('one still unknown (no_record now) is a re-explanation, not a second transition.unexplained', () => {
    const noRecord = { ...unknown, unknownBecause: { reason: 'no_record' } };
    const m = notificationOf(entry('transition', 'reexplained', transition(noRecord, 'No task explains this')))!;
    expect(m.event).toBe('transition.reexplained');
    expect((m.payload.after as Record<string, unknown>).unknownBecause).toBe('no_record');
    expect(summaryOf(m)).toBe(`*Change explained again* on ${RID}: cause unknown → cause unknown`);
  });

  it('a condition suppressed by the new answer is condition.reattributed, with what it said before', () => {
    const c = condition(
      { suppressed: true, attribution: { ...alice, narrative: 'Stopped by alice@pve' } },
      { suppressed: false },
    );
    const m = notificationOf(entry('condition', 'reattributed', c))!;
    expect(m.event).toBe('condition.reattributed');
    expect(m.payload).toMatchObject({
      cause: { transitionId: 't1', actor: 'alice@pve', confidence: 'high' },
      expected: true,
      suppressed: true,
      narrative: 'Stopped by alice@pve',
      previous: {
        cause: { actor: null, confidence: 'none' },
        expected: false,
        suppressed: false,
        suppressionReasons: ['before'],
        replacedBecause: BECAUSE,
      },
    });
    expect(summaryOf(m)).toBe(`*Condition check_failing re-attributed* on ${RID} (suppressed now: expected change)`);
  });

  it('a condition whose suppression the new answer lifts pages: condition.opened', () => {
    const c = condition(
      { suppressed: false, attribution: { ...unknown, narrative: 'cause unknown' } },
      { suppressed: true },
    );
    const m = notificationOf(entry('condition', 'reattributed', c))!;
    expect(m.event).toBe('condition.opened');
    expect(m.payload).toMatchObject({ suppressed: false, previous: { suppressed: true } });
  });
});
