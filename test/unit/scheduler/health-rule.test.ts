import { describe, expect, it } from 'vitest';
import { deriveHealth, summariseHealth, type HealthInput } from '../../../src/scheduler/health-rule.js';

const c = (status: HealthInput['status'], critical = false): HealthInput => ({ status, critical });

describe('deriveHealth (the one health rule)', () => {
  const table: Array<[string, HealthInput[], string, string]> = [
    ['no checks', [], 'unknown', 'no_checks'],
    ['one check never run', [c(null)], 'unknown', 'no_answers'],
    ['all unknown', [c('unknown'), c('unknown')], 'unknown', 'no_answers'],
    ['one pass', [c('pass')], 'healthy', 'all_answers_pass'],
    ['all pass', [c('pass'), c('pass'), c('pass')], 'healthy', 'all_answers_pass'],
    ['pass and unknown: unknown abstains', [c('pass'), c('unknown')], 'healthy', 'all_answers_pass'],
    ['pass and never run', [c('pass'), c(null)], 'healthy', 'all_answers_pass'],
    ['one fail', [c('fail')], 'unhealthy', 'all_answers_fail'],
    ['all fail', [c('fail'), c('fail')], 'unhealthy', 'all_answers_fail'],
    ['fail and unknown: every answer failed', [c('fail'), c('unknown')], 'unhealthy', 'all_answers_fail'],
    ['some fail, some pass', [c('pass'), c('fail')], 'degraded', 'some_fail'],
    ['one of three fails', [c('pass'), c('pass'), c('fail')], 'degraded', 'some_fail'],
    ['some fail, some pass, some unknown', [c('pass'), c('fail'), c('unknown')], 'degraded', 'some_fail'],
    ['a critical check fails among passes', [c('pass'), c('pass'), c('fail', true)], 'unhealthy', 'critical_failed'],
    ['a critical check passes, another fails', [c('pass', true), c('fail')], 'degraded', 'some_fail'],
    ['a critical check is unknown', [c('unknown', true), c('pass')], 'healthy', 'all_answers_pass'],
  ];
  it.each(table)('%s', (_name, checks, health, rule) => {
    const v = deriveHealth(checks);
    expect(v.health).toBe(health);
    expect(v.rule).toBe(rule);
    expect(v.pass + v.fail + v.unknown).toBe(checks.length);
  });

  it('counts each status', () => {
    expect(deriveHealth([c('pass'), c('fail'), c('fail'), c(null)])).toMatchObject({ pass: 1, fail: 2, unknown: 1 });
  });
});

describe('summariseHealth', () => {
  it('states the health, the counts and the first failure', () => {
    expect(summariseHealth(deriveHealth([c('pass'), c('fail')]), 'http http://x/: expected status 200, got 503')).toBe(
      'degraded: 1 pass, 1 fail, 0 unknown — http http://x/: expected status 200, got 503',
    );
    expect(summariseHealth(deriveHealth([c('pass')]), null)).toBe('healthy: 1 pass, 0 fail, 0 unknown');
    expect(summariseHealth(deriveHealth([]), null)).toBe('unknown: no checks');
  });
});
