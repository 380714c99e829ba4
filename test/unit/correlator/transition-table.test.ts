import { describe, expect, it } from 'vitest';
import { ANY_STATE, TRANSITION_TABLE, expectedEventTypes } from '../../../correlator/index.js';
import { EVENT_TYPES } from '../../../src/model/events.js';
import { isStateOf } from '../../../src/model/states.js';

describe('the transition table is valid data', () => {
  it.each(TRANSITION_TABLE.map((r) => [`${r.kind} ${r.from} → ${r.to}`, r] as const))('%s', (_n, row) => {
    for (const side of [row.from, row.to]) expect(side === ANY_STATE || isStateOf(row.kind, side)).toBe(true);
    for (const t of row.events) expect(EVENT_TYPES).toContain(t);
    expect(row.why.length).toBeGreaterThan(0);
  });

  it('request types are never causes: their executing task is', () => {
    const causes = TRANSITION_TABLE.flatMap((r) => r.events);
    for (const t of ['ha_start_request', 'ha_stop_request', 'ha_migrate_request'] as const)
      expect(causes).not.toContain(t);
  });
});

describe('expectedEventTypes', () => {
  it.each([
    [
      'vm',
      'running',
      'stopped',
      ['vm_stop', 'vm_shutdown', 'vm_delete', 'vm_reboot', 'vm_guest_shutdown_request'],
      ['vm_start'],
    ],
    ['vm', 'stopped', 'running', ['vm_start', 'vm_restarted_by_ha'], ['vm_stop', 'vm_reboot']],
    ['vm', 'running', 'paused', ['vm_pause', 'vm_suspend'], ['vm_stop']],
    ['vm', 'running', 'suspended', ['vm_suspend', 'vm_guest_standby_request'], ['vm_pause']],
    [
      'vm',
      'running',
      'unreachable',
      ['vm_migrate', 'host_disconnect', 'host_connection_lost', 'vm_disconnect'],
      ['vm_stop'],
    ],
    ['vm', 'running', 'migrating', ['vm_migrate'], ['vm_start']],
    ['vm', 'migrating', 'running', ['vm_migrate', 'vm_start', 'vm_resume'], []],
    // The ANY_STATE row: a hard stop from paused, but not a shutdown (a paused guest cannot act on ACPI).
    ['vm', 'paused', 'stopped', ['vm_stop', 'vm_delete'], ['vm_shutdown']],
    ['vm', 'running', 'crashed', [], ['vm_stop', 'vm_backup']],
    ['lxc', 'stopped', 'running', ['vm_start', 'vm_reboot'], []],
    ['lxc', 'running', 'frozen', ['vm_suspend'], []],
    ['host', 'online', 'unreachable', ['host_connection_lost'], []],
    ['storage', 'available', 'unavailable', [], ['vm_stop']],
  ] as const)('%s %s → %s', (kind, from, to, has, hasNot) => {
    const set = expectedEventTypes(TRANSITION_TABLE, kind, from, to);
    for (const t of has) expect(set.has(t)).toBe(true);
    for (const t of hasNot) expect(set.has(t)).toBe(false);
  });

  it('the wildcard only matches through ANY_STATE rows, never a state literally named "*"', () => {
    const custom = [{ kind: 'vm' as const, from: 'running', to: 'stopped', events: ['vm_stop' as const], why: 'test' }];
    expect(expectedEventTypes(custom, 'vm', ANY_STATE, 'stopped').size).toBe(0);
  });
});
