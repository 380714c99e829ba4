import { describe, expect, it } from 'vitest';
import type { CheckRecord } from '../../../src/model/index.js';
import { httpSpecOf, recentResults, tcpSpecOf } from '../../../src/services/checks.js';

const check = (over: Partial<CheckRecord>): CheckRecord => ({
  id: 'c',
  resourceId: 'r',
  kind: 'provider_state',
  spec: {},
  intervalSeconds: 60,
  critical: false,
  createdBy: 'x',
  createdAt: '2026-01-01T00:00:00Z',
  nextDueAt: null,
  lastRunAt: null,
  results: [],
  failing: { active: false, failStreak: 0, passStreak: 0 },
  unreachable: { active: false, failStreak: 0, passStreak: 0 },
  ...over,
});

describe('a check as read', () => {
  it('types the spec of its own kind only', () => {
    const http = check({ kind: 'http', spec: { url: 'http://x/', expectedStatus: 200, timeoutMs: 5000 } });
    expect(httpSpecOf(http)).toEqual({ url: 'http://x/', expectedStatus: 200, timeoutMs: 5000 });
    expect(tcpSpecOf(http)).toBeNull();
    const tcp = check({ kind: 'tcp', spec: { host: 'h', port: 22, timeoutMs: 1000 } });
    expect(tcpSpecOf(tcp)).toEqual({ host: 'h', port: 22, timeoutMs: 1000 });
    expect(httpSpecOf(tcp)).toBeNull();
  });

  it('gives the newest `last` results; last must be a positive integer', () => {
    const results = [1, 2, 3].map((n) => ({
      status: 'pass' as const,
      at: `2026-01-01T00:00:0${n}Z`,
      durationMs: n,
      reason: null,
      unreachable: false,
    }));
    const c = check({ results });
    expect(recentResults(c, 2)).toEqual(results.slice(0, 2));
    expect(recentResults(c, null)).toEqual(results);
    expect(() => recentResults(c, 0)).toThrow('last: must be a positive integer');
  });
});
