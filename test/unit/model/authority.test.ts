import { describe, expect, it } from 'vitest';
import {
  declaredEdgeProblem,
  type DeclaredEnd,
  type Kind,
  observedAttributes,
  planAttributeUpdate,
  type Provider,
  type RelationshipType,
  type Role,
} from '../../../src/model/index.js';

describe('planAttributeUpdate: every key a provider can report is reserved, whatever the last pass said', () => {
  const cases: Array<[Provider, Kind, string[], string, RegExp | null]> = [
    // The last pass did not report them: still reserved.
    [
      'proxmox',
      'vm',
      [],
      'qemu_guest_agent',
      /^qemu_guest_agent is an observation the proxmox provider reports for a vm \(reserved whether or not its last pass reported it\)/,
    ],
    ['proxmox', 'vm', [], 'lock', /^lock is an observation the proxmox provider reports for a vm/],
    ['proxmox', 'vm', [], 'hastate', /^hastate is an observation the proxmox provider reports/],
    ['proxmox', 'vm', [], 'serial_number', /^serial_number is an observation the proxmox provider/],
    ['proxmox', 'lxc', [], 'lock', /^lock is an observation the proxmox provider reports for a lxc/],
    // vCenter never reports these on a VM: another provider does, so they are reserved on every VM.
    [
      'vcenter',
      'vm',
      [],
      'qemu_guest_agent',
      /^qemu_guest_agent is an observation the proxmox provider reports for a vm; an agent cannot write it, on a vcenter vm either/,
    ],
    ['vcenter', 'vm', [], 'lock', /on a vcenter vm either/],
    ['vcenter', 'vm', [], 'hastate', /on a vcenter vm either/],
    ['vcenter', 'vm', [], 'serial_number', /^serial_number is an observation the proxmox provider reports for a vm/],
    [
      'vcenter',
      'host',
      [],
      'serial_number',
      /^serial_number is an observation the vcenter provider reports for a host/,
    ],
    ['vcenter', 'host', [], 'smbios_uuid', /^smbios_uuid is an observation the vcenter provider reports for a host/],
    ['vcenter', 'vm', [], 'mac_addresses', /^mac_addresses is an observation the vcenter provider reports for a vm/],
    // A key outside the catalogue that an ingester wrote this pass stays the provider's.
    ['proxmox', 'vm', ['rack'], 'rack', /^rack is reported by the proxmox provider/],
    // Descriptive keys are free.
    ['proxmox', 'vm', [], 'owner', null],
    ['vcenter', 'vm', [], 'runbook', null],
    // A manual resource has no observations.
    ['manual', 'service', [], 'version', null],
    ['manual', 'host', [], 'serial_number', null],
  ];
  it.each(cases)('%s %s (last pass %j): %s → %s', (provider, kind, keys, key, reason) => {
    const planned = planAttributeUpdate({ [key]: 'x' }, { provider, kind, providerAttributeKeys: keys });
    if (!planned.ok) throw new Error(planned.reason);
    if (reason === null) {
      expect(planned.plan.set).toEqual({ [key]: 'x' });
      expect(planned.plan.ignored).toEqual([]);
    } else {
      expect(planned.plan.set).toEqual({});
      expect(planned.plan.ignored).toEqual([{ key, reason: expect.stringMatching(reason) }]);
      expect(planned.plan.message).toBe('0 attribute(s) written; 1 ignored (see ignored).');
    }
  });

  it('health keeps its own message; other keys of the same call are still written', () => {
    const planned = planAttributeUpdate(
      { health: 'healthy', lock: 'backup', owner: 'team-a' },
      { provider: 'vcenter', kind: 'vm', providerAttributeKeys: [] },
    );
    if (!planned.ok) throw new Error(planned.reason);
    expect(planned.plan.set).toEqual({ owner: 'team-a' });
    expect(planned.plan.ignored.map((i) => i.key)).toEqual(['health', 'lock']);
  });
});

describe('observedAttributes: only values a provider wrote', () => {
  it.each([
    [{ qemu_guest_agent: 'running', owner: 'a' }, ['qemu_guest_agent'], { qemu_guest_agent: 'running' }],
    [{ qemu_guest_agent: 'running' }, [], {}],
    [{ serial_number: 'S1' }, ['serial_number', 'lock'], { serial_number: 'S1' }],
  ])('%j with provider keys %j → %j', (attributes, providerAttributeKeys, observed) => {
    expect(observedAttributes({ attributes, providerAttributeKeys })).toEqual(observed);
  });
});

describe('declaredEdgeProblem: who may declare which edge', () => {
  const provider: DeclaredEnd = { id: 'proxmox:lab/qemu/101', provider: 'proxmox', declaredBy: null };
  const vcenter = { id: 'vcenter:vc/vm/vm-1', provider: 'vcenter' as const, declaredBy: null };
  const own = { id: 'manual:service/pg', provider: 'manual' as const, declaredBy: 'agent-1' };
  const theirs = { id: 'manual:service/redis', provider: 'manual' as const, declaredBy: 'agent-2' };
  const seeded = { id: 'manual:service/legacy', provider: 'manual' as const, declaredBy: null };
  const agent = { name: 'agent-1', role: 'agent' as Role };
  const operator = { name: 'ops', role: 'operator' as Role };
  const cases: Array<[string, RelationshipType, DeclaredEnd, typeof agent, string | null, RegExp | null]> = [
    ['agent DEPENDS_ON from a provider vm', 'DEPENDS_ON', provider, agent, null, null],
    ['agent DEPENDS_ON from a manual service', 'DEPENDS_ON', theirs, agent, null, null],
    [
      'agent RUNS_ON from a provider vm',
      'RUNS_ON',
      provider,
      agent,
      'input.type',
      /^RUNS_ON from proxmox:lab\/qemu\/101 is observed by its proxmox provider, never declared/,
    ],
    [
      'operator RUNS_ON from a provider vm',
      'RUNS_ON',
      provider,
      operator,
      'input.type',
      /observed by its proxmox provider/,
    ],
    [
      'agent MEMBER_OF from a vcenter host',
      'MEMBER_OF',
      vcenter,
      agent,
      'input.type',
      /^MEMBER_OF from vcenter:vc\/vm\/vm-1 is observed by its vcenter provider/,
    ],
    [
      'agent STORED_ON from a provider vm',
      'STORED_ON',
      provider,
      agent,
      'input.type',
      /^STORED_ON from .* is observed/,
    ],
    [
      'agent MANIFESTS_AS between provider resources',
      'MANIFESTS_AS',
      provider,
      agent,
      'input.type',
      /only an operator may declare one/,
    ],
    [
      'agent MANIFESTS_AS from its own manual resource',
      'MANIFESTS_AS',
      own,
      agent,
      'input.type',
      /only an operator may declare one/,
    ],
    ['operator MANIFESTS_AS between provider resources', 'MANIFESTS_AS', vcenter, operator, null, null],
    ['agent RUNS_ON from the manual resource it declared', 'RUNS_ON', own, agent, null, null],
    [
      'agent RUNS_ON from another agent’s manual resource',
      'RUNS_ON',
      theirs,
      agent,
      'input.source',
      /^manual:service\/redis was declared by agent-2: only its declarer or an operator may declare its RUNS_ON/,
    ],
    [
      'agent RUNS_ON from a manual resource nobody declared',
      'RUNS_ON',
      seeded,
      agent,
      'input.source',
      /was not declared by a principal/,
    ],
    ['operator RUNS_ON from any manual resource', 'RUNS_ON', theirs, operator, null, null],
  ];
  it.each(cases)('%s', (_, type, source, principal, field, reason) => {
    const problem = declaredEdgeProblem(type, source, principal);
    if (field === null) expect(problem).toBeNull();
    else expect(problem).toEqual({ field, reason: expect.stringMatching(reason!) });
  });
});
