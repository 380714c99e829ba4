import { beforeAll, describe, expect, it } from 'vitest';
import { coalescedRead, setSharedStatement } from '../../../../src/graph/db/coalesced-read.js';
import { countingDriver } from '../../../../src/graph/db/driver.js';
import { upsertEdges } from '../../../../src/graph/edges.js';
import { getResourceById, getResourcesBySlug } from '../../../../src/graph/resources/read.js';
import { upsertResources } from '../../../../src/graph/resources/upsert.js';
import { authorizationHistory, autonomyState } from '../../../../src/graph/autonomy.js';
import { latestTransitions, listTransitions } from '../../../../src/graph/transitions/read.js';
import { traverseFrom } from '../../../../src/graph/traversal.js';
import { useGraph } from '../../../support/graph.js';

const { driver, scope } = useGraph();
const HOSTS = 3;
const VMS = 12;
const host = (i: number) => `proxmox:${scope}/node/h${i}`;
const vm = (i: number) => `proxmox:${scope}/qemu/${100 + i}`;
const vmSlug = (i: number) => `vm:vm${i}-${scope}`;

beforeAll(async () => {
  await upsertResources(driver, [
    ...Array.from({ length: HOSTS }, (_, i) => ({
      id: host(i),
      kind: 'host' as const,
      provider: 'proxmox' as const,
      name: `h${i}-${scope}`,
      state: 'online',
    })),
    ...Array.from({ length: VMS }, (_, i) => ({
      id: vm(i),
      kind: 'vm' as const,
      provider: 'proxmox' as const,
      name: `vm${i}-${scope}`,
      state: 'running',
    })),
    // Two resources share a name: a slug naming them is ambiguous, and lists both.
    { id: `vcenter:${scope}/vm-1`, kind: 'vm', provider: 'vcenter', name: `vm1-${scope}`, state: 'running' },
  ]);
  await upsertEdges(
    driver,
    Array.from({ length: VMS }, (_, i) => ({
      type: 'RUNS_ON' as const,
      fromId: vm(i),
      toId: host(i % HOSTS),
      provenance: 'observed' as const,
      source: 'test',
    })),
  );
  // Transitions a few seconds apart, some sharing a time (ties are broken by id).
  await driver.executeQuery(
    `UNWIND range(0, 59) AS i
     CREATE (:Transition {id: $scope + '-t' + i, resourceId: $prefix + (100 + i % toInteger($vms)),
                          observedAt: datetime('2026-11-30T12:00:00Z') + duration({seconds: i / 3}),
                          from: 'running', to: 'stopped'})`,
    { scope, prefix: `proxmox:${scope}/qemu/`, vms: VMS },
  );
});

/** Each call alone, one after another: what every caller must also get when they share a statement. */
async function alone<T>(calls: (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = [];
  for (const call of calls) out.push(await call());
  return out;
}

describe('coalescedRead — concurrent reads share one statement, each caller gets its own answer', () => {
  it('resources by slug and by id: the same records as alone, in one statement', async () => {
    const counting = countingDriver(driver);
    const slugs = Array.from({ length: VMS }, (_, i) => vmSlug(i));
    const expected = await alone(slugs.map((s) => () => getResourcesBySlug(driver, s)));
    counting.reset();
    const together = await Promise.all(slugs.map((s) => getResourcesBySlug(counting.driver, s)));
    expect(counting.count()).toBe(1);
    expect(together).toEqual(expected);
    // The shared name: both resources, in id order, for that caller only.
    expect(together[1]!.map((r) => r.id)).toEqual([vm(1), `vcenter:${scope}/vm-1`]);
    expect(together[2]!.map((r) => r.id)).toEqual([vm(2)]);

    counting.reset();
    const ids = [vm(3), 'proxmox:nothing/qemu/1', vm(4)];
    const byId = await Promise.all(ids.map((id) => getResourceById(counting.driver, id)));
    expect(counting.count()).toBe(1);
    expect(byId.map((r) => r?.id ?? null)).toEqual([vm(3), null, vm(4)]);
  });

  it('transition pages keep their own order, limit and refusals', async () => {
    const counting = countingDriver(driver);
    const asks = [
      ...Array.from({ length: 6 }, (_, i) => ({ resource: { slug: vmSlug(i + 2) }, first: 3 })),
      { resource: { slug: `vm:nothing-${scope}` }, first: 3 },
      { resource: { slug: vmSlug(1) }, first: 3 },
    ];
    const expected = await Promise.allSettled(asks.map((a) => listTransitions(driver, a)));
    // Settled one at a time would be the same; allSettled above ran them together too, so compare
    // against strictly sequential answers.
    const sequential: PromiseSettledResult<unknown>[] = [];
    for (const a of asks) sequential.push(await listTransitions(driver, a).then(fulfilled, rejected));
    expect(expected.map(settledView)).toEqual(sequential.map(settledView));

    counting.reset();
    const together = await Promise.all(asks.map((a) => listTransitions(counting.driver, a).then(fulfilled, rejected)));
    expect(counting.count()).toBe(1);
    expect(together.map(settledView)).toEqual(sequential.map(settledView));
    const first = together[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof listTransitions>>>;
    expect(first.value.nodes.map((t) => t.id)).toEqual([`${scope}-t50`, `${scope}-t38`, `${scope}-t26`]);
    expect(first.value.hasNextPage).toBe(true);
    expect(settledView(together[6]!)).toMatch(/NOT_FOUND|not found/);
    expect(settledView(together[7]!)).toMatch(/ambiguous/);

    // Pages by resource id share a statement too.
    counting.reset();
    const byId = await Promise.all(
      [0, 1, 2].map((i) => listTransitions(counting.driver, { resourceId: vm(i), first: 2 })),
    );
    expect(counting.count()).toBe(1);
    expect(byId.map((p) => p.nodes.map((t) => t.id))).toEqual(
      await alone(
        [0, 1, 2].map(
          (i) => async () => (await listTransitions(driver, { resourceId: vm(i), first: 2 })).nodes.map((t) => t.id),
        ),
      ),
    );
  });

  it('walks from several starts: each its own reach', async () => {
    const counting = countingDriver(driver);
    const starts = [host(0), host(1), 'proxmox:nothing/node/x', host(2)];
    const expected = await alone(starts.map((s) => () => traverseFrom(driver, s, 'dependents', 3)));
    counting.reset();
    const together = await Promise.all(starts.map((s) => traverseFrom(counting.driver, s, 'dependents', 3)));
    expect(counting.count()).toBe(1);
    expect(together).toEqual(expected);
    expect(together[0]!.reached.map((r) => r.resource.id)).toHaveLength(VMS / HOSTS);
    expect(together[2]).toEqual({ root: null, reached: [] });
  });

  it("the gate's reads (kill switch, authorization history, last change) asked at once", async () => {
    await driver.executeQuery(
      `UNWIND range(0, 5) AS i
       CREATE (:ActionAuthorized {targetId: $prefix + (100 + i % 3), action: 'restart', source: 'auto',
                                  at: datetime('2026-11-30T12:00:00Z') + duration({minutes: i})})`,
      { prefix: `proxmox:${scope}/qemu/` },
    );
    const history = (i: number, since: string | null) => (d: typeof driver) =>
      authorizationHistory(d, { targetId: vm(i), action: 'restart', since, autoSince: since });
    const asks: Array<(d: typeof driver) => Promise<unknown>> = [
      (d: typeof driver) => autonomyState(d),
      (d: typeof driver) => autonomyState(d),
      history(0, '2026-11-30T12:00:00Z'),
      history(1, '2026-11-30T12:02:00Z'),
      history(2, null),
      history(4, '2026-11-30T12:00:00Z'),
      (d: typeof driver) => latestTransitions(d, [vm(0), vm(1)]),
      (d: typeof driver) => latestTransitions(d, [vm(2), 'proxmox:nothing/qemu/1']),
    ];
    const expected = await alone(asks.map((ask) => () => ask(driver)));
    const counting = countingDriver(driver);
    const together = await Promise.all(asks.map((ask) => ask(counting.driver)));
    expect(together).toEqual(expected);
    // One statement for the kill switch, the last authorizations and the last changes (asked in
    // the same turn), then one for the auto counts (each history asks it after its last one).
    expect(counting.count()).toBe(2);
    expect(expected[2]).toMatchObject({ last: { targetId: vm(0), action: 'restart' }, autoCount: 6 });
    expect(expected[4]).toEqual({ last: null, autoCount: 0 });
    expect([...(expected[6] as Map<string, unknown>).keys()].sort()).toEqual([vm(0), vm(1)]);
  });

  it('different shared parameters do not share rows: each set its own statement, its own limit', async () => {
    const asks = [
      { resourceId: vm(0), first: 2 },
      { resourceId: vm(1), first: 5 },
      { resourceId: vm(2), first: 2 },
    ];
    const ids = (p: Awaited<ReturnType<typeof listTransitions>>) => p.nodes.map((t) => t.id);
    const expected = (await alone(asks.map((a) => () => listTransitions(driver, a)))).map(ids);
    const counting = countingDriver(driver);
    const together = (await Promise.all(asks.map((a) => listTransitions(counting.driver, a)))).map(ids);
    expect(together).toEqual(expected);
    expect(together.map((t) => t.length)).toEqual([2, 5, 2]);
    expect(counting.count()).toBe(2);
  });

  it('different texts asked in the same turn share one statement; each caller gets its own records', async () => {
    const asks: Array<(d: typeof driver) => Promise<unknown>> = [
      (d) => getResourcesBySlug(d, vmSlug(1)),
      (d) => getResourcesBySlug(d, vmSlug(2)),
      (d) => getResourceById(d, vm(3)),
      (d) => getResourceById(d, 'proxmox:nothing/qemu/1'),
      (d) => traverseFrom(d, host(0), 'dependents', 3),
      (d) => traverseFrom(d, host(1), 'dependents', 3),
      (d) => listTransitions(d, { resourceId: vm(0), first: 3 }),
      (d) => listTransitions(d, { resourceId: vm(1), first: 3 }),
      (d) => listTransitions(d, { resource: { slug: vmSlug(4) }, first: 2 }),
      (d) => latestTransitions(d, [vm(5), vm(6)]),
      (d) => autonomyState(d),
    ];
    const expected = await alone(asks.map((ask) => () => ask(driver)));
    const { spy, seen } = spying();
    const together = await Promise.all(asks.map((ask) => ask(spy)));
    expect(together).toEqual(expected);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.cypher.match(/UNION ALL/g)).toHaveLength(6);
    // The same texts are the same statement whatever order they first came in.
    const { spy: again, seen: seenAgain } = spying();
    expect(await Promise.all([...asks].reverse().map((ask) => ask(again)))).toEqual([...expected].reverse());
    expect(seenAgain.map((s) => s.cypher)).toEqual(seen.map((s) => s.cypher));
    // A turn that asks only some of them: the same statement, the others without rows.
    seenAgain.length = 0;
    expect(await Promise.all([asks[0]!(again), asks[4]!(again)])).toEqual([expected[0], expected[4]]);
    expect(seenAgain.map((s) => s.cypher)).toEqual(seen.map((s) => s.cypher));
  });

  it('with the shared statement off for a driver, each text goes as its own statement, same answers', async () => {
    const asks: Array<(d: typeof driver) => Promise<unknown>> = [
      (d) => getResourcesBySlug(d, vmSlug(1)),
      (d) => getResourcesBySlug(d, vmSlug(2)),
      (d) => getResourceById(d, vm(3)),
      (d) => traverseFrom(d, host(0), 'dependents', 3),
      (d) => traverseFrom(d, host(1), 'dependents', 3),
      (d) => listTransitions(d, { resourceId: vm(0), first: 3 }),
    ];
    const expected = await alone(asks.map((ask) => () => ask(driver)));
    const { spy, seen } = spying();
    setSharedStatement(spy, false);
    expect(await Promise.all(asks.map((ask) => ask(spy)))).toEqual(expected);
    expect(seen).toHaveLength(4);
    expect(seen.filter((s) => s.cypher.includes('UNION ALL'))).toEqual([]);
    // On again: the turn is one statement.
    setSharedStatement(spy, true);
    seen.length = 0;
    expect(await Promise.all(asks.map((ask) => ask(spy)))).toEqual(expected);
    expect(seen).toHaveLength(1);
  });

  it('more callers than one statement carries: the rest go in statements of their own, each answered', async () => {
    const ids = Array.from({ length: 450 }, (_, i) => (i % 50 === 49 ? 'proxmox:nothing/qemu/1' : vm(i % VMS)));
    const { spy, seen } = spying();
    const [found, walk] = await Promise.all([
      Promise.all(ids.map((id) => getResourceById(spy, id))),
      traverseFrom(spy, host(1), 'dependents', 3),
    ]);
    expect(found.map((r) => r?.id ?? null)).toEqual(ids.map((id) => (id.startsWith('proxmox:nothing') ? null : id)));
    expect(walk).toEqual(await traverseFrom(driver, host(1), 'dependents', 3));
    // 200 callers at most per statement: the walk with the last 50 look-ups, then 200 and 200.
    expect(seen).toHaveLength(3);
    expect(seen.filter((s) => s.cypher.includes('UNION ALL'))).toHaveLength(1);
  });

  it('a text joins others only after its first run (its columns known); odd column names are quoted', async () => {
    const text = `RETURN $x * 2 AS \`two x\`, 'a' AS a`;
    const { spy, seen } = spying();
    const first = await Promise.all([
      coalescedRead(spy, text, { x: 1 }, ['x']),
      getResourceById(spy, vm(1)).then((r) => r?.id),
    ]);
    expect(Number(first[0].records[0]!.get('two x'))).toBe(2);
    expect(first[1]).toBe(vm(1));
    expect(seen).toHaveLength(2);
    seen.length = 0;
    const [a, b, c] = await Promise.all([
      coalescedRead(spy, text, { x: 3 }, ['x']),
      coalescedRead(spy, text, { x: 4 }, ['x']),
      getResourceById(spy, vm(2)).then((r) => r?.id),
    ]);
    expect(seen).toHaveLength(1);
    expect([a, b].map((r) => r.records.map((rec) => [Number(rec.get('two x')), rec.get('a')]))).toEqual([
      [[6, 'a']],
      [[8, 'a']],
    ]);
    expect(a.records[0]!.keys).toEqual(['two x', 'a']);
    expect(c).toBe(vm(2));
  });

  it('a value Neo4j refuses in a shared statement fails only its caller, whatever text the others asked', async () => {
    const text = 'RETURN 60 / toInteger($x) AS v';
    const { spy, seen } = spying();
    await coalescedRead(spy, text, { x: 1 }, ['x']);
    seen.length = 0;
    const answers = await Promise.all([
      ...[4, 0, 5].map((x) =>
        coalescedRead(spy, text, { x }, ['x']).then(
          (r) => r.records.map((rec) => Number(rec.get('v'))),
          (err: { code?: string }) => err.code,
        ),
      ),
      getResourceById(spy, vm(7)).then((r) => r?.id),
      traverseFrom(spy, host(2), 'dependents', 1).then((w) => w.reached.length),
    ]);
    expect(answers).toEqual([[15], 'Neo.ClientError.Statement.ArithmeticError', [12], vm(7), VMS / HOSTS]);
    // The shared statement failed; each text asked again on its own, then the failing one per caller.
    const shared = seen.findIndex((s) => s.cypher.includes('UNION ALL'));
    expect(shared).not.toBe(-1);
    expect(seen.slice(shared + 1).filter((s) => s.cypher === text)).toHaveLength(3);
  });

  it('a value Neo4j refuses fails only the caller that sent it', async () => {
    const values = [4, 0, 5];
    const answers = await Promise.all(
      values.map((x) =>
        coalescedRead(driver, 'RETURN 20 / toInteger($x) AS v', { x }, ['x']).then(
          (r) => r.records.map((rec) => Number(rec.get('v'))),
          (err: { code?: string }) => err.code,
        ),
      ),
    );
    expect(answers).toEqual([[5], 'Neo.ClientError.Statement.ArithmeticError', [4]]);
  });

  it('callers asking the same share a row: asked once, answered to each', async () => {
    const { spy, seen } = spying();
    const ids = [vm(5), vm(6), vm(5), vm(5), vm(6), vm(7)];
    const found = await Promise.all(ids.map((id) => getResourceById(spy, id)));
    expect(found.map((r) => r?.id)).toEqual(ids);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.params.__rows).toEqual([{ id: vm(5) }, { id: vm(6) }, { id: vm(7) }]);
  });

  it('a lone caller runs its own statement, unchanged', async () => {
    const { spy, seen } = spying();
    const r = await coalescedRead(spy, 'RETURN $x AS v', { x: 1 }, ['x']);
    expect(Number(r.records[0]!.get('v'))).toBe(1);
    expect(seen.map((s) => s.cypher)).toEqual(['RETURN $x AS v']);
  });
});

/** The driver, recording each auto-commit statement it is given (text and parameters). */
function spying() {
  const seen: { cypher: string; params: Record<string, unknown> }[] = [];
  const spy = new Proxy(driver, {
    get(target, prop) {
      if (prop !== 'session') return Reflect.get(target, prop);
      return (...args: Parameters<typeof driver.session>) => {
        const s = target.session(...args);
        return new Proxy(s, {
          get: (t, p) =>
            p === 'run'
              ? (cypher: string, params: Record<string, unknown>) => (
                  seen.push({ cypher, params }),
                  t.run(cypher, params)
                )
              : typeof Reflect.get(t, p) === 'function'
                ? (Reflect.get(t, p) as (...a: unknown[]) => unknown).bind(t)
                : Reflect.get(t, p),
        });
      };
    },
  });
  return { spy, seen };
}

const fulfilled = <T>(value: T): PromiseFulfilledResult<T> => ({ status: 'fulfilled', value });
const rejected = (reason: unknown): PromiseRejectedResult => ({ status: 'rejected', reason });

/** A settled answer as comparable data: the value, or the error's code and message. */
function settledView(s: PromiseSettledResult<unknown>): unknown {
  if (s.status === 'fulfilled') return s.value;
  const e = s.reason as { code?: string; message?: string };
  return `${e.code ?? ''} ${e.message ?? ''}`;
}
