import { describe, expect, it } from 'vitest';
import { KINDS, RELATIONSHIP_RULES, RELATIONSHIP_TYPES, isAllowedPair, refusePair } from '../../../src/model/index.js';

describe('relationship rules', () => {
  it.each([
    ['RUNS_ON', 'vm', 'host', true],
    ['RUNS_ON', 'lxc', 'host', true],
    ['RUNS_ON', 'host', 'vm', false],
    ['MEMBER_OF', 'host', 'cluster', true],
    ['MEMBER_OF', 'vm', 'cluster', false],
    ['STORED_ON', 'vm', 'storage', true],
    ['STORED_ON', 'service', 'storage', false],
    ['DEPENDS_ON', 'service', 'vm', true],
    ['DEPENDS_ON', 'storage', 'vm', false],
    ['MANIFESTS_AS', 'host', 'vm', true],
    ['MANIFESTS_AS', 'host', 'storage', false],
  ] as const)('%s %s→%s allowed=%s', (type, from, to, allowed) => {
    expect(isAllowedPair(type, from, to)).toBe(allowed);
  });

  it('names the type and both kinds when refusing', () => {
    const reason = refusePair('RUNS_ON', 'storage', 'cluster');
    expect(reason).toMatch(/RUNS_ON/);
    expect(reason).toMatch(/from storage to cluster/);
    expect(refusePair('RUNS_ON', 'vm', 'host')).toBeNull();
  });

  it('every rule uses known kinds only and allows at least one pair', () => {
    for (const t of RELATIONSHIP_TYPES) {
      expect(RELATIONSHIP_RULES[t].allowed.length).toBeGreaterThan(0);
      for (const [s, d] of RELATIONSHIP_RULES[t].allowed) {
        expect(KINDS).toContain(s);
        expect(KINDS).toContain(d);
      }
    }
  });
});
