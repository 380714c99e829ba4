import { describe, expect, it } from 'vitest';
import type { ConditionRecord, TransitionRecord } from '../../../src/model/index.js';
import { reviseCondition, revisionAudit, type ConditionPolicy } from '../../../src/pipeline/conditions.js';
import type { SuppressionMode } from '../../../src/policy/policy-document.js';

/** How an open condition is revised when the transition it followed is explained again (pure). */
const condition = (over: Partial<ConditionRecord> = {}): ConditionRecord => ({
  id: 'proxmox:lab/qemu/101#check_failing#1',
  type: 'check_failing',
  status: 'open',
  resourceId: 'proxmox:lab/qemu/101',
  openedAt: '2026-05-14T02:09:00Z',
  resolvedAt: null,
  evidence: null,
  attribution: { confidence: 'none' },
  causeTransitionId: 't1',
  suppressed: false,
  wouldSuppress: false,
  suppressionReasons: [
    'follows a change with none confidence in unknown (unknown kind): not an intentional change, it pages',
  ],
  policyDigest: 'd0',
  ...over,
});

const cause = (confidence: 'high' | 'medium' | 'none', actor: string | null, actorKind: 'human' | 'system' | null) =>
  ({
    id: 't1',
    attribution: { confidence, actor, actorKind },
    narrative: actor ? `Stopped by ${actor}` : 'cause unknown',
  }) as unknown as TransitionRecord;

const policy = (suppression: SuppressionMode): ConditionPolicy => ({
  suppression,
  policyDigest: 'd1',
  causeWindowSeconds: 900,
});

describe('reviseCondition', () => {
  const cases: Array<{
    name: string;
    before: Partial<ConditionRecord>;
    cause: TransitionRecord;
    mode: SuppressionMode;
    suppressed: boolean;
    wouldSuppress: boolean;
    reason: RegExp;
  }> = [
    {
      name: 'cause unknown → alice (high), on: suppressed from now on',
      before: {},
      cause: cause('high', 'alice@pve', 'human'),
      mode: 'on',
      suppressed: true,
      wouldSuppress: false,
      reason: /opened suppressed, nobody is paged/,
    },
    {
      name: 'cause unknown → alice (high), shadow: still pages, records what on would do',
      before: {},
      cause: cause('high', 'alice@pve', 'human'),
      mode: 'shadow',
      suppressed: false,
      wouldSuppress: true,
      reason: /`on` would have suppressed it/,
    },
    {
      name: 'cause unknown → alice (high), off: pages',
      before: {},
      cause: cause('high', 'alice@pve', 'human'),
      mode: 'off',
      suppressed: false,
      wouldSuppress: false,
      reason: /suppression is off: it pages/,
    },
    {
      name: 'cause unknown → medium: not intentional, pages',
      before: {},
      cause: cause('medium', 'alice@pve', 'human'),
      mode: 'on',
      suppressed: false,
      wouldSuppress: false,
      reason: /medium confidence .* it pages/,
    },
    {
      name: 'cause unknown → high but the system: nobody decided, pages',
      before: {},
      cause: cause('high', null, 'system'),
      mode: 'on',
      suppressed: false,
      wouldSuppress: false,
      reason: /not an intentional change/,
    },
    {
      name: 'suppressed before, the new answer not intentional: the suppression is lifted, it pages, and says so',
      before: { suppressed: true, suppressionReasons: ['expected'] },
      cause: cause('none', null, null),
      mode: 'on',
      suppressed: false,
      wouldSuppress: false,
      reason: /was suppressed under its first answer; the new one does not make it intentional: it pages now/,
    },
    {
      name: 'an unauthorized agent action is never suppressed, whatever the answer',
      before: { type: 'unauthorized_action' },
      cause: cause('high', 'alice@pve', 'human'),
      mode: 'on',
      suppressed: false,
      wouldSuppress: false,
      reason: /never suppressed/,
    },
  ];
  for (const k of cases)
    it(k.name, () => {
      const r = reviseCondition(condition(k.before), k.cause, policy(k.mode));
      expect({ suppressed: r.suppressed, wouldSuppress: r.wouldSuppress }).toEqual({
        suppressed: k.suppressed,
        wouldSuppress: k.wouldSuppress,
      });
      expect(r.reasons.join(' ')).toMatch(k.reason);
      expect(r.policyDigest).toBe('d1');
      expect(r.attribution).toMatchObject({ transitionId: 't1', confidence: k.cause.attribution.confidence });
    });
});

describe('revisionAudit', () => {
  const writer = { name: 'aitia-reexplain', role: 'scheduler' as const };
  const history = [
    {
      attribution: {},
      suppressed: false,
      wouldSuppress: false,
      suppressionReasons: [],
      policyDigest: 'd0',
      replacedAt: '2026-05-14T02:20:00Z',
      replacedBecause: 'the log for 02:05–02:15 (pve1) was read later',
    },
  ];
  const cases: Array<{
    name: string;
    before: Partial<ConditionRecord>;
    after: Partial<ConditionRecord>;
    op: string | null;
  }> = [
    { name: 'paging → suppressed', before: {}, after: { suppressed: true }, op: 'conditionSuppressed' },
    {
      name: 'paging → would suppress (shadow)',
      before: {},
      after: { wouldSuppress: true },
      op: 'conditionWouldSuppress',
    },
    { name: 'suppressed → paging', before: { suppressed: true }, after: {}, op: 'conditionUnsuppressed' },
    { name: 'paging → paging (the attribution only)', before: {}, after: {}, op: null },
    { name: 'suppressed → suppressed', before: { suppressed: true }, after: { suppressed: true }, op: null },
  ];
  for (const k of cases)
    it(`${k.name}: ${k.op ?? 'no line'}`, () => {
      const lines = revisionAudit(
        [
          {
            before: condition(k.before),
            after: condition({ ...k.after, attributionHistory: history, policyDigest: 'd1' }),
          },
        ],
        writer,
      );
      expect(lines.map((l) => l.operation)).toEqual(k.op ? [k.op] : []);
      if (k.op) {
        expect(lines[0]!.targetIds).toEqual(['proxmox:lab/qemu/101', 'proxmox:lab/qemu/101#check_failing#1']);
        expect(lines[0]!.detail).toMatch(
          /after its cause was explained again \(the log for 02:05–02:15 \(pve1\) was read later\)/,
        );
        expect(lines[0]!.detail).toMatch(/policy d1$/);
      }
    });
});
