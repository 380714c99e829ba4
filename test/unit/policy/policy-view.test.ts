import { describe, expect, it } from 'vitest';
import { BUILT_IN_FORBIDDEN_ACTIONS, viewPolicy } from '../../../src/policy/index.js';
import { DEFAULT, variant } from './helpers.js';

describe('viewPolicy', () => {
  const view = viewPolicy({ ...DEFAULT, path: '/etc/aitia/policy.yaml' });

  it('reports digest, path, suppression and the global switch', () => {
    expect(view).toMatchObject({
      digest: DEFAULT.digest,
      path: '/etc/aitia/policy.yaml',
      suppression: 'shadow',
      globalAutoAct: 'off',
    });
  });

  it('lists risk classes in order, rules by index, never_auto_act by key, overrides by lifecycle', () => {
    expect(view.riskClasses.map((r) => r.riskClass)).toEqual([
      'read_only',
      'reversible_low',
      'config_mutation',
      'destructive',
    ]);
    expect(view.riskClasses[3]).toEqual({
      riskClass: 'destructive',
      approvalRequired: 'operator_confirmed',
      autonomyAllowed: false,
      description: 'Loses data or identity; cannot be undone.',
    });
    expect(view.approvalRules.map((r) => r.index)).toEqual(DEFAULT.policy.approval_rules.map((_, i) => i));
    expect(view.approvalRules[5]).toMatchObject({
      entityType: 'service',
      scopeEntity: 'service:reverse-proxy',
      action: 'restart',
      riskClass: 'config_mutation',
      autonomyLevel: 'escalate',
      note: 'Every published route goes through it.',
    });
    expect(view.neverAutoAct.map((n) => n.entity)).toEqual(['service:dns', 'service:reverse-proxy', 'service:sso']);
    expect(view.lifecycleOverrides).toEqual([
      { lifecycle: 'provisioning', riskClass: 'reversible_low', autonomy: 'escalate' },
      { lifecycle: 'deprecated', riskClass: 'reversible_low', autonomy: 'escalate' },
      { lifecycle: 'missing', riskClass: 'reversible_low', autonomy: 'escalate' },
    ]);
  });

  it("lists the built-in forbidden patterns first, then the policy's, once each", () => {
    const p = variant((doc) => (doc.forbidden_actions = ['nuke*', 'wipe*']));
    expect(viewPolicy({ ...p, path: 'x' }).forbiddenActions).toEqual([...BUILT_IN_FORBIDDEN_ACTIONS, 'nuke*']);
  });
});
