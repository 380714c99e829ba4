import { describe, expect, it } from 'vitest';
import { planConditions, type CheckView } from '../../../src/scheduler/condition-plan.js';
import type { CheckResult } from '../../../src/model/index.js';

const result = (status: CheckResult['status'], reason: string | null = null, unreachable = false): CheckResult => ({
  status,
  reason,
  unreachable,
  at: '2026-01-01T00:00:00.000Z',
  durationMs: 1,
});
const view = (id: string, over: Partial<CheckView> = {}): CheckView => ({
  id,
  kind: 'http',
  target: `http://127.0.0.1/${id}`,
  failing: false,
  unreachable: false,
  results: [result('pass')],
  ran: false,
  ...over,
});
const actions = (before: CheckView[], after: CheckView[]) =>
  planConditions('r1', before, after, 3).map((a) => `${a.action}:${a.type}`);

describe('planConditions', () => {
  const F = { failing: true, results: [result('fail', 'expected status 200, got 503')] };
  const U = { unreachable: true, failing: true, results: [result('fail', 'timed out connecting', true)] };
  const table: Array<[string, CheckView[], CheckView[], string[]]> = [
    ['nothing active, nothing changes', [view('a')], [view('a', { ran: true })], []],
    ['a check becomes failing → open', [view('a')], [view('a', { ...F, ran: true })], ['open:check_failing']],
    [
      'still failing and it ran → refresh evidence',
      [view('a', F)],
      [view('a', { ...F, ran: true })],
      ['refresh:check_failing'],
    ],
    ['still failing, did not run → nothing', [view('a', F), view('b')], [view('a', F), view('b', { ran: true })], []],
    [
      'second check starts failing while one already is → refresh',
      [view('a', F), view('b')],
      [view('a', F), view('b', { ...F, ran: true })],
      ['refresh:check_failing'],
    ],
    [
      'one of two failing checks recovers while the other did not run → nothing (stays open)',
      [view('a', F), view('b', F)],
      [view('a', { ran: true }), view('b', F)],
      [],
    ],
    ['last failing check recovers → resolve', [view('a', F)], [view('a', { ran: true })], ['resolve:check_failing']],
    [
      'unreachable opens both',
      [view('a')],
      [view('a', { ...U, ran: true })],
      ['open:check_failing', 'open:unreachable'],
    ],
    [
      'reachable again but still failing',
      [view('a', U)],
      [view('a', { ...F, ran: true })],
      ['refresh:check_failing', 'resolve:unreachable'],
    ],
  ];
  it.each(table)('%s', (_n, before, after, expected) => {
    expect(actions(before, after)).toEqual(expected);
  });

  it('puts the last K results of the active checks in the evidence, marked as the scheduler’s, with no attribution', () => {
    const results = [1, 2, 3, 4, 5].map((i) => result('fail', `got 50${i}`));
    const [open] = planConditions('r1', [view('a')], [view('a', { failing: true, results, ran: true })], 3);
    expect(open).toMatchObject({ action: 'open', resourceId: 'r1', type: 'check_failing' });
    expect(open!.evidence.source).toBe('health-scheduler');
    expect(open!.evidence.checks).toHaveLength(1);
    expect(open!.evidence.checks[0]!.results.map((r) => r.reason)).toEqual(['got 501', 'got 502', 'got 503']);
    expect(open!.evidence.summary).toBe('http http://127.0.0.1/a failed 3 times in a row (latest: got 501)');
    expect(open).not.toHaveProperty('attribution');
  });

  it('resolves with the recovered checks’ passes as evidence', () => {
    const [resolve] = planConditions(
      'r1',
      [view('a', F)],
      [view('a', { results: [result('pass'), result('pass'), result('pass'), result('fail')], ran: true })],
      3,
    );
    expect(resolve!.action).toBe('resolve');
    expect(resolve!.evidence.checks[0]!.results.map((r) => r.status)).toEqual(['pass', 'pass', 'pass']);
    expect(resolve!.evidence.summary).toMatch(/passed 3 times in a row/);
  });
});
