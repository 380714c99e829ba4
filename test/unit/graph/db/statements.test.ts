import { DateTime } from 'luxon';
import neo4j, { Neo4jError } from 'neo4j-driver';
import { describe, expect, it } from 'vitest';
import { isoUtcOf, readQuery, toPlain } from '../../../../src/graph/db/statements.js';

/** What toPlain returned for a datetime before the fast path: luxon over toStandardDate. */
function viaLuxon(dt: InstanceType<typeof neo4j.types.DateTime>): string | null {
  return DateTime.fromJSDate(dt.toStandardDate(), { zone: 'utc' }).toISO({ suppressMilliseconds: true });
}

const dt = (y: number, mo: number, d: number, h: number, mi: number, s: number, ns: number, offset: number) =>
  new neo4j.types.DateTime(
    neo4j.int(y),
    neo4j.int(mo),
    neo4j.int(d),
    neo4j.int(h),
    neo4j.int(mi),
    neo4j.int(s),
    neo4j.int(ns),
    neo4j.int(offset),
  );

describe('isoUtcOf', () => {
  it('writes UTC to the millisecond, without .000 on a whole second', () => {
    expect(isoUtcOf(dt(2026, 5, 14, 2, 8, 29, 167_000_000, 0))).toBe('2026-05-14T02:08:29.167Z');
    expect(isoUtcOf(dt(2026, 5, 14, 2, 8, 29, 0, 0))).toBe('2026-05-14T02:08:29Z');
    expect(isoUtcOf(dt(2026, 1, 1, 0, 30, 0, 999_999, 3600))).toBe('2025-12-31T23:30:00Z');
  });

  it('answers exactly as luxon did, for any offset, sub-millisecond part and year (plain numbers too)', () => {
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let i = 0; i < 5000; i++) {
      const year = [1, 999, 1000, 1970, 2026, 9999][rand(6)]!;
      const value = dt(
        year,
        1 + rand(12),
        1 + rand(28),
        rand(24),
        rand(60),
        rand(60),
        rand(3) === 0 ? 0 : rand(1e9),
        (rand(37) - 18) * 1800,
      );
      expect(isoUtcOf(value)).toBe(viaLuxon(value));
    }
    const plain = new neo4j.types.DateTime(2026, 12, 1, 6, 47, 39, 5_000_000, -7200);
    expect(isoUtcOf(plain)).toBe(viaLuxon(plain));
    expect(toPlain({ at: plain })).toEqual({ at: '2026-12-01T08:47:39.005Z' });
  });
});

describe('readQuery', () => {
  /** A driver whose auto-commit run fails with `error` (or answers), recording what was called. */
  function fakeDriver(error: Error | null) {
    const calls: string[] = [];
    const driver = {
      executeQueryBookmarkManager: { name: 'shared' },
      session(config: { defaultAccessMode: string; bookmarkManager: unknown }) {
        calls.push(
          `session ${config.defaultAccessMode} ${config.bookmarkManager === driver.executeQueryBookmarkManager}`,
        );
        return {
          run: async () => {
            calls.push('run');
            if (error) throw error;
            return { records: ['auto-commit'] };
          },
          close: async () => void calls.push('close'),
        };
      },
      executeQuery: async (_q: string, _p: unknown, config: { routing: string }) => {
        calls.push(`executeQuery ${config.routing}`);
        return { records: ['managed'] };
      },
    };
    return { driver: driver as unknown as Parameters<typeof readQuery>[0], calls };
  }

  it('runs one auto-commit READ statement with executeQuery’s bookmark manager, so it sees this process’s writes', async () => {
    const { driver, calls } = fakeDriver(null);
    expect((await readQuery(driver, 'RETURN 1')).records).toEqual(['auto-commit']);
    expect(calls).toEqual(['session READ true', 'run', 'close']);
  });

  it('hands a retryable failure to executeQuery (its retries), and throws any other', async () => {
    const retryable = fakeDriver(new Neo4jError('gone', 'ServiceUnavailable', '08000', 'connection exception'));
    expect((await readQuery(retryable.driver, 'RETURN 1')).records).toEqual(['managed']);
    expect(retryable.calls).toEqual(['session READ true', 'run', 'close', 'executeQuery READ']);

    const syntax = fakeDriver(new Neo4jError('bad', 'Neo.ClientError.Statement.SyntaxError', '42001', 'syntax error'));
    await expect(readQuery(syntax.driver, 'RETRUN 1')).rejects.toThrow('bad');
    expect(syntax.calls).not.toContain('executeQuery READ');
  });
});
