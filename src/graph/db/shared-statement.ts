import { type Driver, Record as Neo4jRecord } from 'neo4j-driver';
import { num, readQuery } from './statements.js';

/**
 * The shared statement of coalesced reads (src/graph/coalesced-read.ts): different texts asked in
 * the same turn, as one UNION ALL with a branch per member text. Also what both paths use: the
 * callers of a text as rows, a text inside a per-row subquery, and each text's columns.
 */

/** Texts the shared statement has a branch for, at most (see admit). */
const MAX_SHARED_TEXTS = 8;

export interface Waiter {
  params: Record<string, unknown>;
  resolve: (r: { records: Neo4jRecord[] }) => void;
  reject: (err: unknown) => void;
}

/** The callers of one statement text with the same shared parameters, asked in one turn. */
export interface Group {
  /** What decides the text of its branch in the shared statement: statement and parameter names. */
  fuseKey: string;
  cypher: string;
  perCall: readonly string[];
  shared: Record<string, unknown>;
  waiting: Waiter[];
}

/** Some of a group's callers (at most MAX_BATCH): what one statement, or one branch of one, answers. */
export interface Unit {
  group: Group;
  waiting: Waiter[];
}

/** A text with a branch in the shared statement, and the shared values it was last asked with. */
interface Member {
  key: string;
  cypher: string;
  perCall: readonly string[];
  columns: string[];
  lastShared: Record<string, unknown>;
}

/** One driver's shared statement (plans are Neo4j's, so per driver): its members and text. */
export interface SharedStatement {
  members: Member[];
  text: string | null;
}

/** The columns of each statement text, as Neo4j named them on its first run. */
const columnsOf = new Map<string, string[]>();

/** A text's columns as Neo4j named them (the batched statement's without `__i`). */
export function learnColumns(cypher: string, keys: readonly string[] | null): void {
  if (!keys || columnsOf.has(cypher)) return;
  const columns = keys.filter((k) => k !== '__i');
  columnsOf.set(cypher, columns);
}

/**
 * Makes the turn's texts members of the shared statement once their columns are known, up to
 * MAX_SHARED_TEXTS: each joining one is a new plan for Neo4j to compile (a few hundred ms for a
 * union of walks), so the set only grows, and only that far. Members are kept in text order: the
 * same set is the same statement whatever order its texts first came in.
 */
export function admit(statement: SharedStatement, groups: Group[]): void {
  const joining: Member[] = [];
  for (const g of groups) {
    const columns = columnsOf.get(g.cypher);
    if (!columns || statement.members.length + joining.length >= MAX_SHARED_TEXTS) continue;
    if (statement.members.some((m) => m.key === g.fuseKey) || joining.some((m) => m.key === g.fuseKey)) continue;
    joining.push({ key: g.fuseKey, cypher: g.cypher, perCall: g.perCall, columns, lastShared: g.shared });
  }
  if (joining.length === 0) return;
  // A new array: a shared statement in flight keeps the members it was built from.
  statement.members = [...statement.members, ...joining].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  statement.text = null;
}

/**
 * Runs the units of several texts as the shared statement: a branch per member text, those not
 * asked this turn with no rows (and the shared values they were last asked with: a LIMIT must
 * still be a number). All values travel in one map parameter: Neo4j keys its plans by each
 * parameter's type and list length bucket (1, 2–10, 11–100, more), so separate ones would make a
 * plan per combination of the branches' sizes.
 */
export async function runShared(
  driver: Driver,
  statement: SharedStatement,
  units: (Unit | undefined)[],
  alone: (driver: Driver, unit: Unit) => Promise<void>,
): Promise<void> {
  const { members } = statement;
  const parts = units.map((u) => (u ? rowsOf(u) : undefined));
  const values: Record<string, unknown> = {};
  members.forEach((member, m) => {
    values[`r${m}`] = parts[m]?.rows ?? [];
    for (const [k, v] of Object.entries(member.lastShared)) values[`s${m}_${k}`] = v;
  });
  const asked = units.filter((u) => u !== undefined);
  let records: Neo4jRecord[];
  try {
    ({ records } = await readQuery(driver, sharedCypher(statement), { __p: values }));
  } catch (err) {
    // Whose error it is, each text finds out on its own (`alone`, which asks per caller in turn).
    if (isStatementError(err)) await Promise.all(asked.map((u) => alone(driver, u)));
    else for (const u of asked) for (const w of u.waiting) w.reject(err);
    return;
  }
  const byRow = parts.map((p) => p?.rows.map((): Neo4jRecord[] => []));
  const lookups = members.map((t) => Object.fromEntries(t.columns.map((c, i) => [c, i])));
  for (const r of records) {
    const m = num(r.get('__u') as number);
    byRow[m]![num(r.get('__i') as number)]!.push(
      new Neo4jRecord(members[m]!.columns, r.get('__v') as unknown[], lookups[m]),
    );
  }
  units.forEach((unit, m) =>
    unit?.waiting.forEach((w, i) => w.resolve({ records: byRow[m]![parts[m]!.rowOf[i]!]!.slice() })),
  );
}

/** The shared statement's text: a UNION ALL branch per member, its shared parameters renamed apart. */
function sharedCypher(statement: SharedStatement): string {
  statement.text ??= statement.members
    .map(({ cypher, perCall, columns, lastShared }, m) => {
      let inner = cypher;
      for (const k of Object.keys(lastShared)) inner = inner.replace(new RegExp(`\\$${k}\\b`, 'g'), `$__p.s${m}_${k}`);
      const listed = columns.map((c) => `\`${c.replace(/`/g, '``')}\``).join(', ');
      return `${perRow(inner, perCall, `$__p.r${m}`)}\nRETURN ${m} AS __u, __i, [${listed}] AS __v`;
    })
    .join('\nUNION ALL\n');
  return statement.text;
}

/** The rows a unit sends (callers asking exactly the same share one) and each caller's row. */
export function rowsOf(unit: Unit): { rows: Record<string, unknown>[]; rowOf: number[] } {
  const rows: Record<string, unknown>[] = [];
  const rowOf: number[] = [];
  const rowByKey = new Map<string, number>();
  for (const w of unit.waiting) {
    const row = Object.fromEntries(unit.group.perCall.map((k) => [k, w.params[k] ?? null]));
    const key = JSON.stringify(row);
    let i = rowByKey.get(key);
    if (i === undefined) rowByKey.set(key, (i = rows.push(row) - 1));
    rowOf.push(i);
  }
  return { rows, rowOf };
}

/** `cypher` inside a per-row subquery: each per-call `$p` read from the row as `__row.p`. */
export function perRow(cypher: string, perCall: readonly string[], rows: string): string {
  let inner = cypher;
  for (const p of perCall) inner = inner.replace(new RegExp(`\\$${p}\\b`, 'g'), `__row.${p}`);
  return `UNWIND range(0, size(${rows}) - 1) AS __i
CALL (__i) { WITH ${rows}[__i] AS __row ${inner} }`;
}

/** Neo4j refused the statement (its text or a value), as opposed to being unavailable. */
export function isStatementError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('Neo.ClientError.');
}
