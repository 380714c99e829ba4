import { describe, expect, it } from 'vitest';
import { classifyAction, isBlocked, type RiskClass } from '../../../src/policy/index.js';
import { DEFAULT, mustParse, target, TRUSTING, variant } from './helpers.js';

const RISK_CLASSES = `
risk_classes:
  read_only: { approval_required: none, autonomy_allowed: true }
  reversible_low: { approval_required: none, autonomy_allowed: true }
  config_mutation: { approval_required: operator, autonomy_allowed: false }
  destructive: { approval_required: operator_confirmed, autonomy_allowed: false }
`;

// One action at every level of the hierarchy, to see which rule wins.
const LADDER = mustParse(`
version: 1
${RISK_CLASSES}
approval_rules:
  - { entity_type: entity, action: poke, risk_class: config_mutation, autonomy_level: escalate }
  - { entity_type: machine, action: poke, risk_class: reversible_low, autonomy_level: escalate }
  - { entity_type: vm, action: poke, risk_class: reversible_low, autonomy_level: auto }
  - { entity_type: vm, scope_entity: "vm:special", action: poke, risk_class: destructive, autonomy_level: never }
  - { entity_type: machine, scope_entity: "proxmox:lab/node/pve1", action: poke, risk_class: read_only, autonomy_level: auto }
  - { entity_type: entity, scope_entity: "vm:tie", action: poke, risk_class: config_mutation, autonomy_level: escalate }
  - { entity_type: vm, scope_entity: "manual:vm/tie", action: poke, risk_class: read_only, autonomy_level: auto }
autonomy_settings:
  global: { auto_act: reversible_low }
`);

describe('rule precedence: scope_entity > concrete type > nearest ancestor', () => {
  const cases: Array<[string, Parameters<typeof target>[1], number, string, RiskClass]> = [
    ['vm:special', {}, 3, 'scope_entity', 'destructive'],
    ['vm:web', {}, 2, 'type', 'reversible_low'],
    ['lxc:ct1', {}, 1, 'ancestor', 'reversible_low'],
    ['host:pve1', { id: 'proxmox:lab/node/pve1' }, 4, 'scope_entity', 'read_only'],
    ['host:pve2', {}, 1, 'ancestor', 'reversible_low'],
    ['service:web', {}, 0, 'ancestor', 'config_mutation'],
    ['storage:tank', { entityType: 'storage-pool' }, 0, 'ancestor', 'config_mutation'],
    // scoped by slug on `entity` and by id on `vm`: both scoped, the nearer type wins
    ['vm:tie', {}, 6, 'scope_entity', 'read_only'],
  ];
  it.each(cases)('%s %j → approval_rules.%i by %s', (slug, extra, index, by, risk) => {
    const d = classifyAction(LADDER.policy, LADDER.digest, { target: target(slug, extra), action: 'poke' });
    expect(d.matchedRule).toMatchObject({ index, matchedBy: by });
    expect(d.riskClass).toBe(risk);
    expect(d.reasons[0]).toMatch(new RegExp(`^matched approval_rules\\.${index} `));
  });

  it('applies a scope rule to a finer type of the same entity (docker-container service:dns)', () => {
    const d = classifyAction(DEFAULT.policy, DEFAULT.digest, {
      target: target('service:dns', { entityType: 'docker-container' }),
      action: 'restart',
    });
    expect(d.matchedRule).toMatchObject({ scopeEntity: 'service:dns', riskClass: 'config_mutation' });
  });

  it('normalises the action name (case, underscores)', () => {
    const d = classifyAction(DEFAULT.policy, DEFAULT.digest, {
      target: target('service:web'),
      action: ' Cache_Clear ',
    });
    expect(d.matchedRule?.action).toBe('cache-clear');
  });
});

describe('fails closed', () => {
  it.each([
    [
      'an action no rule covers',
      target('vm:web'),
      'frobnicate',
      /^no rule: nothing covers "frobnicate" on vm:web \(searched vm → machine → entity\)/,
    ],
    [
      'an unknown entity type',
      target('service:x', { entityType: 'toaster' }),
      'restart',
      /^no rule: unknown entity type "toaster"/,
    ],
  ])('%s → escalate, "no rule"', (_, t, action, reason) => {
    for (const { policy, digest } of [DEFAULT, TRUSTING]) {
      const d = classifyAction(policy, digest, { target: t, action });
      expect(d).toMatchObject({
        autonomy: 'escalate',
        approval: 'operator',
        riskClass: 'config_mutation',
        matchedRule: null,
      });
      expect(d.reasons[0]).toMatch(reason);
    }
  });
});

describe('parameter elevation', () => {
  const cases: Array<[Record<string, unknown>, string[] | undefined, RiskClass]> = [
    [{}, undefined, 'reversible_low'],
    [{ count: 1 }, undefined, 'reversible_low'],
    [{ count: 2 }, undefined, 'config_mutation'],
    [{ memory: 16384 }, undefined, 'reversible_low'],
    [{ memory: 16385 }, undefined, 'config_mutation'],
    [{ memory_mb: 32768 }, undefined, 'config_mutation'],
    [{ memoryMb: '20000' }, undefined, 'config_mutation'],
    [{ memory: 'lots' }, undefined, 'config_mutation'],
    [{ disk: 500 }, undefined, 'reversible_low'],
    [{ disk: 501 }, undefined, 'config_mutation'],
    [{ disk_gb: 1000 }, undefined, 'config_mutation'],
    [{}, ['a', 'b', 'c'], 'reversible_low'],
    [{}, ['a', 'b', 'c', 'd'], 'config_mutation'],
    [{ force: false, skip_checks: false }, undefined, 'reversible_low'],
    [{ force: true }, undefined, 'destructive'],
    [{ force: 'true' }, undefined, 'destructive'],
    [{ skip_checks: true }, undefined, 'destructive'],
    [{ skipChecks: true }, undefined, 'destructive'],
    [{ count: 5, force: true }, undefined, 'destructive'],
  ];
  it.each(cases)('vm restart %j targets %j → %s', (params, targets, risk) => {
    const d = classifyAction(TRUSTING.policy, TRUSTING.digest, {
      target: target('vm:web'),
      action: 'restart',
      params,
      ...(targets ? { targets } : {}),
    });
    expect(d.riskClass).toBe(risk);
    // a raised class is never auto, whatever the rule said
    expect(d.autonomy).toBe(risk === 'reversible_low' ? 'auto' : 'escalate');
    if (risk !== 'reversible_low') expect(d.reasons.some((r) => r.startsWith('elevated: '))).toBe(true);
  });

  it('never lowers a class: a caller declaring read_only does not make a restart read_only', () => {
    const d = classifyAction(DEFAULT.policy, DEFAULT.digest, {
      target: target('vm:web'),
      action: 'restart',
      declaredRiskClass: 'read_only',
    });
    expect(d.riskClass).toBe('reversible_low');
  });
});

describe('forbidden action names', () => {
  it.each([
    'delete_all',
    'delete-all',
    'DELETE_ALL',
    'format_storage',
    'modify_host_config',
    'disable_firewall',
    'destroy_cluster',
    'wipe',
    'wipe_disks',
    'wipe-everything',
    'rm_rf',
    'rm-rf-root',
  ])('%s → never, not approvable, whatever the rules or trust', (action) => {
    const d = classifyAction(TRUSTING.policy, TRUSTING.digest, { target: target('vm:web'), action });
    expect(d).toMatchObject({
      autonomy: 'never',
      approval: 'not_approvable',
      riskClass: 'destructive',
      matchedRule: null,
    });
    expect(d.reasons[0]).toMatch(/matches forbidden pattern .*: refused, and no one can approve it/);
  });

  it.each(['swipe', 'restart', 'delete-all-caches'])('%s is not forbidden', (action) => {
    expect(classifyAction(DEFAULT.policy, DEFAULT.digest, { target: target('vm:web'), action }).approval).not.toBe(
      'not_approvable',
    );
  });

  it('adds a policy pattern to the built-ins', () => {
    const p = variant((doc) => (doc.forbidden_actions = ['nuke*']));
    expect(classifyAction(p.policy, p.digest, { target: target('vm:web'), action: 'nuke-it' }).autonomy).toBe('never');
  });
});

describe('run: the command decides, not the caller', () => {
  const hostReadOnly = variant((doc) =>
    doc.approval_rules.push({ entity_type: 'host', action: 'run', risk_class: 'read_only', autonomy_level: 'auto' }),
  );
  it('apt-get install -y nfs-kernel-server on a host declared read_only → config_mutation', () => {
    for (const { policy, digest } of [hostReadOnly, DEFAULT, TRUSTING]) {
      const d = classifyAction(policy, digest, {
        target: target('host:pve1'),
        action: 'run',
        command: 'apt-get install -y nfs-kernel-server',
        declaredRiskClass: 'read_only',
      });
      expect(d).toMatchObject({ riskClass: 'config_mutation', autonomy: 'escalate', approval: 'operator' });
      expect(d.reasons).toContain(
        'command "apt-get install -y nfs-kernel-server" classified config_mutation (package mutation (apt-get install)), whatever the caller declared (read_only): read_only → config_mutation',
      );
    }
    expect(
      classifyAction(hostReadOnly.policy, hostReadOnly.digest, {
        target: target('host:pve1'),
        action: 'run',
        command: 'apt-get install -y x',
      }).matchedRule?.matchedBy,
    ).toBe('type');
  });

  it.each([
    ['uptime', 'read_only', 'auto'],
    ['systemctl status nginx | head -5', 'read_only', 'auto'],
    ['systemctl enable nginx', 'config_mutation', 'escalate'],
    ['echo uptime | bash', 'config_mutation', 'escalate'],
    ['rm -rf /', 'destructive', 'escalate'],
    ['', 'config_mutation', 'escalate'],
  ])('host run %j → %s / %s (trusted)', (command, risk, autonomy) => {
    const d = classifyAction(TRUSTING.policy, TRUSTING.digest, { target: target('host:pve1'), action: 'run', command });
    expect(d).toMatchObject({ riskClass: risk, autonomy });
  });

  it('a run with no command at all fails closed', () => {
    expect(
      classifyAction(TRUSTING.policy, TRUSTING.digest, { target: target('host:pve1'), action: 'run' }).riskClass,
    ).toBe('config_mutation');
  });
});

describe('preflight: run on a vm needs the QEMU guest agent', () => {
  const message =
    'run on vm:web-01 blocked: QEMU guest agent is not running (qm guest exec unavailable). Start the agent first or use a different target.';
  it.each([
    ['missing', {}],
    ['not_running', { qemu_guest_agent: 'not_running' }],
    ['not_configured', { qemu_guest_agent: 'not_configured' }],
    ['not a state', { qemu_guest_agent: true }],
  ])('%s → blocking error with the exact message', (_, observations) => {
    const d = classifyAction(TRUSTING.policy, TRUSTING.digest, {
      target: target('vm:web-01', { observations }),
      action: 'run',
      command: 'uptime',
    });
    expect(d.preflight).toEqual([{ check: 'qemu_guest_agent', ok: false, blocking: true, message }]);
    expect(isBlocked(d)).toBe(true);
    expect(d.reasons).toContain(`preflight qemu_guest_agent: failed, blocking — ${message}`);
  });

  it('running → passes, recorded in the reasons', () => {
    const d = classifyAction(TRUSTING.policy, TRUSTING.digest, {
      target: target('vm:web-01', { observations: { qemu_guest_agent: 'running' } }),
      action: 'run',
      command: 'uptime',
    });
    expect(d.preflight).toMatchObject([{ check: 'qemu_guest_agent', ok: true, blocking: false }]);
    expect(isBlocked(d)).toBe(false);
    expect(d.autonomy).toBe('auto');
  });

  it.each([
    ['only an attribute (agent-written)', { attributes: { qemu_guest_agent: 'running' }, observations: {} }],
    [
      'an attribute, the observation not running',
      {
        attributes: { qemu_guest_agent: 'running' },
        observations: { qemu_guest_agent: 'not_running' },
      },
    ],
  ])('%s → blocked: only the provider observation counts', (_, facts) => {
    const d = classifyAction(TRUSTING.policy, TRUSTING.digest, {
      target: target('vm:web-01', facts),
      action: 'run',
      command: 'uptime',
    });
    expect(d.preflight).toEqual([{ check: 'qemu_guest_agent', ok: false, blocking: true, message }]);
    expect(isBlocked(d)).toBe(true);
  });

  it.each([
    [target('lxc:ct1'), 'run'],
    [target('host:pve1'), 'run'],
    [target('vm:web-01'), 'restart'],
  ])('no guest-agent check for %j %s', (t, action) => {
    expect(classifyAction(DEFAULT.policy, DEFAULT.digest, { target: t, action, command: 'uptime' }).preflight).toEqual(
      [],
    );
  });
});
