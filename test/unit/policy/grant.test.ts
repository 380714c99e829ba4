import { describe, expect, it } from 'vitest';
import type { AutonomyState } from '../../../src/model/index.js';
import {
  boundInputsOf,
  fieldDigestsOf,
  grantRefusal,
  inputsDigestOf,
  redactCommand,
  redactedInputsOf,
  redactParams,
  type GrantFacts,
} from '../../../src/policy/index.js';

const KEY = 'k'.repeat(64);
const bound = boundInputsOf(
  { action: 'cache_clear', params: { size: 2 }, targets: ['b', 'a', 'b'] },
  'manual:service/x',
);
const normal: AutonomyState = {
  mode: 'normal',
  setBy: null,
  setAt: null,
  reason: null,
  breakerOpenedAt: null,
  breakerReason: null,
};
const grant: GrantFacts = {
  status: 'approved',
  grantExpiresAt: '2026-05-14T02:15:00Z',
  inputsDigest: inputsDigestOf(bound, KEY),
  fieldDigests: fieldDigestsOf(bound, KEY),
  policyDigest: 'p1',
  usedAt: null,
  usedBy: null,
};
const ctx = {
  now: '2026-05-14T02:10:00Z',
  inputs: bound,
  digestKey: KEY,
  policyDigest: 'p1',
  targetLifecycle: 'active' as const,
  autonomy: normal,
};

describe('grantRefusal (table): the first failed check, in a fixed order', () => {
  it.each([
    ['all checks pass', grant, ctx, null, null],
    ['used', { ...grant, status: 'used' as const, usedAt: 'T', usedBy: 'a' }, ctx, 'GRANT_REPLAYED', null],
    [
      'used and expired: replay first',
      { ...grant, status: 'used' as const, grantExpiresAt: '2026-05-14T02:00:00Z' },
      ctx,
      'GRANT_REPLAYED',
      null,
    ],
    ['expired at the very instant', { ...grant, grantExpiresAt: ctx.now }, ctx, 'GRANT_EXPIRED', null],
    [
      'a parameter changed',
      grant,
      { ...ctx, inputs: { ...bound, params: { size: 3 } } },
      'GRANT_MISMATCH',
      'input.params.size',
    ],
    [
      'a parameter added',
      grant,
      { ...ctx, inputs: { ...bound, params: { size: 2, force: true } } },
      'GRANT_MISMATCH',
      'input.params.force',
    ],
    [
      'another target',
      grant,
      { ...ctx, inputs: { ...bound, target: 'manual:service/y' } },
      'GRANT_MISMATCH',
      'input.target',
    ],
    ['a command given', grant, { ...ctx, inputs: { ...bound, command: 'ls' } }, 'GRANT_MISMATCH', 'input.command'],
    [
      'mismatch before policy change',
      grant,
      { ...ctx, policyDigest: 'p2', inputs: { ...bound, action: 'restart' } },
      'GRANT_MISMATCH',
      'input.action',
    ],
    ['policy changed', grant, { ...ctx, policyDigest: 'p2' }, 'POLICY_CHANGED', null],
    ['another installation’s key', grant, { ...ctx, digestKey: 'j'.repeat(64) }, 'GRANT_MISMATCH', 'input.action'],
    ['target destroyed', grant, { ...ctx, targetLifecycle: 'destroyed' as const }, 'TARGET_DESTROYED', null],
    [
      'halted',
      grant,
      { ...ctx, autonomy: { ...normal, mode: 'halt' as const, setBy: 'op', setAt: 'T', reason: 'r' } },
      'HALTED',
      null,
    ],
  ] as const)('%s', (_name, g, c, code, field) => {
    const refusal = grantRefusal(g, c);
    expect(refusal?.code ?? null).toBe(code);
    if (code !== null) expect(refusal!.field).toBe(field);
  });

  it('binds targets as a sorted set and the action canonically', () => {
    expect(bound).toMatchObject({ action: 'cache-clear', targets: ['a', 'b'], command: null });
    expect(
      inputsDigestOf(
        boundInputsOf({ action: 'cache-clear', params: { size: 2 }, targets: ['a', 'b'] }, 'manual:service/x'),
        KEY,
      ),
    ).toBe(inputsDigestOf(bound, KEY));
  });
});

describe('redaction (table)', () => {
  it.each([
    ['mysql --password hunter2 -e "select 1"', 'mysql --password [REDACTED] -e "select 1"'],
    ['psql --password=abc db', 'psql --password=[REDACTED] db'],
    ['curl -H "Authorization: Bearer abc.def" http://x', 'curl -H "Authorization: Bearer [REDACTED]" http://x'],
    ['DB_PASSWORD=s3cret ./run', 'DB_PASSWORD=[REDACTED] ./run'],
    ['curl "https://x/?token=abc&a=1"', 'curl "https://x/?token=[REDACTED]&a=1"'],
    ["export API_KEY='x y'", 'export API_KEY=[REDACTED]'],
    ['systemctl restart nginx', 'systemctl restart nginx'],
  ])('%s', (command, expected) => {
    expect(redactCommand(command)).toBe(expected);
  });

  it('redacts secret-named parameters at every depth and keeps the rest', () => {
    expect(redactParams({ password: 'x', memory: 512, nested: { token: 'y', note: 'password=z' } })).toEqual({
      password: '[REDACTED]',
      memory: 512,
      nested: { token: '[REDACTED]', note: 'password=[REDACTED]' },
    });
    const withSecret = boundInputsOf({ action: 'run', command: 'mysql --password hunter2' }, 'x');
    expect(redactedInputsOf(withSecret)).not.toContain('hunter2');
  });
});
