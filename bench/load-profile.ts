/**
 * What bench:load's writes cost Neo4j, statement by statement: one classifyAction and one
 * createRelationship are asked through the service with a recording driver, and each statement
 * they sent is run again under PROFILE (a write inside a transaction rolled back, so nothing is
 * stored twice): its db hits and its costliest operators. Then each operation is asked alone
 * `n` times in turn, one caller, for Neo4j's and this process's CPU per call. bench:load
 * --phase profile prints both.
 */
import type { Driver, ManagedTransaction } from 'neo4j-driver';
import { fmt } from './support.js';

interface PlanNode {
  operatorType: string;
  dbHits: number;
  rows: number;
  arguments: Record<string, unknown>;
  children: PlanNode[];
}

/** One statement as sent: its text and parameters. */
export interface Sent {
  text: string;
  params: Record<string, unknown>;
}

/**
 * Wraps `driver` so every statement sent through it (executeQuery, session.run, tx.run) is appended
 * to `sent` while `on()` holds. The wrapped driver is otherwise the same.
 */
export function recordingDriver(driver: Driver, sent: Sent[], on: () => boolean): Driver {
  const note = (a: unknown[]) => {
    if (on()) sent.push({ text: String(a[0]), params: (a[1] ?? {}) as Record<string, unknown> });
  };
  const wrapTx = (tx: any) =>
    new Proxy(tx, { get: (t, p) => (p === 'run' ? (...a: unknown[]) => (note(a), t.run(...a)) : Reflect.get(t, p)) });
  const wrapSession = (s: any) =>
    new Proxy(s, {
      get(target, prop) {
        if (prop === 'run') return (...a: unknown[]) => (note(a), target.run(...a));
        if (prop === 'executeRead' || prop === 'executeWrite')
          return (work: (tx: unknown) => unknown, cfg?: unknown) =>
            target[prop]((tx: unknown) => work(wrapTx(tx)), cfg);
        const v = Reflect.get(target, prop);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
  return new Proxy(driver, {
    get(target, prop) {
      if (prop === 'executeQuery') return (...a: unknown[]) => (note(a), (target.executeQuery as any)(...a));
      if (prop === 'session') return (...a: unknown[]) => wrapSession((target.session as any)(...a));
      const v = Reflect.get(target, prop);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

function sumHits(p: PlanNode): number {
  return p.dbHits + p.children.reduce((n, c) => n + sumHits(c), 0);
}

function operators(p: PlanNode, out: PlanNode[] = []): PlanNode[] {
  out.push(p);
  for (const c of p.children) operators(c, out);
  return out;
}

class Rollback extends Error {}

/** `v` with every `id` field renamed apart: a write profiled again must not hit its own unique ids. */
function freshIds(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(freshIds);
  if (v === null || typeof v !== 'object' || v.constructor !== Object) return v;
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => [k, k === 'id' && typeof x === 'string' ? `${x}-profiled` : freshIds(x)]),
  );
}

/** `s` under PROFILE, rolled back: its db hits and its three costliest operators. */
async function profileOne(driver: Driver, s: Sent): Promise<{ hits: number; top: string }> {
  let plan: PlanNode | undefined;
  const session = driver.session();
  try {
    await session.executeWrite(async (tx: ManagedTransaction) => {
      const res = await tx.run(`PROFILE ${s.text}`, freshIds(s.params) as Record<string, unknown>);
      plan = res.summary.profile as unknown as PlanNode;
      throw new Rollback();
    });
  } catch (err) {
    if (!(err instanceof Rollback)) throw err;
  } finally {
    await session.close();
  }
  const top = operators(plan!)
    .filter((o) => o.dbHits > 0)
    .sort((a, b) => b.dbHits - a.dbHits)
    .slice(0, 3)
    .map((o) => `${o.operatorType.replace(/@.*/, '')} ${o.dbHits} (${String(o.arguments.Details ?? '').slice(0, 60)})`)
    .join('; ');
  return { hits: sumHits(plan!), top };
}

/** Each of `sent`'s statements profiled: one line each, and the db hits in all. */
export async function profileStatements(driver: Driver, name: string, sent: Sent[]): Promise<number> {
  let total = 0;
  for (const [i, s] of sent.entries()) {
    const { hits, top } = await profileOne(driver, s);
    total += hits;
    const head = s.text.replace(/\s+/g, ' ').slice(0, 70);
    console.log(`${name} statement ${i + 1}: ${hits} db hits — ${head}…\n    ${top}`);
  }
  return total;
}

/** `n` calls of `call` one after another: CPU per call of this process and of Neo4j (`neoCpuMs`), ms. */
export async function cpuPerCall(
  n: number,
  call: (i: number) => Promise<unknown>,
  neoCpuMs: () => number | null,
): Promise<{ aitia: number; neo4j: number | null; wallMs: number }> {
  const cpu0 = process.cpuUsage();
  const neo0 = neoCpuMs();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await call(i);
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const neo1 = neoCpuMs();
  return {
    aitia: (cpu.user + cpu.system) / 1000 / n,
    neo4j: neo0 === null || neo1 === null ? null : (neo1 - neo0) / n,
    wallMs: wall / n,
  };
}

export const cpuLine = (name: string, c: { aitia: number; neo4j: number | null; wallMs: number }) =>
  `${name}: ${fmt(c.wallMs)} ms per call alone, CPU ${fmt(c.aitia)} ms aitia + ${c.neo4j === null ? 'n/a' : fmt(c.neo4j)} ms Neo4j`;

/** What the profile phase found per write: db hits of one call's statements, and CPU per call alone. */
export interface WriteProfile {
  name: string;
  statements: number;
  dbHits: number;
  cpu: { aitia: number; neo4j: number | null; wallMs: number };
}

/**
 * Profiles bench:load's two writes, asked through the service in-process as the bench's agent
 * (`ops`: each write's call with the recording driver's deps): one call's statements under PROFILE,
 * then `n` calls alone for CPU per call.
 */
export async function profileWrites(
  driver: Driver,
  ops: Array<{ name: string; call: (d: Driver, i: number) => Promise<unknown> }>,
  neoCpuMs: () => number | null,
  n = 300,
): Promise<WriteProfile[]> {
  const sent: Sent[] = [];
  let on = false;
  const recording = recordingDriver(driver, sent, () => on);
  const out: WriteProfile[] = [];
  for (const op of ops) {
    sent.length = 0;
    on = true;
    await op.call(recording, 7);
    on = false;
    const dbHits = await profileStatements(driver, op.name, [...sent]);
    const statements = sent.length;
    const cpu = await cpuPerCall(n, (i) => op.call(driver, i), neoCpuMs);
    console.log(cpuLine(op.name, cpu));
    out.push({ name: op.name, statements, dbHits, cpu });
  }
  return out;
}
