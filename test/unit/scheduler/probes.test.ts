import { describe, expect, it } from 'vitest';
import { connectFailure, timeoutFailure } from '../../../src/scheduler/probes/outcome.js';
import { probeGuestAgent, probeProviderState, type ResourceFacts } from '../../../src/scheduler/probes/state-probes.js';
import { KINDS, STATES, type Kind } from '../../../src/model/index.js';

const err = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('connectFailure: what counts as unreachable', () => {
  const table: Array<[string, boolean, RegExp]> = [
    ['ECONNREFUSED', false, /connection refused by h:1/],
    ['EHOSTUNREACH', true, /unreachable \(EHOSTUNREACH\)/],
    ['ENETUNREACH', true, /unreachable/],
    ['EHOSTDOWN', true, /unreachable/],
    ['ETIMEDOUT', true, /unreachable/],
    ['ENOTFOUND', false, /cannot resolve h:1/],
    ['ECONNRESET', false, /connection reset/],
    ['HPE_INVALID_CONSTANT', false, /invalid HTTP response from h:1/],
    ['EPROTO', false, /h:1: EPROTO/],
  ];
  it.each(table)('%s → unreachable=%s', (code, unreachable, reason) => {
    const o = connectFailure(err(code), 'h:1');
    expect(o).toMatchObject({ status: 'fail', unreachable });
    expect(o.reason).toMatch(reason);
  });

  it('a timeout is unreachable only when no connection was made', () => {
    expect(timeoutFailure('h:1', 300, false)).toEqual({
      status: 'fail',
      unreachable: true,
      reason: 'timed out after 300 ms connecting to h:1',
    });
    expect(timeoutFailure('h:1', 300, true)).toEqual({
      status: 'fail',
      unreachable: false,
      reason: 'timed out after 300 ms waiting for h:1 to answer',
    });
  });
});

const facts = (kind: Kind, state: string | null, over: Partial<ResourceFacts> = {}): ResourceFacts => ({
  kind,
  state,
  rawState: null,
  lifecycle: 'active',
  properties: {},
  ...over,
});

describe('provider_state', () => {
  const table: Array<[Kind, string, 'pass' | 'fail' | 'unknown', boolean]> = [
    ['vm', 'running', 'pass', false],
    ['vm', 'migrating', 'pass', false],
    ['vm', 'stopped', 'fail', false],
    ['vm', 'paused_io_error', 'fail', false],
    ['vm', 'unreachable', 'fail', true],
    ['vm', 'unknown', 'unknown', false],
    ['host', 'online', 'pass', false],
    ['host', 'offline', 'fail', false],
    ['host', 'maintenance', 'fail', false],
    ['host', 'unreachable', 'fail', true],
    ['cluster', 'degraded', 'fail', false],
    ['lxc', 'frozen', 'fail', false],
    ['storage', 'available', 'pass', false],
    ['service', 'up', 'pass', false],
    ['service', 'down', 'fail', false],
    ['network', 'down', 'fail', false],
  ];
  it.each(table)('%s %s → %s (unreachable=%s)', (kind, state, status, unreachable) => {
    const o = probeProviderState(facts(kind, state));
    expect(o).toMatchObject({ status, unreachable });
    expect(o.reason === null).toBe(status === 'pass');
  });

  it.each(KINDS)('every %s state has a verdict, and only unknown is unknown', (kind) => {
    for (const state of STATES[kind])
      expect(probeProviderState(facts(kind, state)).status === 'unknown').toBe(state === 'unknown');
  });

  it('names the provider word in the reason, and treats a missing resource as stale', () => {
    expect(probeProviderState(facts('vm', 'paused', { rawState: 'io-error' })).reason).toBe(
      'vm is paused (provider says "io-error")',
    );
    expect(probeProviderState(facts('vm', 'running', { lifecycle: 'missing' }))).toMatchObject({
      status: 'unknown',
      reason: expect.stringMatching(/stale/),
    });
    expect(probeProviderState(facts('vm', 'online'))).toMatchObject({
      status: 'unknown',
      reason: 'state "online" is not a vm state',
    });
  });
});

describe('proxmox_agent (qemu_guest_agent as the Proxmox ingest records it)', () => {
  const table: Array<[unknown, 'pass' | 'fail' | 'unknown', RegExp | null]> = [
    ['running', 'pass', null],
    ['not_running', 'fail', /not running/],
    ['not_configured', 'fail', /no QEMU guest agent configured/],
    [undefined, 'unknown', /not reported/],
    ['garbage', 'unknown', /not reported/],
  ];
  it.each(table)('%s → %s', (value, status, reason) => {
    const o = probeGuestAgent(
      facts('vm', 'running', {
        properties:
          value === undefined ? {} : { 'attr.qemu_guest_agent': value, providerAttrKeys: ['qemu_guest_agent'] },
      }),
    );
    expect(o.status).toBe(status);
    if (reason) expect(o.reason).toMatch(reason);
    else expect(o.reason).toBeNull();
    expect(o.unreachable).toBe(false);
  });

  it('an agent-written qemu_guest_agent (not among the provider keys) is not reported', () => {
    const o = probeGuestAgent(
      facts('vm', 'running', { properties: { 'attr.qemu_guest_agent': 'running', providerAttrKeys: ['vmid'] } }),
    );
    expect(o).toMatchObject({ status: 'unknown', reason: expect.stringMatching(/not reported/) });
  });
});
