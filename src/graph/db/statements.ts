import { DateTime } from 'luxon';
import neo4j, { type Driver, isRetryableError, type Record as Neo4jRecord } from 'neo4j-driver';
import { badInput } from '../../model/index.js';
import { utcIso } from '../../model/iso-millis.js';

/**
 * Helpers every repository uses to write its statements: values in and out of Bolt, rows sent in
 * batches (`UNWIND $rows`), and newest-first keyset pages.
 */

/**
 * Converts what the driver returns into plain JSON-able values: Integers to numbers (they are
 * counts, ports and ids well within 2^53), temporal values to ISO-8601 UTC strings.
 */
export function toPlain(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  // Strings, numbers and booleans come through as they are (most values: no type probes).
  if (typeof value !== 'object') return value;
  if (neo4j.isInt(value)) return (value as { toNumber(): number }).toNumber();
  if (neo4j.isDateTime(value)) return isoUtcOf(value as Neo4jDateTime);
  if (Array.isArray(value)) return value.map(toPlain);
  if (typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if ('properties' in v && 'labels' in v) return toPlain(v.properties);
    // A loop, not fromEntries(entries().map()): every read converts its maps; no pairs allocated.
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) out[k] = toPlain(v[k]);
    return out;
  }
  return value;
}

type Neo4jDateTime = InstanceType<typeof neo4j.types.DateTime>;

/** An integer as the driver returns it (an Integer unless configured otherwise), as a number. */
export const num = (v: number | bigint | { toNumber(): number }) =>
  typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : v.toNumber();

/**
 * A datetime as ISO-8601 UTC to the millisecond (`2026-05-14T02:08:29.167Z`, `…:29Z` on a whole
 * second). Every read converts its temporal values, so the common case (offset known, years
 * 1000–9999) is computed with Date.UTC: luxon through toStandardDate cost ~10× as much per value;
 * anything else takes that path still.
 */
export function isoUtcOf(dt: Neo4jDateTime): string | null {
  const year = num(dt.year);
  if (dt.timeZoneOffsetSeconds != null && year >= 1000 && year <= 9999) {
    const ms =
      Date.UTC(
        year,
        num(dt.month) - 1,
        num(dt.day),
        num(dt.hour),
        num(dt.minute),
        num(dt.second),
        Math.floor(num(dt.nanosecond) / 1e6),
      ) -
      num(dt.timeZoneOffsetSeconds) * 1000;
    return utcIso(ms, { suppressMilliseconds: true });
  }
  const d = dt.toStandardDate();
  return DateTime.fromJSDate(d, { zone: 'utc' }).toISO({ suppressMilliseconds: true });
}

/**
 * A read-only statement as one auto-commit transaction: one round trip, where `executeQuery`'s
 * managed transaction takes two (BEGIN+RUN+PULL, then COMMIT) and costs the driver and Neo4j about
 * twice the work for a single statement. It uses executeQuery's bookmark manager, so it still sees
 * every write this process made through executeQuery. A retryable failure (no connection, leader
 * change, transient error) is handed to `executeQuery`, which retries with its usual policy: same
 * behaviour on failure. Only for statements that never write.
 */
export async function readQuery(
  driver: Driver,
  cypher: string,
  params: Record<string, unknown> = {},
): Promise<{ records: Neo4jRecord[]; keys: readonly string[] | null }> {
  const session = driver.session({
    defaultAccessMode: neo4j.session.READ,
    bookmarkManager: driver.executeQueryBookmarkManager,
  });
  try {
    // A guarded driver's run answers with the columns too; a bare one's records carry them.
    const { records, keys } = (await session.run(cypher, params)) as { records: Neo4jRecord[]; keys?: string[] };
    return { records, keys: keys ?? (records[0]?.keys as string[] | undefined) ?? null };
  } catch (err) {
    if (!isRetryableError(err)) throw err;
  } finally {
    await session.close();
  }
  const { records, keys } = await driver.executeQuery(cypher, params, { routing: 'READ' });
  return { records, keys: keys as string[] };
}

/** An ISO-8601 UTC timestamp for `datetime($param)`; defaults to now. */
export function isoNow(): string {
  return DateTime.utc().toISO();
}

/** Bolt sends JS numbers as floats; counts and limits must travel as Integers. */
export function int(n: number) {
  return neo4j.int(Math.trunc(n));
}

/** Runs `write` for each batch of at most `size` rows, in order (one `UNWIND $rows` statement each). */
export async function inBatches<T>(
  rows: readonly T[],
  size: number,
  write: (batch: T[]) => Promise<void>,
): Promise<void> {
  const n = Math.max(1, Math.floor(size));
  for (let i = 0; i < rows.length; i += n) await write(rows.slice(i, i + n));
}

/** The largest page any list returns. */
export const MAX_PAGE_SIZE = 500;

/** A keyset position in a newest-first list: the item's time and id (ties broken by id). */
export interface TimeCursor {
  at: string;
  id: string;
}

/** The opaque Relay cursor of an item at `at` with `id`. */
export function encodeTimeCursor(at: string, id: string): string {
  return Buffer.from(JSON.stringify([at, id])).toString('base64url');
}

/** Reads a cursor made by {@link encodeTimeCursor}; anything else is BAD_USER_INPUT naming `after` and the list. */
export function decodeTimeCursor(after: string, list: string): TimeCursor {
  try {
    const [at, id] = JSON.parse(Buffer.from(after, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof at === 'string' && typeof id === 'string' && DateTime.fromISO(at).isValid) return { at, id };
  } catch {
    // fall through to the error below
  }
  throw badInput('after', `not a cursor returned by ${list}`);
}

/** One page of a newest-first list, with a Relay cursor per item. */
export interface KeysetPage<T> {
  nodes: T[];
  cursors: string[];
  hasNextPage: boolean;
  endCursor: string | null;
}

/**
 * A newest-first keyset page over (time, id): the query's parameters (`$afterAt`, `$afterId`,
 * `$limit` = first + 1), its WHERE fragment, and how to cut the answer into a page. A boundary
 * never skips or repeats an item. `first` outside 1–500 and a foreign cursor are BAD_USER_INPUT.
 */
export function newestFirst(page: { first: number; after?: string | null }, list: string) {
  if (!Number.isInteger(page.first) || page.first < 1 || page.first > MAX_PAGE_SIZE)
    throw badInput('first', `must be an integer from 1 to ${MAX_PAGE_SIZE}, got ${page.first}`);
  const cursor = page.after ? decodeTimeCursor(page.after, list) : null;
  return {
    params: { afterAt: cursor?.at ?? null, afterId: cursor?.id ?? null, limit: int(page.first + 1) },
    /** `alias.timeProp` (a datetime) and `alias.id` strictly after the cursor, newest first. */
    before: (alias: string, timeProp: string) =>
      `($afterAt IS NULL OR ${alias}.${timeProp} < datetime($afterAt) OR (${alias}.${timeProp} = datetime($afterAt) AND ${alias}.id < $afterId))`,
    cut<T>(all: T[], key: (item: T) => TimeCursor): KeysetPage<T> {
      const nodes = all.slice(0, page.first);
      const cursors = nodes.map((n) => {
        const k = key(n);
        return encodeTimeCursor(k.at, k.id);
      });
      return { nodes, cursors, hasNextPage: all.length > page.first, endCursor: cursors.at(-1) ?? null };
    },
  };
}
