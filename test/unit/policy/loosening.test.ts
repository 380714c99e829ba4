import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { classifyAction, parsePolicy } from '../../../src/policy/index.js';
import { DEFAULT, DEFAULT_YAML, target, TRUSTING, variant } from './helpers.js';

const SEEDED = variant((doc) => {
  doc.autonomy_settings.lifecycle_override.provisioning = {
    reversible_low: 'escalate',
    config_mutation: 'reversible_low',
  };
});

function errorsWith(lifecycle: string, overrides: Record<string, string>) {
  const doc = parse(DEFAULT_YAML) as Record<string, any>;
  doc.autonomy_settings.lifecycle_override[lifecycle] = overrides;
  const result = parsePolicy(stringify(doc));
  return result.ok ? [] : result.errors;
}

describe('the provisioning loosening (lifecycle_override.provisioning.config_mutation: reversible_low)', () => {
  it('is shipped: migrating an lxc being provisioned is reversible_low, with the seed’s reason', () => {
    for (const shipped of [DEFAULT, TRUSTING]) {
      const fresh = classifyAction(shipped.policy, shipped.digest, {
        target: target('lxc:new', { lifecycle: 'provisioning' }),
        action: 'migrate',
      });
      expect(fresh.riskClass).toBe('reversible_low');
      expect(fresh.reasons).toContain(
        'lifecycle_override.provisioning.config_mutation: reversible_low — lxc:new is being provisioned: no dependents yet — config changes are cheap; loosened config_mutation → reversible_low',
      );
      // Loosened in class, not let loose: provisioning.reversible_low still escalates to an operator.
      expect(fresh).toMatchObject({ autonomy: 'escalate', approval: 'operator' });
    }
  });

  it.each(['active', 'deprecated', 'missing'] as const)('is not applied to an lxc that is %s', (lifecycle) => {
    const d = classifyAction(DEFAULT.policy, DEFAULT.digest, {
      target: target('lxc:old', { lifecycle }),
      action: 'migrate',
    });
    expect(d).toMatchObject({ riskClass: 'config_mutation', autonomy: 'escalate', approval: 'operator' });
    expect(d.reasons.join('\n')).not.toContain('loosened');
  });

  it('never loosens what is destructive in the shipped policy (destroying a provisioning lxc)', () => {
    const d = classifyAction(DEFAULT.policy, DEFAULT.digest, {
      target: target('lxc:new', { lifecycle: 'provisioning' }),
      action: 'destroy',
    });
    expect(d).toMatchObject({ riskClass: 'destructive', autonomy: 'never' });
  });

  it('lowers a provisioning target’s config_mutation and says so; an active one keeps its class', () => {
    const input = { action: 'reconfigure', declaredRiskClass: 'config_mutation' as const };
    const fresh = classifyAction(SEEDED.policy, SEEDED.digest, {
      ...input,
      target: target('service:new', { lifecycle: 'provisioning' }),
    });
    expect(fresh.riskClass).toBe('reversible_low');
    expect(fresh.reasons.join('\n')).toContain('lifecycle_override.provisioning.config_mutation: reversible_low');
    const live = classifyAction(SEEDED.policy, SEEDED.digest, { ...input, target: target('service:new') });
    expect(live.riskClass).toBe('config_mutation');
  });

  it('never loosens a destructive action', () => {
    const d = classifyAction(SEEDED.policy, SEEDED.digest, {
      target: target('service:new', { lifecycle: 'provisioning' }),
      action: 'reconfigure',
      declaredRiskClass: 'destructive',
    });
    expect(d.riskClass).toBe('destructive');
  });

  it.each([
    ['provisioning', { destructive: 'config_mutation' }, 'a destructive action is never loosened'],
    ['active', { config_mutation: 'reversible_low' }, 'allowed under provisioning only'],
    ['provisioning', { reversible_low: 'config_mutation' }, 'is not lower than reversible_low'],
  ])('refuses %s %j at load', (lifecycle, overrides, reason) => {
    expect(errorsWith(lifecycle, overrides)).toEqual([
      expect.objectContaining({
        path: expect.stringContaining(`lifecycle_override.${lifecycle}`),
        reason: expect.stringContaining(reason),
      }),
    ]);
  });
});
