import { describe, expect, it } from 'vitest';
import { decideTransition, type TransitionAttribution } from '../../../src/policy/index.js';
import type { TransitionDecisionKind } from '../../../src/model/index.js';

const NARRATIVE = 'stopped by root@pam (task UPID:pve1:0001:vzstop) at 14:32:05 UTC — high confidence';
const human: TransitionAttribution = { confidence: 'high', actor: 'root@pam', actorKind: 'human' };
const token: TransitionAttribution = { confidence: 'high', actor: 'ci@pve!deploy', actorKind: 'api_token' };
const haForUser: TransitionAttribution = { confidence: 'high', actor: 'alice@pve', actorKind: 'ha_manager' };
const haAlone: TransitionAttribution = { confidence: 'high', actor: null, actorKind: 'ha_manager' };
const system: TransitionAttribution = { confidence: 'high', actor: 'pvescheduler', actorKind: 'system' };
const noKind: TransitionAttribution = { confidence: 'high', actor: 'root@pam', actorKind: null };

describe('decideTransition', () => {
  const cases: Array<[string, TransitionAttribution, 'off' | 'shadow' | 'on', TransitionDecisionKind, boolean]> = [
    ['human, on', human, 'on', 'suppress', false],
    ['api token, on', token, 'on', 'suppress', false],
    ['HA request credited to a user, on', haForUser, 'on', 'suppress', false],
    ['human, shadow', human, 'shadow', 'open_incident', true],
    ['api token, shadow', token, 'shadow', 'open_incident', true],
    ['human, off', human, 'off', 'open_incident', false],
    ['HA acting on its own, on', haAlone, 'on', 'open_incident', false],
    ['system actor, on', system, 'on', 'open_incident', false],
    ['system actor, shadow', system, 'shadow', 'open_incident', false],
    ['actor of unknown kind, on', noKind, 'on', 'open_incident', false],
    ['medium human, on', { ...human, confidence: 'medium' }, 'on', 'annotate', false],
    ['medium human, shadow', { ...human, confidence: 'medium' }, 'shadow', 'annotate', false],
    ['medium human, off', { ...human, confidence: 'medium' }, 'off', 'annotate', false],
    ['low human, on', { ...human, confidence: 'low' }, 'on', 'open_incident', false],
    ['none, on', { confidence: 'none' }, 'on', 'open_incident', false],
    ['none, shadow', { confidence: 'none', actor: null, actorKind: null }, 'shadow', 'open_incident', false],
  ];
  it.each(cases)('%s → %s', (_, attribution, mode, decision, shadowed) => {
    const result = decideTransition(attribution, NARRATIVE, mode);
    expect(result.decision).toBe(decision);
    expect(result.reasons.length).toBeGreaterThan(0);
    if (shadowed) {
      expect(result.wouldHaveSuppressed).toBe(NARRATIVE);
      expect(result.reasons).toContain(`would have suppressed: ${NARRATIVE}`);
    } else expect(result).not.toHaveProperty('wouldHaveSuppressed');
  });

  it('explains a suppression', () => {
    expect(decideTransition(human, NARRATIVE, 'on')).toEqual({
      decision: 'suppress',
      reasons: [
        'high confidence in principal root@pam (human); attribution.suppression is on: no incident, no remediation',
      ],
    });
  });

  it('never suppresses when off, whoever it was', () => {
    for (const a of [human, token, haForUser, system])
      expect(decideTransition(a, NARRATIVE, 'off').decision).not.toBe('suppress');
  });
});
