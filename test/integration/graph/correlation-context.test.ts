import { DateTime } from 'luxon';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordLogReads, streamCoveragesOf, type LogRead } from '../../../src/graph/coverage.js';
import { upsertEdges } from '../../../src/graph/edges.js';
import { upsertResources } from '../../../src/graph/resources/upsert.js';
import { correlationContexts, type CorrelationQuery } from '../../../src/graph/transitions/correlation-context.js';
import { useGraph } from '../../support/graph.js';

const { driver, scope } = useGraph();
const source = `proxmox:${scope}`;
const host = (node: string) => `${source}/node/${node}`;
const vm = (n: number) => `${source}/qemu/${n}`;
const T0 = DateTime.fromISO('2026-05-01T00:00:00Z', { zone: 'utc' });
const at = (minutes: number) => T0.plus({ minutes }).toISO({ suppressMilliseconds: true })!;

/** Guest `n` runs on node pve`n`; pve1's list was read 50 minutes of every hour for 60 hours. */
beforeAll(async () => {
  const nodes = ['pve1', 'pve2', 'pve3'];
  await upsertResources(driver, [
    ...nodes.map((node) => ({ id: host(node), kind: 'host', provider: 'proxmox', name: node, state: 'online' })),
    ...[1, 2, 3].map((n) => ({
      id: vm(n),
      kind: 'vm',
      provider: 'proxmox',
      name: `vm-${n}-${scope}`,
      state: 'running',
    })),
  ]);
  await upsertEdges(
    driver,
    [1, 2, 3].map((n) => ({
      type: 'RUNS_ON' as const,
      fromId: vm(n),
      toId: host(`pve${n}`),
      provenance: 'observed' as const,
      source,
    })),
  );
  const base = (node: string) => ({ streamId: `${host(node)}#tasks`, source, node, provider: 'proxmox' as const });
  const reads: LogRead[] = Array.from({ length: 60 }, (_, h) => ({
    ...base('pve1'),
    complete: { from: at(h * 60), to: at(h * 60 + 50) },
  }));
  reads.push({
    ...base('pve1'),
    gap: { from: at(650), to: at(660), reason: 'task_stage_failed', detail: 'x', at: at(660) },
  });
  // pve2: one interval; pve3: failed reads only (no interval at all).
  reads.push({ ...base('pve2'), complete: { from: at(100), to: at(200) } });
  reads.push({
    ...base('pve3'),
    gap: { from: at(0), to: at(10), reason: 'source_unreachable', detail: 'y', at: at(10) },
  });
  await recordLogReads(driver, reads);
});

const query = (n: number, from: number, to: number): CorrelationQuery => ({
  transitionId: `${scope}-${n}-${from}`,
  resourceId: vm(n),
  observedAt: at(to),
  from: at(from),
  to: at(to),
  withHostActivity: true,
});

describe('correlationContexts: coverage cut to the window', () => {
  // [guest, from, to] in minutes from T0: before everything, the first reads, edges exactly on an
  // interval's ends, inside a hole, the middle, wider than a day, the newest reads, after everything.
  const windows: Array<[number, number, number]> = [
    [1, -5000, -3000],
    [1, -100, 30],
    [1, 50, 60],
    [1, 52, 58],
    [1, 650, 700],
    [1, 1000, 1130],
    [1, -2000, 5000],
    [1, 3500, 3650],
    [1, 4000, 9000],
    [1, 9000, 9100],
    [2, 0, 120],
    [2, 300, 400],
    [3, 0, 100],
  ];
  it.each(windows)('guest %i over [%i, %i] min: exactly what the uncut projection keeps', async (n, from, to) => {
    const [ctx] = await correlationContexts(driver, [query(n, from, to)]);
    const uncut = await streamCoveragesOf(driver, { sources: [source], since: at(from), until: at(to) });
    expect(ctx!.coverage.streams).toEqual(uncut.filter((s) => s.node === `pve${n}`));
    expect(ctx!.coverage.streams).toHaveLength(1);
  });

  it('answers many changes in one call, in the order asked', async () => {
    const qs = windows.map(([n, from, to]) => query(n, from, to));
    const many = await correlationContexts(driver, qs);
    const one = await Promise.all(qs.map(async (q) => (await correlationContexts(driver, [q]))[0]));
    expect(many).toEqual(one);
    expect(many.map((c) => c.host?.node)).toEqual(windows.map(([n]) => `pve${n}`));
  });
});
