import { describe, expect, it } from 'vitest';
import {
  decideCondition,
  decideTransition,
  isExpected,
  type TransitionAttribution,
} from '../../../src/policy/transition-gate.js';
import type { TransitionDecisionKind } from '../../../src/model/index.js';

/*
 * The gate on agents' own changes: a high attribution under an authorization aitia recorded is
 * intentional (suppressible like a principal's, expected for conditions); an agent's change with
 * none is never intentional, whatever the suppression mode.
 */
const NARRATIVE = 'Started by rhodes@pve!ops — task qmstart (UPID:…). Authorized: …';
const token: TransitionAttribution = { confidence: 'high', actor: 'rhodes@pve!ops', actorKind: 'api_token' };
const grant = { grantId: 'auth-1', source: 'grant' as const, approvedBy: 'bob' };
const auto = { grantId: 'auth-2', source: 'auto' as const, approvedBy: null };
const unauthorized = {
  principal: 'rhodes',
  reason: 'rhodes has no redeemed grant or reported action on this resource',
};
// No principal-shaped actor, but under a grant aitia recorded: it is meant.
const noPrincipalUnderGrant: TransitionAttribution = {
  confidence: 'high',
  actor: null,
  actorKind: 'system',
  authorization: grant,
};

describe('decideTransition with authorizations', () => {
  it.each<[string, TransitionAttribution, 'off' | 'shadow' | 'on', TransitionDecisionKind, RegExp]>([
    ['under a grant, on', { ...token, authorization: grant }, 'on', 'suppress', /under grant auth-1 approved by bob/],
    ['an auto action, on', { ...token, authorization: auto }, 'on', 'suppress', /automatic action auth-2/],
    ['under a grant, shadow', { ...token, authorization: grant }, 'shadow', 'open_incident', /under grant auth-1/],
    ['under a grant, off', { ...token, authorization: grant }, 'off', 'open_incident', /under grant auth-1/],
    ['no principal-shaped actor, under a grant, on', noPrincipalUnderGrant, 'on', 'suppress', /under grant auth-1/],
    ['unauthorized, on', { ...token, unauthorized }, 'on', 'open_incident', /^unauthorized: agent rhodes acted/],
    ['unauthorized, shadow', { ...token, unauthorized }, 'shadow', 'open_incident', /never suppressed/],
    ['medium under a grant, on', { ...token, confidence: 'medium', authorization: grant }, 'on', 'annotate', /medium/],
  ])('%s → %s', (_name, attribution, mode, decision, reason) => {
    const d = decideTransition(attribution, NARRATIVE, mode);
    expect(d.decision).toBe(decision);
    expect(d.reasons[0]).toMatch(reason);
  });

  it('unauthorized in shadow mode records no would-have-suppressed', () => {
    expect(decideTransition({ ...token, unauthorized }, NARRATIVE, 'shadow')).not.toHaveProperty('wouldHaveSuppressed');
  });
});

describe('conditions after agents’ changes', () => {
  it.each<[string, TransitionAttribution, boolean]>([
    ['a principal’s change', token, true],
    ['under a grant', { ...token, authorization: grant }, true],
    ['no principal-shaped actor, under a grant', noPrincipalUnderGrant, true],
    ['unauthorized', { ...token, unauthorized }, false],
    ['medium under a grant', { ...token, confidence: 'medium', authorization: grant }, false],
  ])('%s: expected %s', (_name, a, expected) => {
    expect(isExpected(a)).toBe(expected);
    const c = decideCondition({ attribution: a, narrative: NARRATIVE }, 'on');
    expect(c.suppressed).toBe(expected);
  });

  it('a condition after an unauthorized change says so', () => {
    expect(decideCondition({ attribution: { ...token, unauthorized }, narrative: NARRATIVE }, 'on').reasons).toEqual([
      "follows agent rhodes's unauthorized change: not an intentional change, it pages",
    ]);
  });
});
