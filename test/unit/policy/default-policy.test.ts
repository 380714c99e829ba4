import { describe, expect, it } from 'vitest';
import { classifyAction, type AutonomyLevel, type RiskClass } from '../../../src/policy/index.js';
import { DEFAULT, target, TRUSTING } from './helpers.js';

// Every rule of config/policy.yaml: target, action → risk class, the rule's autonomy, and the
// autonomy once the global switch allows reversible_low (read_only and reversible_low may be auto).
// A seventh element names the target's state, for rules narrowed with `when: {state}`.
const RULES: Array<[string, string | undefined, string, RiskClass, AutonomyLevel, AutonomyLevel, string?]> = [
  ['service:web', undefined, 'restart', 'reversible_low', 'auto', 'auto'],
  ['service:stack', 'compose-stack', 'restart', 'reversible_low', 'auto', 'auto'],
  ['service:app', 'docker-container', 'restart', 'reversible_low', 'auto', 'auto'],
  ['lxc:ct1', undefined, 'restart', 'reversible_low', 'auto', 'auto'],
  ['vm:web-01', undefined, 'restart', 'reversible_low', 'auto', 'auto'],
  ['service:web', undefined, 'cache-clear', 'reversible_low', 'auto', 'auto'],
  ['service:web', undefined, 'sync-pull', 'reversible_low', 'auto', 'auto'],
  ['service:db', undefined, 'db-wipe', 'destructive', 'never', 'never'],
  ['host:pve1', undefined, 'apt-upgrade', 'config_mutation', 'escalate', 'escalate'],
  ['vm:web-01', undefined, 'apt-upgrade', 'config_mutation', 'escalate', 'escalate'],
  ['lxc:ct1', undefined, 'reboot', 'config_mutation', 'escalate', 'escalate'],
  ['host:pve1', undefined, 'reboot', 'config_mutation', 'escalate', 'escalate'],
  ['host:pve1', undefined, 'format-disk', 'destructive', 'never', 'never'],
  ['lxc:ct1', undefined, 'destroy', 'destructive', 'never', 'never'],
  ['vm:web-01', undefined, 'destroy', 'destructive', 'never', 'never'],
  ['lxc:ct1', undefined, 'create', 'config_mutation', 'escalate', 'escalate'],
  ['lxc:ct1', undefined, 'migrate', 'config_mutation', 'escalate', 'escalate'],
  ['network:home-lan', 'dns-record', 'change', 'config_mutation', 'escalate', 'escalate'],
  ['network:grafana', 'ingress-route', 'change', 'config_mutation', 'escalate', 'escalate'],
  ['service:homelab-config', 'config-repo', 'edit', 'config_mutation', 'escalate', 'escalate'],
  ['service:deploy', 'deploy-pipeline', 'trigger', 'config_mutation', 'escalate', 'escalate'],
  ['storage:tank', 'storage-pool', 'change', 'destructive', 'never', 'never'],
  ['service:vault-token', 'secret', 'rotate', 'destructive', 'never', 'never'],
  ['service:deploy-key', 'key', 'revoke', 'destructive', 'never', 'never'],
  ['service:reverse-proxy', undefined, 'restart', 'config_mutation', 'escalate', 'escalate'],
  ['service:dns', undefined, 'restart', 'config_mutation', 'escalate', 'escalate'],
  ['service:sso', undefined, 'restart', 'config_mutation', 'escalate', 'escalate'],
  ['vm:web-01', undefined, 'unmonitored', 'read_only', 'auto', 'auto'],
  ['storage:tank', undefined, 'backup-stale', 'read_only', 'auto', 'auto'],
  ['service:web', undefined, 'backup-missing', 'read_only', 'auto', 'auto'],
  ['host:pve1', undefined, 'run', 'read_only', 'auto', 'auto'],
  ['vm:web-01', undefined, 'start', 'reversible_low', 'auto', 'auto', 'stopped'],
  ['lxc:ct1', undefined, 'start', 'reversible_low', 'auto', 'auto', 'stopped'],
  ['vm:web-01', undefined, 'reset', 'config_mutation', 'escalate', 'escalate', 'running'],
];

describe('config/policy.yaml rules', () => {
  it.each(RULES)(
    '%s (%s) %s → %s, rule %s, trusted %s',
    (slug, entityType, action, risk, ruleAutonomy, trusted, state) => {
      const request = {
        target: target(slug, { entityType: entityType ?? null, state: state ?? null }),
        action,
        ...(action === 'run' ? { command: 'uptime' } : {}),
      };
      const byDefault = classifyAction(DEFAULT.policy, DEFAULT.digest, request);
      expect(byDefault.riskClass).toBe(risk);
      expect(byDefault.matchedRule?.autonomyLevel).toBe(ruleAutonomy);
      // global.auto_act is off by default: trust is earned, nothing is auto.
      expect(byDefault.autonomy).toBe(ruleAutonomy === 'never' ? 'never' : 'escalate');
      expect(classifyAction(TRUSTING.policy, TRUSTING.digest, request).autonomy).toBe(trusted);
    },
  );

  it('covers every rule the file holds', () => {
    const matched = new Set(
      RULES.map(([slug, entityType, action, , , , state]) => {
        const request = {
          target: target(slug, { entityType: entityType ?? null, state: state ?? null }),
          action,
          command: 'uptime',
        };
        return classifyAction(DEFAULT.policy, DEFAULT.digest, request).matchedRule?.index;
      }),
    );
    expect([...matched].sort((a, b) => (a ?? -1) - (b ?? -1))).toEqual(DEFAULT.policy.approval_rules.map((_, i) => i));
  });

  it('narrows power rules by state: starting a stopped VM is cheap, a running one has no start rule', () => {
    const stopped = classifyAction(TRUSTING.policy, TRUSTING.digest, {
      target: target('vm:web-01', { state: 'stopped' }),
      action: 'start',
    });
    expect(stopped).toMatchObject({ riskClass: 'reversible_low', autonomy: 'auto' });
    expect(stopped.reasons[0]).toMatch(/^matched approval_rules\.\d+ \(vm start when stopped, by type\)/);
    const running = classifyAction(TRUSTING.policy, TRUSTING.digest, {
      target: target('vm:web-01', { state: 'running' }),
      action: 'start',
    });
    expect(running).toMatchObject({ matchedRule: null, autonomy: 'escalate' });
  });

  it('ships never_auto_act for the reverse proxy, DNS and SSO, off by default, shadow suppression', () => {
    expect(Object.keys(DEFAULT.policy.autonomy_settings.never_auto_act).sort()).toEqual([
      'service:dns',
      'service:reverse-proxy',
      'service:sso',
    ]);
    expect(DEFAULT.policy.autonomy_settings.global.auto_act).toBe('off');
    expect(DEFAULT.policy.attribution.suppression).toBe('shadow');
  });

  it('says why nothing is auto by default', () => {
    const d = classifyAction(DEFAULT.policy, DEFAULT.digest, { target: target('vm:web-01'), action: 'restart' });
    expect(d).toMatchObject({
      riskClass: 'reversible_low',
      autonomy: 'escalate',
      approval: 'operator',
      policyDigest: DEFAULT.digest,
    });
    expect(d.reasons).toContain(
      'autonomy_settings.global.auto_act is off: nothing acts on its own until trust is earned (auto → escalate)',
    );
  });

  it('approves a trusted reversible action without anyone', () => {
    const d = classifyAction(TRUSTING.policy, TRUSTING.digest, { target: target('vm:web-01'), action: 'restart' });
    expect(d).toMatchObject({ autonomy: 'auto', approval: 'none' });
  });

  it('gives never-rules not_approvable, destructive escalations operator_confirmed', () => {
    expect(
      classifyAction(DEFAULT.policy, DEFAULT.digest, { target: target('vm:web-01'), action: 'destroy' }).approval,
    ).toBe('not_approvable');
    expect(
      classifyAction(DEFAULT.policy, DEFAULT.digest, {
        target: target('vm:web-01'),
        action: 'restart',
        params: { force: true },
      }).approval,
    ).toBe('operator_confirmed');
  });
});
