import type { Driver } from 'neo4j-driver';
import { describe, expect, it } from 'vitest';
import { type DriverBounds, guardDriver, healthOf } from '../../../src/graph/db/guarded-driver.js';
import { withNeo4jDeadline } from '../../../src/services/deadline.js';

const BOUNDS: DriverBounds = { connectTimeoutMs: 50, acquireTimeoutMs: 50, retryMs: 0, stallMs: 100, probeMs: 50 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A guarded driver over fakes: `probe` says whether Neo4j answers `RETURN 1`; queries run `query`. */
function fakeDriver(state: { answers: boolean }, query: () => Promise<unknown> = () => Promise.resolve('ok')) {
  const main = { executeQuery: query, close: async () => {} } as unknown as Driver;
  const probe = {
    executeQuery: () => (state.answers ? Promise.resolve('pong') : new Promise(() => {})),
    close: async () => {},
  } as unknown as Driver;
  return guardDriver(main, probe, BOUNDS);
}

const serviceUnavailable = () =>
  Object.assign(new Error('refused'), { name: 'Neo4jError', code: 'ServiceUnavailable' });

/** How long `p` took to settle, and how. */
async function timed(p: Promise<unknown>): Promise<{ ms: number; value?: unknown; code?: unknown }> {
  const started = Date.now();
  try {
    const value = await p;
    return { ms: Date.now() - started, value };
  } catch (err) {
    return { ms: Date.now() - started, code: (err as { code?: unknown }).code };
  }
}

describe('withNeo4jDeadline: one whole operation on an unavailable Neo4j', () => {
  it('a slow operation on a Neo4j that answers goes on past the deadline (a long query is no outage)', async () => {
    const driver = fakeDriver({ answers: true });
    const got = await timed(withNeo4jDeadline({ driver }, () => sleep(350).then(() => 'done')));
    expect(got).toMatchObject({ value: 'done' });
    expect(got.ms).toBeGreaterThanOrEqual(340);
  });

  it('answers UNAVAILABLE within stallMs + probeMs when Neo4j stops answering, however many statements remain', async () => {
    const state = { answers: true };
    const driver = fakeDriver(state, () => new Promise(() => {}));
    // Statements one after another, each waiting on a frozen Neo4j: the sum is not what is waited.
    const work = async () => {
      for (let i = 0; i < 5; i++) await sleep(80);
      state.answers = false;
      return driver.executeQuery('MATCH (n) RETURN n');
    };
    const got = await timed(withNeo4jDeadline({ driver }, work));
    expect(got.code).toBe('UNAVAILABLE');
    expect(got.ms).toBeLessThan(400 + BOUNDS.stallMs + BOUNDS.probeMs + 100);
  });

  it('answers UNAVAILABLE at the first check when Neo4j was down during the operation, though it answers again', async () => {
    const state = { answers: false };
    let calls = 0;
    const driver = fakeDriver(state, () => (calls++ === 0 ? Promise.reject(serviceUnavailable()) : sleep(1000)));
    const work = async () => {
      await driver.executeQuery('CREATE (n)').catch(() => undefined);
      state.answers = true;
      await sleep(20);
      return driver.executeQuery('MATCH (n) RETURN n');
    };
    const got = await timed(withNeo4jDeadline({ driver }, work));
    expect(got.code).toBe('UNAVAILABLE');
    expect(got.ms).toBeLessThan(BOUNDS.stallMs + BOUNDS.probeMs);
  });

  it('leaves an unguarded driver’s operation alone', async () => {
    const driver = { executeQuery: async () => 'ok' } as unknown as Driver;
    await expect(withNeo4jDeadline({ driver }, () => sleep(150).then(() => 'done'))).resolves.toBe('done');
  });
});

describe('guardDriver: which errors mean Neo4j is unavailable', () => {
  const neo4jError = (code: string) => Object.assign(new Error(code), { name: 'Neo4jError', code });
  it.each([
    ['ServiceUnavailable', 'UNAVAILABLE', true],
    ['Neo.TransientError.General.DatabaseUnavailable', 'UNAVAILABLE', true],
    // Two of our own transactions in each other's way: the caller's to retry, and no sign of trouble.
    ['Neo.TransientError.Transaction.DeadlockDetected', 'Neo.TransientError.Transaction.DeadlockDetected', false],
    ['Neo.ClientError.Schema.ConstraintValidationFailed', 'Neo.ClientError.Schema.ConstraintValidationFailed', false],
  ])('%s → %s (troubled: %s)', async (code, expected, troubled) => {
    const started = Date.now();
    const driver = fakeDriver({ answers: true }, () => Promise.reject(neo4jError(code)));
    const got = await timed(driver.executeQuery('RETURN 1'));
    expect(got.code).toBe(expected);
    expect(healthOf(driver)!.troubledSince(started)).toBe(troubled);
  });
});
