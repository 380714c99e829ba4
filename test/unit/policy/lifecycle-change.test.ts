import { describe, expect, it } from 'vitest';
import { LIFECYCLES, type Lifecycle } from '../../../src/model/kinds.js';
import { LIFECYCLE_REASON_MAX, lifecycleRefusal, planLifecycleChange } from '../../../src/policy/index.js';

describe('operator lifecycle changes', () => {
  // current → wanted: allowed (and changed), or refused on the field
  const cases: Array<[Lifecycle, Lifecycle, true | 'lifecycle']> = [
    ['active', 'deprecated', true],
    ['active', 'destroyed', true],
    ['active', 'provisioning', true],
    ['deprecated', 'active', true],
    ['destroyed', 'active', true],
    ['provisioning', 'active', true],
    ['missing', 'deprecated', true],
    ['missing', 'destroyed', true],
    ['missing', 'active', 'lifecycle'],
    ['missing', 'provisioning', 'lifecycle'],
    ['active', 'missing', 'lifecycle'],
    ['missing', 'missing', 'lifecycle'],
  ];
  it.each(cases)('%s → %s: %s', (current, wanted, outcome) => {
    const plan = planLifecycleChange({ id: 'vm-1', current, wanted, reason: ' retired ' });
    if (outcome === true) expect(plan).toEqual({ ok: true, lifecycle: wanted, reason: 'retired', changed: true });
    else expect(plan).toMatchObject({ ok: false, field: outcome });
  });

  it('says why for missing', () => {
    expect(planLifecycleChange({ id: 'vm-1', current: 'active', wanted: 'missing', reason: 'x' })).toEqual({
      ok: false,
      field: 'lifecycle',
      reason: 'missing is set by ingest when a complete sync no longer sees a resource; it cannot be set by hand',
    });
    expect(planLifecycleChange({ id: 'vm-1', current: 'missing', wanted: 'active', reason: 'x' })).toMatchObject({
      reason: expect.stringMatching(/^vm-1 is missing: .*set deprecated or destroyed instead$/),
    });
  });

  it('the same lifecycle again is allowed and changes nothing', () => {
    expect(planLifecycleChange({ id: 'vm-1', current: 'deprecated', wanted: 'deprecated', reason: 'x' })).toMatchObject(
      { ok: true, changed: false },
    );
  });

  it.each([
    ['', /say why/],
    ['   ', /say why/],
    ['x'.repeat(LIFECYCLE_REASON_MAX + 1), /at most 1000 characters, got 1001/],
  ])('reason %j is refused', (reason, message) => {
    expect(planLifecycleChange({ id: 'vm-1', current: 'active', wanted: 'destroyed', reason })).toMatchObject({
      ok: false,
      field: 'reason',
      reason: expect.stringMatching(message),
    });
  });
});

describe('lifecycleRefusal', () => {
  it.each(LIFECYCLES.map((l) => [l]))('%s', (lifecycle) => {
    const refusal = lifecycleRefusal({ slug: 'vm:db', lifecycle });
    expect(refusal).toBe(lifecycle === 'destroyed' ? 'vm:db is destroyed: every action is refused' : null);
  });
});
