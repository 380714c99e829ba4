import { describe, expect, it } from 'vitest';
import { LIFECYCLES } from '../../../src/model/kinds.js';
import { checkNewInboundEdge, classifyAction } from '../../../src/policy/index.js';
import { DEFAULT, target, TRUSTING, variant } from './helpers.js';

describe('lifecycle', () => {
  it.each(['restart', 'unmonitored', 'run', 'reboot', 'frobnicate'])('a destroyed target refuses %s', (action) => {
    const d = classifyAction(TRUSTING.policy, TRUSTING.digest, {
      target: target('vm:old', { lifecycle: 'destroyed' }),
      action,
      command: 'uptime',
    });
    expect(d).toMatchObject({ autonomy: 'never', approval: 'not_approvable' });
    expect(d.reasons.some((r) => r.startsWith('vm:old is destroyed: every action is refused'))).toBe(true);
  });

  it.each([
    ['provisioning', 'escalate'],
    ['active', 'auto'],
    ['deprecated', 'escalate'],
    ['missing', 'escalate'],
  ] as const)('a %s vm restart (trusted) is %s (lifecycle_override)', (lifecycle, autonomy) => {
    const d = classifyAction(TRUSTING.policy, TRUSTING.digest, {
      target: target('vm:web', { lifecycle }),
      action: 'restart',
    });
    expect(d.autonomy).toBe(autonomy);
    if (autonomy === 'escalate')
      expect(d.reasons).toContain(`lifecycle_override.${lifecycle}.reversible_low: at most escalate (auto → escalate)`);
  });

  it('overrides only tighten: an override saying auto does not loosen an escalate rule', () => {
    const p = variant(
      (doc) =>
        (doc.autonomy_settings = {
          global: { auto_act: 'reversible_low' },
          lifecycle_override: { active: { config_mutation: 'auto', reversible_low: 'auto' } },
        }),
    );
    expect(classifyAction(p.policy, p.digest, { target: target('vm:web'), action: 'reboot' }).autonomy).toBe(
      'escalate',
    );
  });

  it('an override can forbid outright', () => {
    const p = variant((doc) => (doc.autonomy_settings.lifecycle_override = { missing: { config_mutation: 'never' } }));
    expect(
      classifyAction(p.policy, p.digest, { target: target('vm:web', { lifecycle: 'missing' }), action: 'reboot' }),
    ).toMatchObject({
      autonomy: 'never',
      approval: 'not_approvable',
    });
  });

  it.each(LIFECYCLES.map((l) => [l]))('new inbound dependency edge to a %s target', (lifecycle) => {
    const result = checkNewInboundEdge({ slug: 'vm:db', lifecycle });
    if (lifecycle === 'deprecated')
      expect(result).toEqual({
        ok: false,
        reason: 'vm:db is deprecated: new dependencies on it are refused (existing ones stay)',
      });
    else if (lifecycle === 'destroyed')
      expect(result).toEqual({ ok: false, reason: 'vm:db is destroyed: nothing may depend on it' });
    else expect(result).toEqual({ ok: true });
  });
});

describe('autonomy settings', () => {
  it('global off: nothing is auto, with the reason', () => {
    const d = classifyAction(DEFAULT.policy, DEFAULT.digest, { target: target('vm:web'), action: 'unmonitored' });
    expect(d).toMatchObject({ riskClass: 'read_only', autonomy: 'escalate', approval: 'operator' });
    expect(d.reasons.some((r) => r.startsWith('autonomy_settings.global.auto_act is off'))).toBe(true);
  });

  it('global reversible_low: classes above reversible_low are not auto even if the class allows it', () => {
    const p = variant((doc) => {
      doc.autonomy_settings.global.auto_act = 'reversible_low';
      doc.risk_classes.config_mutation = { approval_required: 'none', autonomy_allowed: true };
      doc.approval_rules.push({
        entity_type: 'vm',
        action: 'resize',
        risk_class: 'config_mutation',
        autonomy_level: 'auto',
      });
    });
    const d = classifyAction(p.policy, p.digest, { target: target('vm:web'), action: 'resize' });
    expect(d.autonomy).toBe('escalate');
    expect(d.reasons).toContain(
      'autonomy_settings.global.auto_act allows at most reversible_low on its own, not config_mutation (auto → escalate)',
    );
  });

  it('a risk class that disallows autonomy turns auto into escalate', () => {
    const p = variant((doc) => {
      doc.autonomy_settings.global.auto_act = 'reversible_low';
      doc.risk_classes.reversible_low.autonomy_allowed = false;
    });
    const d = classifyAction(p.policy, p.digest, { target: target('vm:web'), action: 'restart' });
    expect(d.autonomy).toBe('escalate');
    expect(d.reasons).toContain('risk class reversible_low does not allow autonomy (auto → escalate)');
  });

  it.each([
    ['the slug', 'lxc:ct1'],
    ['the resource id', 'manual:lxc/ct1'],
    ['the concrete type', 'lxc'],
    ['an ancestor type', 'machine'],
  ])('never_auto_act by %s', (_, key) => {
    const p = variant((doc) => {
      doc.autonomy_settings.global.auto_act = 'reversible_low';
      doc.autonomy_settings.never_auto_act = { [key]: 'an operator watches this one' };
    });
    const d = classifyAction(p.policy, p.digest, { target: target('lxc:ct1'), action: 'restart' });
    expect(d.autonomy).toBe('escalate');
    expect(d.reasons).toContain(`never_auto_act.${key}: an operator watches this one (auto → escalate)`);
  });

  it('never_auto_act on the reverse proxy, DNS and SSO is reported even when the rule already escalates', () => {
    for (const name of ['reverse-proxy', 'dns', 'sso']) {
      const d = classifyAction(TRUSTING.policy, TRUSTING.digest, {
        target: target(`service:${name}`),
        action: 'cache-clear',
      });
      expect(d.autonomy).toBe('escalate');
      expect(d.reasons.some((r) => r.startsWith(`never_auto_act.service:${name}: `))).toBe(true);
    }
  });

  it('every decision lists its reasons, the matched rule first', () => {
    const d = classifyAction(TRUSTING.policy, TRUSTING.digest, {
      target: target('vm:web-01'),
      action: 'run',
      command: 'apt-get install -y curl',
      params: { count: 2 },
    });
    expect(d.reasons).toEqual([
      'matched approval_rules.14 (machine run, by ancestor): read_only / auto',
      'elevated: parameter count=2 exceeds 1: read_only → config_mutation',
      'command "apt-get install -y curl" classified config_mutation (package mutation (apt-get install)): already config_mutation',
      "risk raised from read_only to config_mutation: the rule's auto no longer applies (auto → escalate)",
      'preflight qemu_guest_agent: failed, blocking — run on vm:web-01 blocked: QEMU guest agent is not running (qm guest exec unavailable). Start the agent first or use a different target.',
    ]);
  });
});
